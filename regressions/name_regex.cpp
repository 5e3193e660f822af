#include "regressions/name_regex.hpp"

#include <re2/re2.h>

#include "core/error.hpp"

namespace c2lab::regressions {

name_regex::name_regex(std::string_view pattern, std::string_view what) : pattern_(pattern) {
    if (pattern.size() > max_chars)
        throw error(errc::bad_input, std::string(what) + " is a regex of " + std::to_string(pattern.size()) +
                                         " characters; at most " + std::to_string(max_chars) + " are accepted");
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

std::string name_regex::quote(std::string_view text) {
    return RE2::QuoteMeta(re2::StringPiece(text.data(), text.size()));
}

}  // namespace c2lab::regressions
