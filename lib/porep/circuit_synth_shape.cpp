// Instantiations of the StackedDRG circuit's synthesis (see circuit.hpp): counts only, the
// shape pass (counts, densities, digest: circuit-info, the caches' keys, the memory
// estimates) and constraint matrices (setup).
#include "porep/circuit.hpp"

namespace c2lab::porep {
template void stacked_circuit::synthesize(r1cs::shape_counter&) const;
template void stacked_circuit::synthesize(r1cs::shape_pass&) const;
template void stacked_circuit::synthesize(r1cs::constraint_matrices<r1cs::vec_indexer>&) const;
}  // namespace c2lab::porep
