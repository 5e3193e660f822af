// c2lab error type: every failure that a user can cause (bad input, a file that
// cannot be read) is reported as c2lab::error with a kind and a message that names
// what is wrong and where. Internal invariants use the same type with kind internal.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace c2lab {

enum class errc {
    bad_input,        // malformed text or bytes (hex, base64, JSON, lengths)
    bad_length,       // a byte string of the wrong size
    non_canonical,    // a field element encoding >= the modulus
    bad_flags,        // point encoding flag bits that are not allowed
    not_on_curve,     // coordinates that do not satisfy the curve equation
    not_in_subgroup,  // a curve point outside the prime-order subgroup
    io,               // a file that cannot be read or written
    resource,         // memory or disk that the machine does not have
    device,           // no usable GPU, or a CUDA runtime call that failed
    internal,         // a broken invariant: a bug in c2lab
};

std::string_view to_string(errc kind) noexcept;

class error : public std::runtime_error {
public:
    error(errc kind, const std::string& message)
        : std::runtime_error(message), kind_(kind) {}
    errc kind() const noexcept { return kind_; }

private:
    errc kind_;
};

// The refusal of a malformed user file or argument: throws error(errc::bad_input, message).
[[noreturn]] inline void throw_bad_input(const std::string& message) { throw error(errc::bad_input, message); }

}  // namespace c2lab
