// Instantiation of the StackedDRG circuit's synthesis (see circuit.hpp): the witness-only
// system of the pre-compiled path (flag synth=pce, r1cs/pce.hpp).
#include "porep/circuit.hpp"

namespace c2lab::porep {
template void stacked_circuit::synthesize(r1cs::witness_assignment&) const;
}  // namespace c2lab::porep
