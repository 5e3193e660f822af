#include "regressions/ab.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "regressions/bench_json.hpp"

namespace c2lab::regressions::ab {

namespace {

using nlohmann::json;

constexpr allocator_info allocator_table[] = {
    {"glibc", "", ""},
    {"jemalloc", "libjemalloc.so.2", "libjemalloc2"},
    {"mimalloc", "libmimalloc.so.2", "libmimalloc2.0"},
};

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const auto at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::string variant_name(const variant& v, bool baseline) {
    return v.label + (baseline ? " (baseline)" : "");
}

}  // namespace

// ---------------------------------------------------------------------------------------
std::span<const allocator_info> allocators() noexcept { return allocator_table; }

const allocator_info& find_allocator(std::string_view name) {
    for (const auto& a : allocator_table)
        if (a.name == name) return a;
    std::vector<std::string> known;
    for (const auto& a : allocator_table) known.emplace_back(a.name);
    throw_bad_input("unknown allocator '" + std::string(name) + "' (known: " + join(known, ", ") + ")");
}

std::vector<std::string> default_library_dirs() {
    std::vector<std::string> dirs;
#if defined(__x86_64__)
    const char* triplet = "x86_64-linux-gnu";
#elif defined(__aarch64__)
    const char* triplet = "aarch64-linux-gnu";
#else
    const char* triplet = nullptr;
#endif
    if (triplet) {
        dirs.push_back(std::string("/usr/lib/") + triplet);
        dirs.push_back(std::string("/lib/") + triplet);
    }
    for (const char* d : {"/usr/local/lib", "/usr/lib", "/lib"}) dirs.emplace_back(d);
    return dirs;
}

std::string locate_allocator(std::string_view name, std::span<const std::string> dirs) {
    const allocator_info& a = find_allocator(name);
    if (a.library.empty()) return {};
    for (const auto& d : dirs) {
        const std::string path = d + "/" + std::string(a.library);
        if (::access(path.c_str(), R_OK) == 0) return path;
    }
    throw_bad_input("allocator '" + std::string(name) + "': " + std::string(a.library) + " not found in " +
        join(std::vector<std::string>(dirs.begin(), dirs.end()), ", ") + " (install the Debian package " +
        std::string(a.package) + ": apt-get install " + std::string(a.package) + ", or run scripts/setup.sh)");
}

// ---------------------------------------------------------------------------------------
factor parse_flag_factor(const std::string& spec, const flag_check& check) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
        throw_bad_input("--flag '" + spec + "': expected name=value[,value...] (see `c2lab flags`)");
    factor f;
    f.name = spec.substr(0, eq);
    const std::string list = spec.substr(eq + 1);
    if (list.empty()) throw_bad_input("--flag " + f.name + ": empty list of values (expected name=value[,value...])");
    for (const std::string& v : split(list, ',')) {
        if (v.empty()) throw_bad_input("--flag " + spec + ": an empty value in the list of '" + f.name + "'");
        if (std::find(f.levels.begin(), f.levels.end(), v) != f.levels.end())
            throw_bad_input("--flag " + spec + ": value '" + v + "' of '" + f.name + "' given twice");
        if (check) check(f.name + "=" + v);  // the registry's checks and messages
        f.levels.push_back(v);
    }
    return f;
}

design make_design(std::span<const std::string> flag_specs, std::span<const std::string> allocator_names,
                   const flag_check& check) {
    design d;
    for (const auto& s : flag_specs) {
        factor f = parse_flag_factor(s, check);
        for (const auto& g : d.flags)
            if (g.name == f.name)
                throw_bad_input("--flag " + f.name + " given twice: list its values in one --flag, e.g. " + f.name +
                                "=a,b");
        d.flags.push_back(std::move(f));
    }
    if (!allocator_names.empty()) {
        d.allocators.clear();
        for (const auto& a : allocator_names) {
            if (a.empty()) throw_bad_input("--allocator: an empty name in the list");
            find_allocator(a);
            if (std::find(d.allocators.begin(), d.allocators.end(), a) != d.allocators.end())
                throw_bad_input("--allocator: '" + a + "' given twice");
            d.allocators.push_back(a);
        }
    }
    std::size_t n = d.allocators.size();
    for (const auto& f : d.flags) n *= f.levels.size();
    if (n < 2)
        throw_bad_input(
            "nothing to compare: give at least one --flag with two or more values (e.g. lc_indexer=vec,smallvec4) "
            "or two or more --allocator values");
    return d;
}

