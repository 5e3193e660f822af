#include "regressions/name_regex.hpp"

#include <re2/re2.h>

#include "core/error.hpp"

namespace c2lab::regressions {

namespace {

std::string_view length_checked(std::string_view pattern, std::string_view what) {
    if (pattern.size() > name_regex::max_chars)
        throw error(errc::bad_input, std::string(what) + " is a regex of " + std::to_string(pattern.size()) +
                                         " characters; at most " + std::to_string(name_regex::max_chars) +
                                         " are accepted");
    return pattern;
}

}  // namespace

name_regex::name_regex(std::string_view pattern, std::string_view what)
    : name_regex(length_checked(pattern, what), what, unchecked_length{}) {}

name_regex::name_regex(std::string_view pattern, std::string_view what, unchecked_length) : pattern_(pattern) {
    RE2::Options options;
    options.set_log_errors(false);  // the error goes into the exception, not to stderr
    auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
    if (!re->ok())
        throw error(errc::bad_input,
                    std::string(what) + " is not a valid regex (\"" + pattern_ + "\"): " + re->error());
    re_ = std::move(re);
}

bool name_regex::full_match(std::string_view name) const {
    return RE2::FullMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

bool name_regex::search(std::string_view name) const {
    return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

name_regex name_regex::exactly(std::string_view text) {
    return name_regex(RE2::QuoteMeta(re2::StringPiece(text.data(), text.size())), "a benchmark name", unchecked_length{});
}

}  // namespace c2lab::regressions
