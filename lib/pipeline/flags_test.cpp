// The flag tables: each entry's default is what flag_values holds unconstructed, every listed
// variant sets and prints back as itself, bad settings are refused naming the flag, and the
// test-only flags stay out of the engine's values.
#include "pipeline/flags.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "pipeline/test_flags.hpp"

namespace c2lab::pipeline {
namespace {

std::vector<std::string> split_variants(std::string_view list) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= list.size()) {
        const std::size_t bar = std::min(list.find('|', pos), list.size());
        out.emplace_back(list.substr(pos, bar - pos));
        pos = bar + 1;
    }
    return out;
}

// A listed variant that is a literal value ("fixed:N (N 1..20)" is a pattern).
bool literal(const std::string& v) { return v.find(' ') == std::string::npos && v.find(':') == std::string::npos; }

template <class Values>
void check_table(std::span<const flag_def<Values>> table) {
    std::set<std::string_view> names;
    const Values defaults{};
    for (const auto& f : table) {
        SCOPED_TRACE(std::string(f.name));
        EXPECT_TRUE(names.insert(f.name).second) << "duplicate name";
        EXPECT_FALSE(f.description.empty());
        EXPECT_EQ(f.get(defaults), f.default_value);  // the table's default is the struct's
        const auto variants = split_variants(f.variants);
        EXPECT_NE(std::find(variants.begin(), variants.end(), std::string(f.default_value)), variants.end());
        for (const std::string& v : variants) {
            if (!literal(v)) continue;
            Values x{};
            f.set(x, v);
            EXPECT_EQ(f.get(x), v);
        }
        Values x{};
        try {
            set_flag(f, x, "no-such-variant");
            ADD_FAILURE() << "accepted no-such-variant";
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            EXPECT_NE(std::string(e.what()).find("flag " + std::string(f.name) + "=no-such-variant"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(flags, every_engine_flag_round_trips_its_variants_and_default) { check_table(flag_registry()); }
TEST(flags, every_test_flag_round_trips_its_variants_and_default) { check_table(test_flag_registry()); }

TEST(flags, the_tables_share_no_name_and_as_text_lists_the_engine_flags_in_order) {
    for (const auto& t : test_flag_registry()) EXPECT_EQ(find_flag(flag_registry(), t.name), nullptr) << t.name;
    const auto text = flag_values{}.as_text();
    ASSERT_EQ(text.size(), flag_registry().size());
    for (std::size_t i = 0; i < text.size(); ++i) EXPECT_EQ(text[i].first, flag_registry()[i].name);
}

TEST(flags, settings_apply_in_order_and_set_the_typed_options) {
    const std::vector<std::string> s{"msm_split=on", "b_g2_msm=parallel", "msm_window=fixed:12", "msm_split=off",
                                     "synth=pce", "lc_indexer=smallvec2", "ntt_pair=bit_reversed"};
    const flag_values v = parse_flags(s);
    using po = poly::ntt_config::pair_order;
    EXPECT_EQ(flag_values{}.prover().ntt.pair, po::automatic);  // the default: auto
    EXPECT_EQ(v.prover().ntt.pair, po::bit_reversed);
    EXPECT_EQ(parse_flags(std::vector<std::string>{"ntt_pair=natural"}).prover().ntt.pair, po::natural);
    EXPECT_FALSE(v.msm_split);  // the later setting wins
    EXPECT_EQ(v.b_g2, groth16::b_g2_msm::parallel);
    EXPECT_EQ(v.msm_window.to_string(), "fixed:12");
    EXPECT_EQ(v.synth, r1cs::synth_mode::pce);
    EXPECT_EQ(v.lc_indexer, "smallvec2");
    const groth16::prover_config cfg = v.prover();
    EXPECT_EQ(cfg.b_g2, groth16::b_g2_msm::parallel);
    EXPECT_EQ(cfg.msm.window.to_string(), "fixed:12");
    EXPECT_FALSE(cfg.on_stage);
}

TEST(flags, bad_settings_are_refused_naming_what_is_wrong) {
    auto message = [](std::vector<std::string> s) {
        try {
            parse_flags(s);
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message({"msm_split"}).find("expected name=value"), std::string::npos);
    EXPECT_NE(message({"=on"}).find("expected name=value"), std::string::npos);
    const std::string unknown = message({"msm_splt=on"});
    EXPECT_NE(unknown.find("unknown flag 'msm_splt'"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("msm_split"), std::string::npos) << unknown;  // the known names are listed
    EXPECT_NE(message({"msm_window=fixed:99"}).find("flag msm_window=fixed:99"), std::string::npos);
    // The prover refuses the test-only flags, saying why.
    EXPECT_NE(message({"inject_stage_slowdown=msm_h"}).find("test-only"), std::string::npos);
}

TEST(flags, parse_all_flags_splits_engine_and_test_settings) {
    const std::vector<std::string> s{"inject_slowdown=5pct", "msm_split=on", "inject_stage_slowdown=ntt"};
    const all_flag_values v = parse_all_flags(s);
    EXPECT_TRUE(v.engine.msm_split);
    EXPECT_EQ(v.test.inject_slowdown_pct(), 5u);
    EXPECT_EQ(v.test.inject_stage_slowdown, "ntt");
    EXPECT_TRUE(v.test.stage_hook());
    EXPECT_FALSE(test_flag_values{}.stage_hook());  // off: no hook
    EXPECT_EQ(test_flag_values{}.inject_slowdown_pct(), 0u);
    const std::vector<std::string> aa{"inject_slowdown=aa"};
    EXPECT_EQ(parse_all_flags(aa).test.inject_slowdown_pct(), 0u);
    const std::vector<std::string> bad{"no_such=1"};
    EXPECT_THROW(parse_all_flags(bad), error);
}

TEST(flags, the_table_lists_every_flag_and_marks_the_test_ones) {
    const std::string t = flags_table();
    for (const auto& f : flag_registry()) EXPECT_NE(t.find(std::string(f.name)), std::string::npos) << f.name;
    const auto test_heading = t.find("test only");
    ASSERT_NE(test_heading, std::string::npos);
    for (const auto& f : test_flag_registry()) EXPECT_GT(t.find(std::string(f.name)), test_heading) << f.name;
}

}  // namespace
}  // namespace c2lab::pipeline