std::vector<variant> expand(const design& d) {
    std::vector<variant> out{variant{}};
    for (const auto& f : d.flags) {
        std::vector<variant> next;
        for (const auto& base : out)
            for (const auto& level : f.levels) {
                variant v = base;
                v.flags.emplace_back(f.name, level);
                if (f.levels.size() > 1) v.varied.emplace_back(f.name, level);
                next.push_back(std::move(v));
            }
        out = std::move(next);
    }
    std::vector<variant> all;
    for (const auto& base : out)
        for (const auto& a : d.allocators) {
            variant v = base;
            v.allocator = a;
            std::vector<std::string> parts;
            for (const auto& [k, val] : v.varied) parts.push_back(k + "=" + val);
            if (d.allocators.size() > 1) parts.push_back("allocator=" + a);
            v.label = join(parts, " ");
            all.push_back(std::move(v));
        }
    return all;
}

std::string normalize_name(std::string_view name, std::span<const std::pair<std::string, std::string>> varied) {
    std::vector<std::string> segs = split(std::string(name), '/');
    for (std::size_t i = 0; i < segs.size(); ++i)
        for (const auto& [flag, value] : varied)
            if (segs[i] == flag + ":" + value || (i > 0 && segs[i] == value)) {
                segs[i] = flag + ":*";
                break;
            }
    return join(segs, "/");
}

std::vector<std::vector<std::size_t>> shuffled_order(std::size_t variants, std::size_t rounds, uint64_t seed) {
    rng gen(seed);
    std::vector<std::vector<std::size_t>> out(rounds);
    for (auto& r : out) {
        r.resize(variants);
        for (std::size_t i = 0; i < variants; ++i) r[i] = i;
        for (std::size_t i = variants; i > 1; --i) std::swap(r[i - 1], r[gen.below(i)]);  // Fisher-Yates
    }
    return out;
}

// ---------------------------------------------------------------------------------------
void check_config(const config& c) {
    if (c.filter.empty()) throw_bad_input("--filter: empty (a Google Benchmark regex; '.' runs everything)");
    if (c.rounds < 2) throw_bad_input("--rounds: must be >= 2 (10 or more for a useful test)");
    if (!(c.min_time > 0 && std::isfinite(c.min_time))) throw_bad_input("--min-time: must be > 0 seconds");
    if (!(c.alpha > 0 && c.alpha < 1)) throw_bad_input("--alpha: must lie in (0, 1)");
    if (!(c.margin >= 0 && c.margin < 1)) throw_bad_input("--margin: must lie in [0, 1)");
    if (c.metric != "real_time" && c.metric != "cpu_time")
        throw_bad_input("--metric '" + c.metric + "': expected real_time or cpu_time");
    if (!(c.level > 0 && c.level < 1)) throw_bad_input("interval level must lie in (0, 1)");
    if (c.resamples == 0) throw_bad_input("bootstrap resamples must be >= 1");
}

std::vector<std::string> benchmark_args(const variant& v, const config& c) {
    std::vector<std::string> a;
    for (const auto& [k, val] : v.flags) {
        a.push_back("--flag");
        a.push_back(k + "=" + val);
    }
    if (!c.dataset.empty()) {
        a.push_back("--dataset");
        a.push_back(c.dataset);
    }
    a.push_back("--benchmark_filter=" + c.filter);
    a.push_back("--benchmark_repetitions=1");
    a.push_back("--benchmark_min_time=" + fmt("%g", c.min_time));
    a.push_back("--benchmark_format=json");
    return a;
}

