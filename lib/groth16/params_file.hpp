// The c2lab parameters file: a versioned binary form of groth16::parameters that loads fast.
//
// Layout, version 2 (all integers little-endian):
//
//   offset  size  field
//   0       8     magic "C2LABPRM"
//   8       4     u32 version (2)
//   12      4     u32 reserved (0)
//   16      8*9   u64 counts: n (domain size, a power of two), num_inputs, num_aux,
//                 h, l, a, b_g1, b_g2, ic (the number of points in each vector)
//   88      32    the digest of the circuit's structure the parameters were made for
//                 (parameters::circuit_digest, r1cs/shape_pass.hpp; zeros: not recorded)
//   120     ...   vk: alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2
//           ...   ic, h, l, a, b_g1 (G1 points), b_g2 (G2 points)
//   end-32  32    SHA-256 of every byte before it
//
// Points are raw Montgomery limbs (the in-memory form; no conversion on load): a G1 point
// is x then y, each 6 u64 limbs (96 bytes); a G2 point is x.c0, x.c1, y.c0, y.c1 (192
// bytes). The identity is all zeros. Counts must satisfy h = n - 1, l = num_aux,
// ic = num_inputs, num_inputs <= a <= num_inputs + num_aux, b_g1 = b_g2 <= num_inputs +
// num_aux, and the file size must be exactly what they imply (params_file_bytes).
// Version 1 (no circuit digest, an 88-byte header) is refused with a message that says so:
// its parameters cannot be matched to a circuit's structure, only to its counts.
//
// On load every limb vector is checked to be below p (canonical Montgomery form) and every
// point to be on its curve; the six vk points are also subgroup-checked. The query points
// are not subgroup-checked (that would cost about as much as the MSMs): the checksum
// guards against corruption, not against a malicious file.
//
// write_parameters writes atomically: a temporary file in the same directory, fsync,
// rename over path, fsync of the directory. read_parameters maps the file (mmap; or reads it,
// params_io::read) and checks the checksum and the points at once: one task hashes the file
// while the other threads decode it. Mapped, it hands back each range both have passed
// (MADV_DONTNEED: the pages stay in the page cache), so the peak of a load is the decoded
// parameters and about one vector's pages, not twice the parameters. A trusted load
// (params_check::own, the origin record matching) of a mapped file copies nothing: the query
// points are the file's records where they lie (query_points, borrowed), the mapping kept while
// the parameters or a copy of them live; its contents are still hashed against the record
// before read_parameters returns. (A file changed in place afterwards would change them too:
// c2lab writes parameters files only by rename.) It throws
// c2lab::error naming the path and the problem: errc::io (cannot open/read/write),
// errc::bad_input (truncated, trailing bytes, bad magic, unsupported version, inconsistent
// counts, checksum mismatch, non-canonical coordinates, a point off its curve or, for the
// vk, outside the subgroup).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "groth16/keys.hpp"

namespace c2lab::groth16 {

inline constexpr char params_file_magic[8] = {'C', '2', 'L', 'A', 'B', 'P', 'R', 'M'};
inline constexpr uint32_t params_file_version = 2;
inline constexpr size_t params_file_header_bytes = 120;

// The exact size of the file of parameters with a domain of n points, num_inputs inputs (the
// one included), num_aux aux variables, a_points points in a and b_points in b_g1 (and b_g2).
uint64_t params_file_bytes(uint64_t n, uint64_t num_inputs, uint64_t num_aux, uint64_t a_points,
                           uint64_t b_points) noexcept;

// How read_parameters gets the file's bytes (the params_io flag): mmap maps it (pages come
// in as the decoder touches them); read reads the whole file into memory with read(2) first.
// Both decode and check the same way and give the same parameters.
enum class params_io { mmap, read };
params_io parse_params_io(std::string_view name);  // errc::bad_input naming the variants
std::string_view to_string(params_io io) noexcept;

// What the header of a parameters file says: the counts (the Layout above) and the circuit digest.
struct params_header {
    uint64_t n = 0, num_inputs = 0, num_aux = 0, h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0, ic = 0;
    std::array<uint8_t, 32> circuit_digest{};
};
// The header of the file at path, with the checks read_parameters makes of it (magic, version,
// the counts against each other and against the file's size), without reading the points:
// what a caller that loads the rest later checks up front.
params_header read_parameters_header(const std::string& path);
// The header a file of these parameters would have.
params_header header_of(const parameters& p) noexcept;

void write_parameters(const std::string& path, const parameters& params);
// How much of a file read_parameters checks (the params_check flag). full: every coordinate
// below p and every point on its curve, always. own: the same the first time; once a file has
// passed, or when write_parameters wrote it, an origin record beside it (<path>.origin: this
// machine's id, the file's size, its stored SHA-256 and the XXH3-128 of the bytes written or
// checked) says so, and a later load of a file whose size and stored checksum match the record
// copies the query points without checking them and compares the contents' XXH3-128 with the
// record's instead of the SHA-256 (a changed byte is refused either way), so those are the
// bytes that were checked; the vk points are always checked. A record from another machine
// (another /etc/machine-id) or for other bytes is ignored. Records are written best effort (a
// directory c2lab cannot write into keeps none, and its loads check every point).
enum class params_check { full, own };
params_check parse_params_check(std::string_view name);  // errc::bad_input naming the variants
std::string_view to_string(params_check c) noexcept;

parameters read_parameters(const std::string& path, params_io io = params_io::mmap,
                           params_check check = params_check::full);
// The origin record's path, whether it matches the file at path on this machine, and this
// machine's id (/etc/machine-id, else the host name; empty: no record is ever trusted).
std::string params_origin_path(const std::string& path);
bool params_origin_matches(const std::string& path);
std::string this_machine_id();
// The decoder read_parameters runs on the file's bytes; `path` only names them in messages.
parameters decode_parameters(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace c2lab::groth16
