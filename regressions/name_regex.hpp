// Benchmark-name patterns (a policy file's "match" and "ignore", `c2lab history --bench`):
// RE2, Debian's libre2, rather than std::regex. The patterns come from files and command lines,
// and RE2 matches in time linear in the name and compiles within a memory budget, where
// libstdc++'s std::regex compiled recursively (a long pattern overflowed the stack), read the
// digits of a back reference or a repeat count into a long without an overflow check
// (undefined behaviour, found by policy_fuzz with "\8888888888888888888") and backtracks (a
// pattern such as (a|a)*b takes time exponential in the name's length).
//
// Syntax: RE2's (github.com/google/re2, doc/syntax.txt): classes, alternation, repetition and
// groups as in ECMAScript; no back references and no lookaround, which benchmark names do not
// need. A bad pattern is c2lab::error(bad_input) naming where it came from and RE2's reason.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace c2lab::regressions {

class name_regex {
public:
    // Patterns longer than this are refused (benchmark names are short; a clear error rather than
    // RE2's "pattern too large").
    static constexpr std::size_t max_chars = 1024;

    // `what` names the pattern in errors: "<what> is not a valid regex (\"<pattern>\"): <reason>".
    explicit name_regex(std::string_view pattern, std::string_view what = "pattern");

    const std::string& pattern() const noexcept { return pattern_; }
    bool full_match(std::string_view name) const;  // the whole name
    bool search(std::string_view name) const;      // anywhere in the name

    // The pattern that matches exactly `text` (RE2::QuoteMeta), of any length: the gate's own
    // patterns for benchmark names, where max_chars (a limit for what people write) does not apply.
    static name_regex exactly(std::string_view text);

private:
    struct unchecked_length {};
    name_regex(std::string_view pattern, std::string_view what, unchecked_length);
    std::string pattern_;
    std::shared_ptr<const re2::RE2> re_;  // shared: an RE2 is neither copied nor moved
};

}  // namespace c2lab::regressions
