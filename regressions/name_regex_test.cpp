#include "regressions/name_regex.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace c2lab::regressions {
namespace {

// The pattern's error: bad_input, with every fragment in its message.
void expect_refused(const std::string& pattern, std::initializer_list<const char*> fragments) {
    try {
        name_regex re(pattern, "p.json: 'ignore[0]'");
        ADD_FAILURE() << "accepted: " << pattern.substr(0, 80);
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        for (const char* f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
}

TEST(name_regex, full_match_and_search) {
    const name_regex re("msm/g1/(ln|table)/log_n:1[0-4]/.*");
    EXPECT_TRUE(re.full_match("msm/g1/ln/log_n:12/density:100/threads:1/real_time"));
    EXPECT_FALSE(re.full_match("msm/g1/ln/log_n:16/density:100/threads:1/real_time"));
    EXPECT_FALSE(re.full_match("x/msm/g1/ln/log_n:12/"));  // the whole name
    const name_regex part("log_n:1[0-4]/");
    EXPECT_FALSE(part.full_match("msm/g1/ln/log_n:12/density:100"));
    EXPECT_TRUE(part.search("msm/g1/ln/log_n:12/density:100"));  // anywhere in it
    EXPECT_FALSE(part.search("msm/g1/ln/log_n:16/density:100"));
    const name_regex copy = re;  // copies share the compiled pattern
    EXPECT_TRUE(copy.full_match("msm/g1/table/log_n:10/"));
    EXPECT_EQ(copy.pattern(), re.pattern());
}

TEST(name_regex, exactly_matches_the_name_alone) {
    for (const std::string name : {"a/b:1.5(x)", "ff/fp_mul", "a+b*c?[d]{e}|f^g$h\\i", "x.y", "(", ""}) {
        const name_regex re = name_regex::exactly(name);
        EXPECT_TRUE(re.full_match(name)) << name;
        EXPECT_FALSE(re.full_match(name + "z")) << name;
        EXPECT_TRUE(name_regex(re.pattern()).full_match(name)) << name;  // its pattern reads back
    }
    EXPECT_FALSE(name_regex::exactly("a/b:1.5(x)").full_match("a/b:105(x)"));
    EXPECT_FALSE(name_regex::exactly("x.y").full_match("xzy"));
    // A name of any length (the limit is for patterns people write): 1000 '/' quote to 2000 chars.
    const std::string long_name = "msm" + std::string(1000, '/');
    EXPECT_TRUE(name_regex::exactly(long_name).full_match(long_name));
    EXPECT_GT(name_regex::exactly(long_name).pattern().size(), name_regex::max_chars);
}

TEST(name_regex, bad_patterns_are_bad_input) {
    expect_refused("ff/(", {"p.json: 'ignore[0]'", "not a valid regex", "ff/("});
    expect_refused("[x", {"ignore[0]", "not a valid regex"});
    // Found by policy_fuzz: libstdc++'s std::regex read this back reference's digits into a long
    // with a signed overflow (undefined behaviour); RE2 has no back references.
    expect_refused("icou(tt\\8888888888888888888888dt?tt", {"ignore[0]", "not a valid regex"});
    // Repeat counts: at most 1000, and nested ones bounded as a product (std::regex built a copy
    // of the repeated states for each).
    expect_refused("a{1001}", {"not a valid regex", "{1001}"});
    expect_refused("(a{1000}){1000}", {"not a valid regex"});
    // A count too long to read is literal text, as in Perl (std::regex overflowed reading it).
    EXPECT_TRUE(name_regex("a{99999999999999999999}").full_match("a{99999999999999999999}"));
    expect_refused("(?=a)b", {"not a valid regex"});                   // lookaround
    expect_refused("\xff\xfe", {"not a valid regex"});                 // not UTF-8
    expect_refused(std::string(name_regex::max_chars + 1, 'a'), {"ignore[0]", "1025 characters", "at most 1024"});
    EXPECT_TRUE(name_regex(std::string(name_regex::max_chars, 'a')).full_match(std::string(name_regex::max_chars, 'a')));
    expect_refused(std::string(600, '(') + "a" + std::string(600, ')'), {"1201 characters"});
    EXPECT_TRUE(name_regex(std::string(400, '(') + "a" + std::string(400, ')')).full_match("a"));
}

// A pattern a backtracking matcher takes exponential time on: RE2's automaton runs in time
// linear in the name (std::regex did not return from this).
TEST(name_regex, no_backtracking_blowup) {
    const name_regex re("(a|aa)*b");
    EXPECT_FALSE(re.full_match(std::string(5000, 'a')));
    EXPECT_TRUE(re.full_match(std::string(5000, 'a') + "b"));
    EXPECT_FALSE(name_regex("(x+x+)+y").search(std::string(5000, 'x')));
}

}  // namespace
}  // namespace c2lab::regressions
