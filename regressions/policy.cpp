#include "regressions/policy.hpp"

#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/file.hpp"

namespace c2lab::regressions {

namespace {

using nlohmann::json;

struct reader {
    const std::string& source;

    void known_keys(const json& obj, const std::string& where, const std::set<std::string>& keys) const {
        if (!obj.is_object()) throw_bad_input(source + ": '" + where + "' is not an object");
        for (auto it = obj.begin(); it != obj.end(); ++it)
            if (!keys.count(it.key()))
                throw_bad_input(source + ": unknown key '" + (where.empty() ? "" : where + ".") + it.key() + "'");
    }
    std::string string(const json& v, const std::string& key) const {
        if (!v.is_string() || v.get<std::string>().empty())
            throw_bad_input(source + ": '" + key + "' must be a non-empty string");
        return v.get<std::string>();
    }
    double probability(const json& v, const std::string& key, bool zero_ok) const {
        if (!v.is_number()) throw_bad_input(source + ": '" + key + "' must be a number");
        const double x = v.get<double>();
        if (!std::isfinite(x) || x >= 1 || x < 0 || (!zero_ok && x == 0))
            throw_bad_input(source + ": '" + key + "' must be in " + (zero_ok ? "[0, 1)" : "(0, 1)"));
        return x;
    }
    std::size_t repetitions(const json& v, const std::string& key) const {
        if (!v.is_number_integer() || v.get<long long>() < 2)
            throw_bad_input(source + ": '" + key + "' must be an integer >= 2");
        return static_cast<std::size_t>(v.get<long long>());
    }
    bool boolean(const json& v, const std::string& key) const {
        if (!v.is_boolean()) throw_bad_input(source + ": '" + key + "' must be true or false");
        return v.get<bool>();
    }
    direction dir(const json& v, const std::string& key) const {
        const std::string s = string(v, key);
        if (s == "lower_is_better") return direction::lower_is_better;
        if (s == "higher_is_better") return direction::higher_is_better;
        throw_bad_input(source + ": '" + key + "' must be \"lower_is_better\" or \"higher_is_better\", not \"" + s +
                        "\"");
    }
    name_regex regex(const json& v, const std::string& key) const {
        return name_regex(string(v, key), source + ": '" + key + "'");
    }
};

}  // namespace

std::string_view to_string(direction d) noexcept {
    return d == direction::higher_is_better ? "higher_is_better" : "lower_is_better";
}

std::string_view to_string(adjustment a) noexcept {
    switch (a) {
        case adjustment::none: return "none";
        case adjustment::holm: return "holm";
        case adjustment::benjamini_hochberg: return "bh";
    }
    return "?";
}

bool policy::ignored(std::string_view name) const {
    for (const auto& re : ignore)
        if (re.full_match(name)) return true;
    return false;
}

metric_rule policy::rule_for(std::string_view name) const {
    metric_rule r = defaults;
    for (const auto& o : overrides) {
        if (!o.re.full_match(name)) continue;
        if (o.has_metric) r.metric = o.metric;
        if (o.has_direction) r.dir = o.dir;
        if (o.has_alpha) r.alpha = o.alpha;
        if (o.has_margin) r.margin = o.margin;
        if (o.has_min) r.min_repetitions = o.min_repetitions;
        if (o.has_deterministic) r.deterministic = o.deterministic;
    }
    return r;
}

policy parse_policy(std::string_view text, const std::string& source) {
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {  // parse_error, or out_of_range for a number such as 1e400
        throw_bad_input(source + ": malformed JSON: " + e.what());
    }
    const reader rd{source};
    if (!doc.is_object()) throw_bad_input(source + ": the policy is not a JSON object");
    rd.known_keys(doc, "", {"defaults", "overrides", "ignore", "description"});

    policy p;
    if (auto d = doc.find("defaults"); d != doc.end()) {
        rd.known_keys(*d, "defaults", {"metric", "direction", "alpha", "margin", "adjustment", "min_repetitions",
                                       "deterministic"});
        if (auto v = d->find("metric"); v != d->end()) p.defaults.metric = rd.string(*v, "defaults.metric");
        if (auto v = d->find("direction"); v != d->end()) p.defaults.dir = rd.dir(*v, "defaults.direction");
        if (auto v = d->find("alpha"); v != d->end()) p.defaults.alpha = rd.probability(*v, "defaults.alpha", false);
        if (auto v = d->find("margin"); v != d->end()) p.defaults.margin = rd.probability(*v, "defaults.margin", true);
        if (auto v = d->find("min_repetitions"); v != d->end())
            p.defaults.min_repetitions = rd.repetitions(*v, "defaults.min_repetitions");
        if (auto v = d->find("deterministic"); v != d->end())
            p.defaults.deterministic = rd.boolean(*v, "defaults.deterministic");
        if (auto v = d->find("adjustment"); v != d->end()) {
            const std::string s = rd.string(*v, "defaults.adjustment");
            if (s == "holm") p.adjust = adjustment::holm;
            else if (s == "bh") p.adjust = adjustment::benjamini_hochberg;
            else if (s == "none") p.adjust = adjustment::none;
            else
                throw_bad_input(source + ": 'defaults.adjustment' must be \"holm\", \"bh\" or \"none\", not \"" + s +
                                "\"");
        }
    }
    if (auto o = doc.find("overrides"); o != doc.end()) {
        if (!o->is_array()) throw_bad_input(source + ": 'overrides' must be an array");
        for (std::size_t i = 0; i < o->size(); ++i) {
            const json& e = (*o)[i];
            const std::string at = "overrides[" + std::to_string(i) + "]";
            if (e.is_object() && e.contains("adjustment"))
                throw_bad_input(source + ": '" + at +
                                ".adjustment': the adjustment is run-wide, set it in 'defaults' only");
            rd.known_keys(e, at, {"match", "metric", "direction", "alpha", "margin", "min_repetitions", "deterministic"});
            rule_override r;
            auto m = e.find("match");
            if (m == e.end()) throw_bad_input(source + ": '" + at + ".match' is missing");
            r.re = rd.regex(*m, at + ".match");
            if (auto v = e.find("metric"); v != e.end()) r.metric = rd.string(*v, at + ".metric"), r.has_metric = true;
            if (auto v = e.find("direction"); v != e.end()) r.dir = rd.dir(*v, at + ".direction"), r.has_direction = true;
            if (auto v = e.find("alpha"); v != e.end()) r.alpha = rd.probability(*v, at + ".alpha", false), r.has_alpha = true;
            if (auto v = e.find("margin"); v != e.end()) r.margin = rd.probability(*v, at + ".margin", true), r.has_margin = true;
            if (auto v = e.find("min_repetitions"); v != e.end())
                r.min_repetitions = rd.repetitions(*v, at + ".min_repetitions"), r.has_min = true;
            if (auto v = e.find("deterministic"); v != e.end())
                r.deterministic = rd.boolean(*v, at + ".deterministic"), r.has_deterministic = true;
            p.overrides.push_back(std::move(r));
        }
    }
    if (auto ig = doc.find("ignore"); ig != doc.end()) {
        if (!ig->is_array()) throw_bad_input(source + ": 'ignore' must be an array of regexes");
        for (std::size_t i = 0; i < ig->size(); ++i) {
            const std::string at = "ignore[" + std::to_string(i) + "]";
            p.ignore.push_back(rd.regex((*ig)[i], at));
        }
    }
    if (auto d = doc.find("description"); d != doc.end() && !d->is_string())
        throw_bad_input(source + ": 'description' must be a string");
    return p;
}

policy read_policy(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file(path);
    return parse_policy(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

}  // namespace c2lab::regressions
