#include "regressions/gate.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "core/error.hpp"

namespace c2lab::regressions {

namespace {

bool is_time_metric(const std::string& m) { return m == "real_time" || m == "cpu_time"; }

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string format_value(double v, const std::string& metric) {
    if (!is_time_metric(metric)) {
        const double a = std::fabs(v);
        if (a >= 1e9) return fmt("%.4gG", v / 1e9);
        if (a >= 1e6) return fmt("%.4gM", v / 1e6);
        if (a >= 1e3) return fmt("%.4gk", v / 1e3);
        return fmt("%.4g", v);
    }
    if (v >= 1e9) return fmt("%.4g s", v / 1e9);
    if (v >= 1e6) return fmt("%.4g ms", v / 1e6);
    if (v >= 1e3) return fmt("%.4g us", v / 1e3);
    return fmt("%.4g ns", v);
}


}  // namespace

std::string gate_row::verdict_text() const {
    std::string s(to_string(result));
    if (!tested && !note.empty()) s += " (" + note + ")";
    return s;
}

std::size_t gate_result::count(verdict v) const {
    return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [v](const gate_row& r) { return r.result == v; }));
}

int gate_result::exit_status() const { return count(verdict::regressed) > 0 ? 1 : 0; }

verdict decide_exact(double ratio, direction dir, double margin) {
    if (!std::isfinite(ratio) || ratio <= 0) throw error(errc::bad_input, "decide_exact: the ratio must be finite and > 0");
    if (!(margin >= 0 && margin < 1)) throw error(errc::bad_input, "decide_exact: the margin must be in [0, 1)");
    const bool above = ratio > 1 + margin, below = ratio < 1 - margin;
    if (dir == direction::lower_is_better) return above ? verdict::regressed : below ? verdict::improved : verdict::equivalent;
    return below ? verdict::regressed : above ? verdict::improved : verdict::equivalent;
}