collection collect(std::span<const variant> variants, const config& c, const runner& run, const progress& on_run) {
    check_config(c);
    if (variants.empty()) throw_bad_input("no variants to run");
    collection out;
    out.order = shuffled_order(variants.size(), c.warmup + c.rounds, c.seed);
    for (std::size_t r = 0; r < out.order.size(); ++r) {
        const bool warm = r < c.warmup;
        const std::size_t round = warm ? r + 1 : r - c.warmup + 1;
        for (std::size_t pos = 0; pos < out.order[r].size(); ++pos) {
            const std::size_t vi = out.order[r][pos];
            const variant& v = variants[vi];
            const std::string who = "variant '" + v.label + "' (round " + std::to_string(round) + ")";
            const auto t0 = std::chrono::steady_clock::now();
            const std::string text = run(v, benchmark_args(v, c));
            const auto t1 = std::chrono::steady_clock::now();

            run_record rec;
            rec.round = round;
            rec.warmup = warm;
            rec.position = pos + 1;
            rec.variant = vi;
            rec.wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();

            // Errors reported by a benchmark (SkipWithError) are failures of the run.
            if (text.find_first_not_of(" \t\r\n") == std::string::npos)
                throw_bad_input(who + ": the benchmark printed nothing; does the filter '" + c.filter +
                    "' match a benchmark of this variant?");
            json doc;
            try {
                doc = json::parse(text);
            } catch (const json::parse_error& e) {
                throw_bad_input(who + ": the benchmark output is not JSON: " + e.what());
            }
            if (doc.is_object()) {
                if (auto rows = doc.find("benchmarks"); rows != doc.end() && rows->is_array())
                    for (const auto& row : *rows)
                        if (row.is_object() && row.value("error_occurred", false))
                            throw_bad_input(who + ": benchmark '" + row.value("name", std::string("?")) +
                                "' reported an error: " + row.value("error_message", std::string("(no message)")));
                if (auto ctx = doc.find("context"); ctx != doc.end() && ctx->is_object()) {
                    if (out.context_json.empty()) out.context_json = ctx->dump();
                    if (auto la = ctx->find("load_avg"); la != ctx->end()) rec.load_avg = la->dump();
                }
            }
            const bench_run parsed = parse_bench_json(text, who);
            for (const auto& b : parsed.benchmarks) {
                bench_value bv;
                bv.name = b.name;
                bv.normalized = normalize_name(b.name, v.varied);
                auto take = [&](const char* m) {
                    auto it = b.metrics.find(m);
                    if (it == b.metrics.end() || it->second.empty())
                        throw_bad_input(who + ": benchmark '" + b.name + "' has no " + m);
                    return it->second.front();
                };
                bv.real_time_ns = take("real_time");
                bv.cpu_time_ns = take("cpu_time");
                // A benchmark with stage counters ("<stage>_ms", bench_prove) is also judged
                // stage by stage: each stage becomes a benchmark "<name> stage:<stage>".
                std::vector<bench_value> stages;
                for (const auto& [metric, values] : b.metrics) {
                    const auto stage = stage_of_counter(metric);
                    if (!stage || values.empty()) continue;
                    const std::string tag = " stage:" + *stage;
                    bench_value sv;
                    sv.name = b.name + tag;
                    sv.normalized = bv.normalized + tag;
                    sv.real_time_ns = sv.cpu_time_ns = values.front() * 1e6;
                    stages.push_back(std::move(sv));
                }
                rec.benchmarks.push_back(std::move(bv));
                for (auto& sv : stages) rec.benchmarks.push_back(std::move(sv));
            }
            if (rec.benchmarks.empty())
                throw_bad_input(who + ": the filter '" + c.filter + "' matched no benchmark of this variant");

            if (on_run) {
                std::ostringstream line;
                line << "[ab] " << (warm ? "warm-up " : "round ") << round << "/" << (warm ? c.warmup : c.rounds)
                     << "  " << v.label << "  " << rec.benchmarks.front().name << "  "
                     << format_time(c.metric == "cpu_time" ? rec.benchmarks.front().cpu_time_ns
                                                           : rec.benchmarks.front().real_time_ns);
                if (rec.benchmarks.size() > 1) line << "  (+" << rec.benchmarks.size() - 1 << " more)";
                on_run(rec, line.str());
            }
            out.runs.push_back(std::move(rec));
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------
std::string_view to_string(outcome o) noexcept {
    switch (o) {
        case outcome::baseline: return "baseline";
        case outcome::faster: return "faster";
        case outcome::slower: return "slower";
        case outcome::same: return "same";
        case outcome::inconclusive: return "inconclusive";
    }
    return "inconclusive";
}

bool bisect_candidate_is_bad(outcome sought, const step_comparison& vs_good,
                             const std::optional<step_comparison>& vs_bad) {
    if (sought != outcome::slower && sought != outcome::faster)
        throw error(errc::bad_input, "bisect: the change sought must be slower or faster");
    if (vs_good.verdict == sought) return true;
    if (vs_good.verdict != outcome::inconclusive) return false;
    if (!vs_bad)
        throw error(errc::bad_input, "bisect: an inconclusive step needs the candidate measured against the bad commit");
    const outcome good_side = sought == outcome::slower ? outcome::faster : outcome::slower;
    if (vs_bad->verdict == good_side) return false;
    if (vs_bad->verdict != outcome::inconclusive) return true;  // the same as the bad commit, or beyond it
    if (!(vs_good.ratio > 0 && vs_bad->ratio > 0))
        throw error(errc::bad_input, "bisect: a step's ratios must be positive");
    return std::abs(std::log(vs_bad->ratio)) < std::abs(std::log(vs_good.ratio));
}

std::size_t result::count(outcome o) const {
    return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [o](const row& r) { return r.verdict == o; }));
}

namespace {
outcome from_verdict(verdict v) {
    switch (v) {
        case verdict::regressed: return outcome::slower;
        case verdict::improved: return outcome::faster;
        case verdict::equivalent: return outcome::same;
        case verdict::inconclusive: break;
    }
    return outcome::inconclusive;
}
}  // namespace

result analyse(std::span<const variant> variants, const collection& data, const config& c) {
    check_config(c);
    result out;
    out.cfg = c;
    out.variants.assign(variants.begin(), variants.end());
    const std::size_t nv = variants.size();

    // benchmark -> per variant samples, in first-appearance order
    std::vector<std::string> names;
    std::map<std::string, std::vector<std::vector<double>>> samples;
    for (const auto& run : data.runs) {
        if (run.warmup) continue;
        if (run.variant >= nv) throw_bad_input("run of an unknown variant " + std::to_string(run.variant));
        for (const auto& b : run.benchmarks) {
            auto [it, fresh] = samples.try_emplace(b.normalized, std::vector<std::vector<double>>(nv));
            if (fresh) names.push_back(b.normalized);
            it->second[run.variant].push_back(c.metric == "cpu_time" ? b.cpu_time_ns : b.real_time_ns);
        }
    }

    compare_options copt;
    copt.decision = {direction::lower_is_better, c.alpha, c.margin};
    copt.resamples = c.resamples;
    copt.level = c.level;
    copt.seed = c.seed;
    std::vector<std::size_t> tested;
    std::size_t smallest_n = 0;
    for (const auto& name : names) {
        const auto& per = samples.at(name);
        skipped_benchmark sk{name, {}};
        for (std::size_t v = 0; v < nv; ++v)
            if (!per[v].empty()) sk.variants.push_back(v);
        if (sk.variants.size() != nv) {
            out.skipped.push_back(std::move(sk));
            continue;
        }
        auto positive = [](const std::vector<double>& s) {
            return std::all_of(s.begin(), s.end(), [](double x) { return x > 0 && std::isfinite(x); });
        };
        for (std::size_t v = 0; v < nv; ++v) {
            row r;
            r.benchmark = name;
            r.variant = v;
            r.samples = per[v];
            r.median = median(r.samples);
            if (v == 0) {
                r.verdict = outcome::baseline;
            } else if (!positive(per[0]) || !positive(per[v])) {
                r.note = "non-positive values";
            } else {
                r.cmp = compare_samples(per[0], per[v], copt);
                r.tested = true;
                tested.push_back(out.rows.size());
                const std::size_t n = std::min(per[0].size(), per[v].size());
                smallest_n = smallest_n == 0 ? n : std::min(smallest_n, n);
            }
            out.rows.push_back(std::move(r));
        }
    }

    // Holm over every comparison of the run; verdicts with the adjusted p.
    std::vector<comparison> cmps;
    for (std::size_t i : tested) cmps.push_back(out.rows[i].cmp);
    adjust_comparisons(cmps, adjustment::holm, copt.decision);
    for (std::size_t k = 0; k < tested.size(); ++k) {
        row& r = out.rows[tested[k]];
        r.cmp = cmps[k];
        r.verdict = from_verdict(r.cmp.result);
    }
    out.comparisons = tested.size();
    if (smallest_n > 0) {
        // Completely separated samples give the smallest p there is.
        std::vector<double> lo(smallest_n), hi(smallest_n);
        for (std::size_t i = 0; i < smallest_n; ++i) {
            lo[i] = static_cast<double>(i + 1);
            hi[i] = static_cast<double>(smallest_n + i + 1);
        }
        out.smallest_possible_p =
            std::min(1.0, mann_whitney_u(lo, hi).p_value * static_cast<double>(out.comparisons));
    }
    return out;
}

// ---------------------------------------------------------------------------------------
std::string format_time(double ns) {
    const double a = std::fabs(ns);
    if (a >= 1e9) return fmt("%.4g s", ns / 1e9);
    if (a >= 1e6) return fmt("%.4g ms", ns / 1e6);
    if (a >= 1e3) return fmt("%.4g us", ns / 1e3);
    return fmt("%.4g ns", ns);
}

std::vector<main_effect> main_effects(const result& r) {
    // The factors of each variant: its varied flags, and the allocator when allocators vary.
    bool alloc_varies = false;
    for (const auto& v : r.variants) alloc_varies |= v.allocator != r.variants.front().allocator;
    auto factors_of = [&](const variant& v) {
        std::vector<std::pair<std::string, std::string>> f = v.varied;
        if (alloc_varies) f.emplace_back("allocator", v.allocator);
        return f;
    };
    std::vector<std::vector<std::pair<std::string, std::string>>> fac;
    for (const auto& v : r.variants) fac.push_back(factors_of(v));
    if (fac.empty() || fac.front().size() < 2) return {};
    const std::size_t nf = fac.front().size();

    std::vector<main_effect> out;
    std::vector<std::string> benches;
    for (const auto& row : r.rows)
        if (std::find(benches.begin(), benches.end(), row.benchmark) == benches.end()) benches.push_back(row.benchmark);
    for (const auto& b : benches) {
        std::map<std::size_t, double> med;  // variant -> median of this benchmark
        for (const auto& row : r.rows)
            if (row.benchmark == b && !row.samples.empty()) med[row.variant] = row.median;
        for (std::size_t k = 0; k < nf; ++k) {
            const std::string& base_level = fac.front()[k].second;
            std::vector<std::string> levels;
            for (const auto& f : fac)
                if (f[k].second != base_level && std::find(levels.begin(), levels.end(), f[k].second) == levels.end())
                    levels.push_back(f[k].second);
            for (const auto& level : levels) {
                double log_sum = 0;
                std::size_t pairs = 0;
                for (std::size_t v = 0; v < fac.size(); ++v) {
                    if (fac[v][k].second != level || !med.count(v)) continue;
                    for (std::size_t w = 0; w < fac.size(); ++w) {
                        if (fac[w][k].second != base_level || !med.count(w)) continue;
                        bool same_others = true;
                        for (std::size_t j = 0; j < nf && same_others; ++j)
                            if (j != k && fac[v][j].second != fac[w][j].second) same_others = false;
                        if (!same_others) continue;
                        log_sum += std::log(med[v] / med[w]);
                        ++pairs;
                    }
                }
                if (pairs == 0) continue;
                out.push_back({b, fac.front()[k].first, level, base_level, std::exp(log_sum / double(pairs)), pairs});
            }
        }
    }
    return out;
}

std::string markdown(const result& r, const run_info& info) {
    std::ostringstream o;
    const std::size_t slower = r.count(outcome::slower);
    o << "## c2lab ab: " << r.variants.size() << " variants x " << r.cfg.rounds << " rounds";
    if (!info.binary.empty()) o << " of " << info.binary;
    o << "\n\n";
    o << "filter `" << r.cfg.filter << "`, metric " << r.cfg.metric << " (lower is better), baseline **"
      << r.variants.front().label << "**; each variant against the baseline: ratio of medians with its bootstrap "
      << fmt("%.0f", r.cfg.level * 100) << "% CI, Mann-Whitney p adjusted by Holm over " << r.comparisons
      << " comparison(s), alpha " << fmt("%g", r.cfg.alpha) << ", margin " << fmt("%g", r.cfg.margin * 100)
      << "%.\n\n";
    o << "| benchmark | variant | n | median | ratio [" << fmt("%.0f", r.cfg.level * 100)
      << "% CI] | p (holm) | verdict |\n";
    o << "|---|---|---:|---:|---|---:|---|\n";
    for (const auto& row : r.rows) {
        o << "| " << md_escape(row.benchmark) << " | " << md_escape(variant_name(r.variants[row.variant], row.variant == 0))
          << " | " << row.samples.size() << " | " << format_time(row.median) << " | ";
        if (row.tested)
            o << fmt("%.3f", row.cmp.ci.ratio) << " [" << fmt("%.3f", row.cmp.ci.lo) << ", "
              << fmt("%.3f", row.cmp.ci.hi) << "] | " << fmt("%.2g", row.cmp.p_adjusted);
        else
            o << "- | -";
        std::string v(to_string(row.verdict));
        if (!row.note.empty()) v += " (" + row.note + ")";
        if (row.verdict == outcome::slower || row.verdict == outcome::faster) v = "**" + v + "**";
        o << " | " << v << " |\n";
    }
    // One sentence per tested comparison, the verdict a person can act on:
    // "lc_indexer=smallvec4 is 9.8% slower than lc_indexer=vec (95% CI 8.1 to 11.4%, p 0.0004)".
    o << "\n";
    for (const auto& row : r.rows) {
        if (!row.tested) continue;
        const double pct = (row.cmp.ci.ratio - 1) * 100, lo = (row.cmp.ci.lo - 1) * 100, hi = (row.cmp.ci.hi - 1) * 100;
        const bool slow = pct >= 0;
        o << "- " << md_escape(row.benchmark) << ": " << md_escape(r.variants[row.variant].label) << " is "
          << fmt("%.1f", std::fabs(pct)) << "% " << (slow ? "slower" : "faster") << " than "
          << md_escape(r.variants.front().label) << " (" << fmt("%.0f", r.cfg.level * 100) << "% CI "
          << fmt("%+.1f", lo) << " to " << fmt("%+.1f", hi) << "%, p " << fmt("%.2g", row.cmp.p_adjusted) << "): "
          << to_string(row.verdict) << "\n";
    }
    if (const auto effects = main_effects(r); !effects.empty()) {
        o << "\nMain effects (each level against the factor's first, geometric mean of the paired ratios of medians "
             "over the other factors' levels):\n\n| benchmark | factor | level | ratio | pairs |\n|---|---|---|---:|---:|\n";
        for (const auto& e : effects)
            o << "| " << md_escape(e.benchmark) << " | " << md_escape(e.factor) << " | " << md_escape(e.level) << " vs "
              << md_escape(e.baseline_level) << " | " << fmt("%.3f", e.ratio) << " (" << fmt("%+.1f", (e.ratio - 1) * 100)
              << "%) | " << e.pairs << " |\n";
    }
    o << "\nfaster: " << r.count(outcome::faster) << ", slower: " << slower << ", same: " << r.count(outcome::same)
      << ", inconclusive: " << r.count(outcome::inconclusive) << " (" << r.comparisons << " comparisons)\n";
    if (r.comparisons > 0 && r.smallest_possible_p >= r.cfg.alpha)
        o << "\nNote: with " << r.cfg.rounds << " rounds the smallest Holm-adjusted p this run can reach is "
          << fmt("%.2g", r.smallest_possible_p) << " >= alpha " << fmt("%g", r.cfg.alpha)
          << ": no variant can be called faster or slower; run more rounds (e.g. --rounds 10).\n";
    if (!r.skipped.empty()) {
        o << "\nReported by only some variants (skipped):\n";
        for (const auto& s : r.skipped) {
            std::vector<std::string> labels;
            for (std::size_t v : s.variants) labels.push_back(r.variants[v].label);
            o << "- " << s.benchmark << ": only " << join(labels, "; ") << "\n";
        }
    }
    return o.str();
}

// ---------------------------------------------------------------------------------------
namespace {

constexpr const char* palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

// Ticks at 1, 2 or 5 x 10^k covering [lo, hi], about `want` of them.
std::vector<double> nice_ticks(double lo, double hi, int want) {
    const double span = hi - lo;
    const double raw = span / want;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw) {
            step = m * mag;
            break;
        }
    std::vector<double> t;
    for (double x = std::ceil(lo / step) * step; x <= hi + step * 1e-9; x += step) t.push_back(x);
    return t;
}

struct time_unit {
    double scale;
    const char* name;
};
time_unit unit_for(double ns) {
    if (ns >= 1e9) return {1e9, "s"};
    if (ns >= 1e6) return {1e6, "ms"};
    if (ns >= 1e3) return {1e3, "us"};
    return {1, "ns"};
}

}  // namespace

