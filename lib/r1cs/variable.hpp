// variable: a wire of a rank-1 constraint system, (kind, index). Inputs are public
// (input 0 is the constant one, allocated by every constraint system before synthesis),
// aux variables are the private witness. Mirrors bellpepper's Variable(Index::Input(i) |
// Index::Aux(i)).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>

namespace c2lab::r1cs {

enum class var_kind : uint8_t { input, aux };

struct variable {
    var_kind kind = var_kind::input;
    size_t index = 0;

    static constexpr variable input(size_t i) noexcept { return {var_kind::input, i}; }
    static constexpr variable aux(size_t i) noexcept { return {var_kind::aux, i}; }
    // The constant one: input 0.
    static constexpr variable one() noexcept { return input(0); }

    constexpr bool is_input() const noexcept { return kind == var_kind::input; }
    constexpr bool is_aux() const noexcept { return kind == var_kind::aux; }

    // Inputs order before aux variables, then by index.
    friend constexpr auto operator<=>(const variable&, const variable&) = default;
};

}  // namespace c2lab::r1cs
