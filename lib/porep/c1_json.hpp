// The C1 file: the commit phase 1 output as lotus-bench and curio write it.
//
// Outer JSON (lotus cmd/lotus-bench Commit2In, curio proofsvc commit2In; Go encoding/json,
// so Phase1Out, a []byte, is standard base64 with padding):
//   {"SectorNum":<u64>,"Phase1Out":"<base64 of the inner JSON>","SectorSize":<u64>}
// Inner JSON: serde_json of filecoin-proofs-api SealCommitPhase1Output (src/seal.rs):
//   {"registered_proof":"StackedDrg2KiBV1_1",
//    "vanilla_proofs":{"StackedDrg2KiBV1":[[<Proof>, ...], ...]},   // [partition][challenge]
//    "comm_r":[32 bytes],"comm_d":[32 bytes],"replica_id":[32 bytes],
//    "seed":[32 bytes],"ticket":[32 bytes]}
// The vanilla_proofs key is the VanillaSealProof variant of the sector size (always "...V1":
// the enum has no V1_1 variants). <Proof> is rust-fil-proofs' stacked vanilla Proof
// (storage-proofs-porep/src/stacked/vanilla/params.rs), every hash a 32-byte array:
//   {"comm_d_proofs":<MerkleProof>,"comm_r_last_proof":<MerkleProof>,
//    "replica_column_proofs":{"c_x":<ColumnProof>,"drg_parents":[...],"exp_parents":[...]},
//    "labeling_proofs":[{"parents":[...],"layer_index":u32,"node":u64}, ...],
//    "encoding_proof":{"parents":[...],"layer_index":u32,"node":u64}}
//   <ColumnProof> = {"column":{"index":u32,"rows":[...],"_h":null},"inclusion_proof":<MerkleProof>}
//   <MerkleProof> = {"data":{"Single":{"root":h,"leaf":h,"path":<Path>}}}
//                 | {"data":{"Sub":{"base_proof":<Path>,"sub_proof":<Path>,"root":h,"leaf":h}}}
//                 | {"data":{"Top":{"base_proof":<Path>,"sub_proof":<Path>,"top_proof":<Path>,
//                                   "root":h,"leaf":h}}}
//   <Path> = {"path":[{"hashes":[h, ...],"index":u64}, ...]}
// ("_h" is Column's PhantomData, which serde writes as null; storage-proofs-core
// src/merkle/proof.rs, filecoin-hashers src/{sha256,poseidon}.rs.)
//
// registered_proof must be one that c2lab's circuit proves (porep/params.hpp, one table for the
// decoder and the circuit): a known proof it does not prove (NI-PoRep, Synthetic PoRep, API
// 1.0.0) is refused with the reason, any other name as unknown (errc::bad_input).
// Decoding is strict about syntax, types and single values (errc::bad_input, bad_length for a
// wrong-size byte array, non_canonical for a hash >= r) and names the JSON path in every
// message; counts against the proof type (partitions, challenges, layers, path lengths) are
// checked by the consumers. Unknown object keys are ignored (as serde does); a duplicated key
// takes its last value with both decoders (serde_json would refuse it). "-0" reads as 0 (as
// serde_json). An integer >= 2^64 is bad_input with both decoders, but simdjson refuses it
// while parsing (the message names no field) and nlohmann reads it as a float.
// simdjson refuses, while parsing (bad_input), a document nested deeper than 1024 arrays and
// objects (its default maximum depth); nlohmann has no limit, so such a value under an ignored
// key decodes with nlohmann only. A C1 output nests 16 deep (the 2 KiB fixture).
// A ProofData::Sub with an empty sub_proof path cannot be told from a Single one in
// merkle_proof, so it re-encodes as Single.
#pragma once

#include <string>
#include <string_view>

#include "porep/vanilla_proof.hpp"

namespace c2lab::porep {

// Which decoder: nlohmann/json (DOM, straightforward) or simdjson, which first reads the text
// with the layout reader (porep/c1_layout.hpp: the layout serde_json and Go write, no DOM, the
// challenges split over the oneTBB arena) and, for any other text or any error, decodes it with
// simdjson's DOM API. Both produce identical structures and the same error kinds.
enum class c1_json_decoder { nlohmann, simdjson };

c1_json_decoder parse_c1_json_decoder(std::string_view name);  // "nlohmann" | "simdjson"
// The kernel simdjson parses with in this process ("icelake", "haswell", ...): its own choice
// from the CPU, except that where AVX-512 is switched off (C2LAB_NO_AVX512=1, C2LAB_PORTABLE=1)
// the AVX2 kernel "haswell" is taken, as on a CPU without AVX-512. For benchmark contexts.
const std::string& simdjson_kernel();
std::string_view to_string(c1_json_decoder decoder) noexcept;

// Compact JSON exactly as serde_json / Go's encoding/json write it (fields in declaration order).
std::string encode_c1_output_json(const c1_output& out);
std::string encode_c1_file(const c1_file& file);

c1_output decode_c1_output_json(std::string_view text, c1_json_decoder decoder = c1_json_decoder::nlohmann);
c1_file decode_c1_file(std::string_view text, c1_json_decoder decoder = c1_json_decoder::nlohmann);
c1_file read_c1_file(const std::string& path, c1_json_decoder decoder = c1_json_decoder::nlohmann);

}  // namespace c2lab::porep
