// A reader of the C1 file in the one layout its writers produce: compact JSON with the fields
// in declaration order, as serde_json writes SealCommitPhase1Output and Go's encoding/json the
// outer object (the layout c1_json.hpp describes and encode_c1_file writes). It reads the text
// once, left to right, straight into the typed vanilla proofs, with no DOM: the byte arrays
// as 32 integers parsed four bytes at a time without branches, the base64 with
// base64_decode_to_parallel, the challenges split over the current oneTBB arena.
//
// It accepts a subset of what the JSON decoders accept, and only text for which they decode
// exactly the same value: it returns false for anything else (whitespace, another key order,
// an escape, a duplicated or unknown key, a number not written as serde writes it, and every
// error: bad base64, a byte out of range, a non-canonical hash, an unknown proof), leaving
// `out` unspecified. c1_json's simdjson decoder reads with it first and runs the DOM walker,
// with its checks and messages, when it returns false. Errors it throws itself are
// errc::resource (allocation) only.
#pragma once

#include <string_view>

#include "porep/vanilla_proof.hpp"

namespace c2lab::porep {

// The inner JSON, SealCommitPhase1Output.
bool read_c1_output_layout(std::string_view text, c1_output& out);

// The whole C1 file {"SectorNum", "Phase1Out" (base64 of the inner JSON), "SectorSize"}.
// Does not check SectorSize against the proof (c1_json does, for both paths).
bool read_c1_file_layout(std::string_view text, c1_file& out);

}  // namespace c2lab::porep
