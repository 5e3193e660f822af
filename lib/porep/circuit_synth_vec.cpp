// Instantiation of the StackedDRG circuit's synthesis (see circuit.hpp): the proving
// assignment with the default lc_indexer.
#include "porep/circuit.hpp"

namespace c2lab::porep {
template void stacked_circuit::synthesize(r1cs::proving_assignment<r1cs::vec_indexer>&) const;
}  // namespace c2lab::porep