std::string svg(const result& r, const run_info& info) {
    // Layout (px): labels | plot | ratio and verdict; the text columns sized from their
    // longest text (about 7 px a character at 12 px, 6.5 at 11 px).
    std::size_t longest_label = 10;
    for (std::size_t v = 0; v < r.variants.size(); ++v)
        longest_label = std::max(longest_label, variant_name(r.variants[v], v == 0).size());
    const double label_w = 20 + 7.0 * static_cast<double>(longest_label);
    const double plot_x0 = label_w + 10, plot_x1 = plot_x0 + 520, text_x = plot_x1 + 15;
    const double width = std::max(text_x + 6.5 * 52 + 10, 900.0);
    const double row_h = 24, title_h = 26, axis_h = 34, gap = 18, head_h = 64;

    std::vector<std::string> benchmarks;
    for (const auto& row : r.rows)
        if (benchmarks.empty() || benchmarks.back() != row.benchmark) benchmarks.push_back(row.benchmark);
    const double nv = static_cast<double>(r.variants.size());
    const double panel_h = title_h + nv * row_h + axis_h;
    const double height =
        head_h + static_cast<double>(std::max<std::size_t>(benchmarks.size(), 1)) * (panel_h + gap) + 10;

    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    o << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"white\"/>\n";
    o << "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">"
      << xml_escape("c2lab ab: " + r.cfg.metric + " per process (lower is better), " + std::to_string(r.cfg.rounds) +
                    " rounds" + (info.binary.empty() ? "" : ", " + info.binary))
      << "</text>\n";
    o << "<text x=\"10\" y=\"42\" fill=\"#555\">"
      << xml_escape("filter '" + r.cfg.filter + "'. Dot: one process (one round); bar: median; dashed: baseline "
                    "median. Right: ratio to the baseline [" + fmt("%.0f", r.cfg.level * 100) +
                    "% CI], Holm p, verdict.")
      << "</text>\n";
    if (benchmarks.empty())
        o << "<text x=\"10\" y=\"" << head_h + 20 << "\">no benchmark was reported by every variant</text>\n";

    double y = head_h;
    for (const auto& name : benchmarks) {
        std::vector<const row*> rows;
        for (const auto& row : r.rows)
            if (row.benchmark == name) rows.push_back(&row);
        double lo = INFINITY, hi = -INFINITY;
        for (const row* p : rows)
            for (double s : p->samples) {
                lo = std::min(lo, s);
                hi = std::max(hi, s);
            }
        if (!(hi > lo)) {
            const double pad = std::max(std::fabs(lo) * 0.01, 1.0);
            lo -= pad;
            hi += pad;
        }
        const double pad = (hi - lo) * 0.06;
        lo = std::max(0.0, lo - pad);
        hi += pad;
        const auto xs = [&](double v) { return plot_x0 + (v - lo) / (hi - lo) * (plot_x1 - plot_x0); };

        o << "<g>\n";
        o << "<text x=\"10\" y=\"" << y + 17 << "\" font-weight=\"bold\">" << xml_escape(name) << "</text>\n";
        const double rows_y0 = y + title_h, rows_y1 = rows_y0 + nv * row_h;
        o << "<rect x=\"" << plot_x0 << "\" y=\"" << rows_y0 << "\" width=\"" << plot_x1 - plot_x0 << "\" height=\""
          << rows_y1 - rows_y0 << "\" fill=\"#f7f7f7\" stroke=\"#ccc\"/>\n";

        // Axis with ticks.
        const time_unit u = unit_for(hi);
        for (double t : nice_ticks(lo, hi, 6)) {
            const double x = xs(t);
            o << "<line x1=\"" << x << "\" y1=\"" << rows_y0 << "\" x2=\"" << x << "\" y2=\"" << rows_y1 + 4
              << "\" stroke=\"#ddd\"/>\n";
            o << "<text x=\"" << x << "\" y=\"" << rows_y1 + 17 << "\" text-anchor=\"middle\" fill=\"#333\">"
              << fmt("%g", t / u.scale) << "</text>\n";
        }
        o << "<text x=\"" << plot_x1 << "\" y=\"" << rows_y1 + 31 << "\" text-anchor=\"end\" fill=\"#333\">"
          << xml_escape(r.cfg.metric + " (" + u.name + ")") << "</text>\n";

        const double base_median = rows.front()->median;
        o << "<line x1=\"" << xs(base_median) << "\" y1=\"" << rows_y0 << "\" x2=\"" << xs(base_median) << "\" y2=\""
          << rows_y1 << "\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n";

        for (std::size_t k = 0; k < rows.size(); ++k) {
            const row& rw = *rows[k];
            const double cy = rows_y0 + (static_cast<double>(k) + 0.5) * row_h;
            const char* colour = palette[rw.variant % std::size(palette)];
            o << "<text x=\"" << label_w << "\" y=\"" << cy + 4 << "\" text-anchor=\"end\">"
              << xml_escape(variant_name(r.variants[rw.variant], rw.variant == 0)) << "</text>\n";
            for (std::size_t i = 0; i < rw.samples.size(); ++i) {
                const double jitter = (static_cast<double>(i % 5) - 2.0) * 2.0;  // spread overlapping dots
                o << "<circle cx=\"" << fmt("%.2f", xs(rw.samples[i])) << "\" cy=\"" << cy + jitter
                  << "\" r=\"3.5\" fill=\"" << colour << "\" fill-opacity=\"0.55\"/>\n";
            }
            const double mx = xs(rw.median);
            o << "<line x1=\"" << fmt("%.2f", mx) << "\" y1=\"" << cy - 9 << "\" x2=\"" << fmt("%.2f", mx)
              << "\" y2=\"" << cy + 9 << "\" stroke=\"black\" stroke-width=\"2.5\"/>\n";
            std::string right = format_time(rw.median);
            if (rw.tested)
                right += "  " + fmt("%.3f", rw.cmp.ci.ratio) + " [" + fmt("%.3f", rw.cmp.ci.lo) + ", " +
                         fmt("%.3f", rw.cmp.ci.hi) + "] p " + fmt("%.2g", rw.cmp.p_adjusted);
            right += "  " + std::string(to_string(rw.verdict));
            const char* vcol = rw.verdict == outcome::slower   ? "#c00000"
                               : rw.verdict == outcome::faster ? "#007000"
                                                               : "#333";
            o << "<text x=\"" << text_x << "\" y=\"" << cy + 4 << "\" fill=\"" << vcol << "\" font-size=\"11\">"
              << xml_escape(right) << "</text>\n";
        }
        o << "</g>\n";
        y += panel_h + gap;
    }
    o << "</svg>\n";
    return o.str();
}

