// The compiled lc_indexer variants, instantiated once; the presize flag.
#include <string>

#include "r1cs/proving_assignment.hpp"

namespace c2lab::r1cs {

template class basic_indexer<std::vector<lc_term>>;
template class basic_indexer<boost::container::small_vector<lc_term, 1>>;
template class basic_indexer<boost::container::small_vector<lc_term, 2>>;
template class basic_indexer<boost::container::small_vector<lc_term, 4>>;
template class linear_combination<vec_indexer>;
template class linear_combination<smallvec_indexer<1>>;
template class linear_combination<smallvec_indexer<2>>;
template class linear_combination<smallvec_indexer<4>>;
template class proving_assignment<vec_indexer>;
template class proving_assignment<smallvec_indexer<1>>;
template class proving_assignment<smallvec_indexer<2>>;
template class proving_assignment<smallvec_indexer<4>>;

presize_mode parse_presize(std::string_view name) {
    if (name == "off") return presize_mode::off;
    if (name == "on") return presize_mode::on;
    if (name == "prefault") return presize_mode::prefault;
    throw error(errc::bad_input, "presize: unknown variant '" + std::string(name) + "' (expected off, on or prefault)");
}

std::string_view to_string(presize_mode m) noexcept {
    constexpr std::string_view names[] = {"off", "on", "prefault"};  // in the enum's order
    return names[static_cast<size_t>(m)];
}

witness_memory parse_witness_memory(std::string_view name) {
    if (name == "fresh") return witness_memory::fresh;
    if (name == "reuse") return witness_memory::reuse;
    throw error(errc::bad_input, "witness_memory: unknown variant '" + std::string(name) + "' (expected fresh or reuse)");
}

std::string_view to_string(witness_memory m) noexcept { return m == witness_memory::reuse ? "reuse" : "fresh"; }

}  // namespace c2lab::r1cs
