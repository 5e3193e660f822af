// Instantiations of the StackedDRG circuit's synthesis (see circuit.hpp): the proving
// assignment with the small_vector lc_indexer variants.
#include "porep/circuit.hpp"

namespace c2lab::porep {
template void stacked_circuit::synthesize(r1cs::proving_assignment<r1cs::smallvec_indexer<1>>&) const;
template void stacked_circuit::synthesize(r1cs::proving_assignment<r1cs::smallvec_indexer<2>>&) const;
template void stacked_circuit::synthesize(r1cs::proving_assignment<r1cs::smallvec_indexer<4>>&) const;
}  // namespace c2lab::porep