namespace {

bool all_positive(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

// Steps 4 and 6: the tested rows' p-values adjusted together, then each verdict from its
// adjusted p, its interval and decision options (options_of(row)).
template <class Row, class Options>
void adjust_and_decide(std::vector<Row>& rows, const std::vector<std::size_t>& tested, adjustment a,
                       const Options& options_of) {
    std::vector<double> ps;
    for (std::size_t i : tested) ps.push_back(rows[i].cmp.p);
    const std::vector<double> adj = adjust(ps, a);
    for (std::size_t k = 0; k < tested.size(); ++k) {
        Row& r = rows[tested[k]];
        r.cmp.p_adjusted = adj[k];
        r.result = r.cmp.result = decide(adj[k], r.cmp.ci, options_of(r));
    }
}

// Step 6: the "<stage>_ms" counters of every compared benchmark that has them.
void trace_stages(const bench_run& baseline, const bench_run& current, const policy& p, compare_options copt,
                  gate_result& out) {
    for (const gate_row& row : out.rows) {
        const benchmark_samples* b = baseline.find(row.name);
        const benchmark_samples* c = current.find(row.name);
        if (!b || !c) continue;
        std::vector<stage_row> rows;
        std::vector<std::size_t> tested;
        const verdict_options stage_decision{direction::lower_is_better, row.rule.alpha, row.rule.margin};
        for (const auto& [metric, base] : b->metrics) {
            const auto stage = stage_of_counter(metric);
            if (!stage) continue;
            auto cm = c->metrics.find(metric);
            if (cm == c->metrics.end()) continue;
            const std::vector<double>& cur = cm->second;
            stage_row sr;
            sr.benchmark = row.name;
            sr.stage = *stage;
            sr.cmp.n_base = base.size();
            sr.cmp.n_cur = cur.size();
            if (base.empty() || cur.empty() || !all_positive(base) || !all_positive(cur)) {
                sr.note = "non-positive values";
            } else if (base.size() < 2 || cur.size() < 2) {
                // Wall time from one run a side says nothing about its noise: not judged.
                sr.note = "one sample a side";
                sr.cmp.median_base = median(base);
                sr.cmp.median_cur = median(cur);
                sr.cmp.ci = {sr.cmp.median_cur / sr.cmp.median_base, 0, 0};
            } else {
                copt.decision = stage_decision;
                sr.cmp = compare_samples(base, cur, copt);
                sr.tested = true;
                tested.push_back(rows.size());
            }
            rows.push_back(std::move(sr));
        }
        adjust_and_decide(rows, tested, p.adjust, [&](const stage_row&) { return stage_decision; });
        for (auto& r : rows) out.stages.push_back(std::move(r));
    }
}

}  // namespace

gate_result run_gate(const bench_run& baseline, const bench_run& current, const policy& p, const gate_options& options) {
    gate_result out;
    out.baseline_machine = baseline.machine;
    out.current_machine = current.machine;
    out.adjust = p.adjust;
    out.level = options.level;
    if (auto diff = fingerprint_differences(baseline.machine, current.machine); !diff.empty()) {
        if (!options.allow_other_machine) {
            std::string msg = "the runs come from different machines (" + baseline.source + " vs " + current.source + "): ";
            for (std::size_t i = 0; i < diff.size(); ++i) msg += (i ? "; " : "") + diff[i];
            msg += ". Timings from different machines do not compare; pass --allow-other-machine to compare anyway";
            throw error(errc::bad_input, msg);
        }
        out.machine_differences = std::move(diff);
    }

    compare_options copt;
    copt.resamples = options.resamples;
    copt.level = options.level;
    copt.seed = options.seed;

    std::vector<std::size_t> tested;  // indices into out.rows
    for (const auto& b : baseline.benchmarks) {
        if (p.ignored(b.name)) {
            out.ignored.push_back(b.name);
            continue;
        }
        const benchmark_samples* c = current.find(b.name);
        if (!c) {
            out.only_baseline.push_back(b.name);
            continue;
        }
        gate_row row;
        row.name = b.name;
        row.rule = p.rule_for(b.name);
        auto bm = b.metrics.find(row.rule.metric);
        auto cm = c->metrics.find(row.rule.metric);
        row.cmp.n_base = bm == b.metrics.end() ? 0 : bm->second.size();
        row.cmp.n_cur = cm == c->metrics.end() ? 0 : cm->second.size();
        auto constant = [](const std::vector<double>& v) {
            return !v.empty() && std::all_of(v.begin(), v.end(), [&v](double x) { return x == v.front(); });
        };
        if (bm == b.metrics.end() || cm == c->metrics.end()) {
            row.note = "metric '" + row.rule.metric + "' missing";
        } else if (row.rule.deterministic && constant(bm->second) && constant(cm->second)) {
            const double base = bm->second.front(), cur = cm->second.front();
            if (!(base > 0) || !(cur > 0)) {
                row.note = "non-positive values";
            } else {
                const double ratio = cur / base;
                row.exact = true;
                row.cmp.median_base = base;
                row.cmp.median_cur = cur;
                row.cmp.ci = {ratio, ratio, ratio};
                row.cmp.result = decide_exact(ratio, row.rule.dir, row.rule.margin);
                row.result = row.cmp.result;
            }
        } else if (row.cmp.n_base < row.rule.min_repetitions || row.cmp.n_cur < row.rule.min_repetitions) {
            row.note = "too few repetitions";
        } else {
            if (!all_positive(bm->second) || !all_positive(cm->second)) {
                row.note = "non-positive values";
            } else {
                copt.decision = {row.rule.dir, row.rule.alpha, row.rule.margin};
                row.cmp = compare_samples(bm->second, cm->second, copt);
                row.tested = true;
                tested.push_back(out.rows.size());
            }
        }
        if (!row.tested && bm != b.metrics.end() && cm != c->metrics.end()) {
            row.cmp.median_base = bm->second.empty() ? 0 : median(bm->second);
            row.cmp.median_cur = cm->second.empty() ? 0 : median(cm->second);
        }
        out.rows.push_back(std::move(row));
    }
    for (const auto& c : current.benchmarks)
        if (!p.ignored(c.name) && !baseline.find(c.name)) out.only_current.push_back(c.name);
        else if (p.ignored(c.name) && !baseline.find(c.name)) out.ignored.push_back(c.name);

    // p-values adjusted over the run's tested benchmarks; each verdict with its own rule.
    adjust_and_decide(out.rows, tested, p.adjust, [](const gate_row& r) {
        return verdict_options{r.rule.dir, r.rule.alpha, r.rule.margin};
    });
    trace_stages(baseline, current, p, copt, out);
    return out;
}

std::string stage_benchmark_command(std::string_view stage) {
    const std::string b = "build/release/benchmarks/";
    if (stage == "synthesize") return b + "bench_synth --benchmark_filter='synth/porep-2kib/'";
    if (stage == "ntt") return b + "bench_ntt --benchmark_filter='ntt/h/'";
    if (stage == "msm_h" || stage == "msm_l" || stage == "msm_a" || stage == "msm_b_g1")
        return b + "bench_msm --benchmark_filter='msm/g1/(ln|table)/'";
    if (stage == "msm_b_g2") return b + "bench_msm --benchmark_filter='msm/g2/'";
    if (stage == "c1_decode") return b + "bench_c1_decode";
    if (stage == "construct") return b + "bench_construct";
    if (stage == "load_params") return b + "bench_params";
    return {};
}

namespace {

// The ratio a row of the summary shows: its comparison's (tested, or by the exact ratio), else the
// medians' where both sides have one; none otherwise.
std::optional<double> shown_ratio(const gate_row& r) {
    if (r.tested || r.exact) return r.cmp.ci.ratio;
    if (r.cmp.n_base > 0 && r.cmp.n_cur > 0 && r.cmp.median_base > 0) return r.cmp.median_cur / r.cmp.median_base;
    return std::nullopt;
}

}  // namespace

std::string markdown_summary(const gate_result& g, std::size_t max_rows) {
    std::ostringstream o;
    const std::size_t reg = g.count(verdict::regressed);
    o << "## c2lab gate: " << (reg ? "FAIL" : "PASS");
    if (reg) o << " (" << reg << (reg == 1 ? " regression" : " regressions") << ")";
    o << "\n\n";
    if (!g.machine_differences.empty()) {
        o << "**Warning: the runs come from different machines** (compared because allowed):\n";
        for (const auto& d : g.machine_differences) o << "- " << d << "\n";
        o << "\n";
    }
    const int pct = static_cast<int>(std::lround(g.level * 100));
    o << "| benchmark | metric | reps (base/cur) | baseline median | current median | ratio [" << pct
      << "% CI] | p (" << to_string(g.adjust) << ") | verdict |\n";
    o << "|---|---|---|---:|---:|---|---:|---|\n";
    // Which rows, in which order: all of them as compared; with max_rows, the regressions and
    // improvements, then the largest changes (|log ratio|), until max_rows are shown.
    std::vector<const gate_row*> shown;
    for (const auto& r : g.rows) shown.push_back(&r);
    if (max_rows != 0 && shown.size() > max_rows) {
        auto change = [](const gate_row& r) {
            const std::optional<double> ratio = shown_ratio(r);
            return ratio && *ratio > 0 && std::isfinite(*ratio) ? std::abs(std::log(*ratio)) : -1.0;  // none: last
        };
        auto judged = [](const gate_row& r) { return r.result == verdict::regressed || r.result == verdict::improved; };
        std::stable_sort(shown.begin(), shown.end(), [&](const gate_row* x, const gate_row* y) {
            if (judged(*x) != judged(*y)) return judged(*x);
            if (x->result != y->result) return x->result == verdict::regressed;
            return change(*x) > change(*y);
        });
        const auto n_judged = static_cast<std::size_t>(std::count_if(g.rows.begin(), g.rows.end(), judged));
        shown.resize(std::max(max_rows, n_judged));
    }
    for (const gate_row* row : shown) {
        const gate_row& r = *row;
        const bool have_medians = r.cmp.n_base > 0 && r.cmp.n_cur > 0;
        o << "| " << md_escape(r.name) << " | " << md_escape(r.rule.metric)
          << (r.rule.dir == direction::higher_is_better ? " (higher is better)" : "") << " | " << r.cmp.n_base << "/"
          << r.cmp.n_cur << " | " << (have_medians ? format_value(r.cmp.median_base, r.rule.metric) : "-") << " | "
          << (have_medians ? format_value(r.cmp.median_cur, r.rule.metric) : "-") << " | ";
        if (r.exact)
            o << fmt("%.4f", r.cmp.ci.ratio) << " (exact) | -";
        else if (r.tested)
            o << fmt("%.3f", r.cmp.ci.ratio) << " [" << fmt("%.3f", r.cmp.ci.lo) << ", " << fmt("%.3f", r.cmp.ci.hi) << "] | "
              << fmt("%.2g", r.cmp.p_adjusted);
        else if (const std::optional<double> ratio = shown_ratio(r))
            o << fmt("%.3f", *ratio) << " | -";
        else
            o << "- | -";
        o << " | " << (r.result == verdict::regressed ? "**regressed**" : r.verdict_text()) << " |\n";
    }
    if (shown.size() < g.rows.size())
        o << "\n_" << shown.size() << " of " << g.rows.size()
          << " rows shown: every regression and improvement, then the largest changes; the whole table is in the "
             "--markdown and --html files._\n";
    o << "\n";
    o << "regressed: " << reg << ", improved: " << g.count(verdict::improved)
      << ", equivalent: " << g.count(verdict::equivalent) << ", inconclusive: " << g.count(verdict::inconclusive)
      << " (" << g.rows.size() << " compared, ";
    if (const auto exact = std::count_if(g.rows.begin(), g.rows.end(), [](const gate_row& r) { return r.exact; }))
        o << exact << " of them by the exact ratio, ";
    o << g.ignored.size() << " ignored, " << g.only_baseline.size()
      << " only in baseline, " << g.only_current.size() << " only in current)\n";
    if (reg) {
        o << "\nRegressions:\n";
        for (const auto& r : g.rows)
            if (r.result == verdict::regressed)
                o << "- " << r.name << ": " << r.rule.metric << " ratio " << fmt(r.exact ? "%.4f" : "%.3f", r.cmp.ci.ratio)
                  << (r.exact ? " (exact)" : "") << "\n";
    }
    auto list = [&o, max_rows](const char* title, const std::vector<std::string>& names) {
        if (names.empty()) return;
        o << "\n" << title << ":\n";
        const std::size_t shown_names = max_rows != 0 ? std::min(max_rows, names.size()) : names.size();
        for (std::size_t i = 0; i < shown_names; ++i) o << "- " << names[i] << "\n";
        if (shown_names < names.size()) o << "- ... and " << names.size() - shown_names << " more\n";
    };
    // Step 6: which stages moved, and where to look next.
    std::string last;
    for (const auto& st : g.stages) {
        if (st.result != verdict::regressed && st.result != verdict::improved) continue;
        if (st.benchmark != last) {
            o << "\nStages of " << md_escape(st.benchmark) << " that moved (ratio current / baseline):\n";
            last = st.benchmark;
        }
        o << "- " << st.stage << ": " << (st.result == verdict::regressed ? "**slower**" : "faster") << ", ratio "
          << fmt("%.3f", st.cmp.ci.ratio) << " [" << fmt("%.3f", st.cmp.ci.lo) << ", " << fmt("%.3f", st.cmp.ci.hi)
          << "]";
        o << ", " << fmt("%.1f", st.cmp.median_base) << " -> " << fmt("%.1f", st.cmp.median_cur) << " ms";
        if (const std::string cmd = stage_benchmark_command(st.stage); !cmd.empty())
            o << "; its own benchmark: `" << cmd << "`";
        o << "\n";
    }
    if (const auto untested = std::count_if(g.stages.begin(), g.stages.end(),
                                            [](const stage_row& st) { return !st.note.empty(); }))
        o << "\n" << untested << " stage time(s) not judged (one sample a side, or non-positive values): run with "
          << "repetitions to have the stages compared.\n";
    list("Only in the baseline (not judged)", g.only_baseline);
    list("Only in the current run (not judged)", g.only_current);
    list("Ignored by the policy", g.ignored);
    return o.str();
}

}  // namespace c2lab::regressions
