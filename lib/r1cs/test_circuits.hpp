// Built-in test circuits for the later stages (setup, prover, benchmarks), generic over the
// constraint system.
//
// hash_chain: x_{i+1} = x_i^2 + x_i + k for i = 0..steps-1, one constraint per step,
//   x_i * x_i = x_{i+1} - x_i - k * one,
// x_0 private (aux 0), x_1..x_{steps-1} private (aux 1..steps-1), x_steps the one public
// input (input 1). steps >= 1. Each step is in namespace "step <i>", its constraint named
// "square". Gadget pattern: allocate, constrain, with the witness computed only when given
// (x0 == nullopt: shape only; a value function then throws if called).
#pragma once

#include <optional>
#include <string>

#include "core/error.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::r1cs {

struct hash_chain {
    size_t steps = 1;
    fr k = fr::from_u64(7);
    std::optional<fr> x0;  // the witness; nullopt for shape-only synthesis

    // The public output, computed directly.
    static fr output(fr x0, const fr& k, size_t steps) noexcept {
        for (size_t i = 0; i < steps; ++i) x0 = x0.square() + x0 + k;
        return x0;
    }

    // Synthesizes the chain and returns the public input variable (x_steps).
    template <class CS>
    variable synthesize(CS& cs) const {
        if (steps == 0) throw error(errc::bad_input, "hash_chain: steps must be at least 1");
        auto need = [](const std::optional<fr>& v) -> fr {
            if (!v) throw error(errc::bad_input, "hash_chain: witness missing");
            return *v;
        };
        std::optional<fr> cur = x0;
        variable x = cs.alloc([] { return "x0"; }, [&] { return need(cur); });
        for (size_t i = 0; i < steps; ++i) {
            namespace_guard ns(cs, [i] { return "step " + std::to_string(i); });
            std::optional<fr> next;
            if (cur) next = cur->square() + *cur + k;
            const bool last = i + 1 == steps;
            variable y = last ? cs.alloc_input([] { return "out"; }, [&] { return need(next); })
                              : cs.alloc([] { return "x"; }, [&] { return need(next); });
            cs.enforce([] { return "square"; }, [&](auto lc) { return lc + x; }, [&](auto lc) { return lc + x; },
                       [&](auto lc) { return lc + y - x - k * CS::one(); });
            x = y;
            cur = next;
        }
        return x;
    }
};

}  // namespace c2lab::r1cs