// ---------------------------------------------------------------------------------------
std::string to_json(const result& r, const collection& data, const run_info& info) {
    json ctx = json::object();
    json machine = json::object();
    for (const auto& [k, v] : info.machine) machine[k] = v;
    ctx["machine"] = machine;
    if (!info.commit.empty()) ctx["commit"] = info.commit;
    ctx["command_line"] = info.command_line;
    ctx["binary"] = info.binary;
    ctx["started_utc"] = info.started_utc;
    ctx["finished_utc"] = info.finished_utc;
    json libs = json::object();
    for (const auto& [k, v] : info.libraries) libs[k] = v;
    ctx["allocator_libraries"] = libs;
    ctx["config"] = {{"filter", r.cfg.filter},       {"dataset", r.cfg.dataset}, {"metric", r.cfg.metric},
                     {"min_time_s", r.cfg.min_time}, {"rounds", r.cfg.rounds},   {"warmup", r.cfg.warmup},
                     {"seed", r.cfg.seed},           {"alpha", r.cfg.alpha},     {"margin", r.cfg.margin},
                     {"level", r.cfg.level},         {"resamples", r.cfg.resamples},
                     {"adjustment", "holm"}};
    if (!data.context_json.empty()) ctx["benchmark_context"] = json::parse(data.context_json);

    json variants = json::array();
    for (std::size_t i = 0; i < r.variants.size(); ++i) {
        const variant& v = r.variants[i];
        json flags = json::object();
        for (const auto& [k, val] : v.flags) flags[k] = val;
        variants.push_back({{"index", i},
                            {"label", v.label},
                            {"flags", flags},
                            {"allocator", v.allocator},
                            {"baseline", i == 0}});
    }

    json runs = json::array();
    for (const auto& run : data.runs) {
        json bs = json::array();
        for (const auto& b : run.benchmarks)
            bs.push_back({{"name", b.name},
                          {"normalized", b.normalized},
                          {"real_time_ns", b.real_time_ns},
                          {"cpu_time_ns", b.cpu_time_ns}});
        json j = {{"round", run.round},     {"warmup", run.warmup}, {"position", run.position},
                  {"variant", run.variant}, {"wall_ms", run.wall_ms}, {"benchmarks", bs}};
        if (!run.load_avg.empty()) j["load_avg"] = json::parse(run.load_avg);
        runs.push_back(std::move(j));
    }

    json results = json::array();
    for (const auto& row : r.rows) {
        json j = {{"benchmark", row.benchmark},
                  {"variant", row.variant},
                  {"label", r.variants[row.variant].label},
                  {"n", row.samples.size()},
                  {"median_ns", row.median},
                  {"verdict", std::string(to_string(row.verdict))}};
        if (row.tested) {
            j["ratio"] = row.cmp.ci.ratio;
            j["ci"] = {row.cmp.ci.lo, row.cmp.ci.hi};
            j["p"] = row.cmp.p;
            j["p_exact"] = row.cmp.exact;
            j["p_adjusted"] = row.cmp.p_adjusted;
        }
        if (!row.note.empty()) j["note"] = row.note;
        results.push_back(std::move(j));
    }
    json skipped = json::array();
    for (const auto& s : r.skipped) skipped.push_back({{"benchmark", s.benchmark}, {"variants", s.variants}});

    json doc = {{"context", ctx},
                {"variants", variants},
                {"order", data.order},
                {"runs", runs},
                {"results", results},
                {"skipped", skipped},
                {"summary",
                 {{"faster", r.count(outcome::faster)},
                  {"slower", r.count(outcome::slower)},
                  {"same", r.count(outcome::same)},
                  {"inconclusive", r.count(outcome::inconclusive)},
                  {"comparisons", r.comparisons},
                  {"smallest_possible_p", r.smallest_possible_p}}}};
    return doc.dump(2) + "\n";
}

std::string variant_run_json(const collection& data, std::size_t variant,
                             const std::vector<std::pair<std::string, std::string>>& context) {
    nlohmann::json ctx = nlohmann::json::parse(data.context_json.empty() ? std::string("{}") : data.context_json, nullptr,
                                               false);
    if (!ctx.is_object()) ctx = nlohmann::json::object();
    for (const auto& [k, v] : context) ctx[k] = v;
    nlohmann::json rows = nlohmann::json::array();
    for (const run_record& r : data.runs)
        if (!r.warmup && r.variant == variant)
            for (const bench_value& b : r.benchmarks)
                rows.push_back({{"name", b.name}, {"run_name", b.name}, {"run_type", "iteration"},
                                {"real_time", b.real_time_ns}, {"cpu_time", b.cpu_time_ns}, {"time_unit", "ns"}});
    return nlohmann::json({{"context", ctx}, {"benchmarks", rows}}).dump();
}

}  // namespace c2lab::regressions::ab
