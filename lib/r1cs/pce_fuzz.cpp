// libFuzzer target: the pre-compiled circuit file (r1cs/pce.hpp), through its three readers:
// deserialize (bytes), load (the file read section by section) and open (the file mapped).
//
// Each input is read as it is, and with its last 16 bytes replaced by the XXH3-128 of the rest
// (core/fuzz_reseal.hpp), so that mutations get past the checksum into the row starts, columns
// and coefficient ids.
// Contract: bad bytes are c2lab::error(bad_input), from all three readers alike. A circuit that
// reads is the same from all three, serializes back to the input's bytes, and evaluates
// (where its variables are few enough to allocate) without reading outside its matrices: the
// held circuit's products equal the mapped one's, which checks each entry again as it reads.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/fuzz_reseal.hpp"
#include "core/xxh3.hpp"
#include "r1cs/pce.hpp"

namespace {

using c2lab::ff::fr;
using c2lab::r1cs::precompiled_circuit;

// One path per fuzzing process (libFuzzer's -jobs run several), removed when the process ends
// normally (a crash leaves it beside the crash's input).
struct scratch_file {
    std::string path =
        (std::filesystem::temp_directory_path() / ("c2lab-pce-fuzz-" + std::to_string(::getpid()) + ".pce")).string();
    ~scratch_file() { ::unlink(path.c_str()); }
};
const std::string& scratch_path() {
    static const scratch_file file;
    return file.path;
}

// The scratch file holds the input as it is (a plain write: nothing of a user's is there, and a
// synced atomic write would slow every run).
void write_scratch(std::span<const uint8_t> bytes) {
    const int fd = ::open(scratch_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) std::abort();
    c2lab::write_all(fd, bytes.data(), bytes.size(), scratch_path());
    ::close(fd);
}

// The reader's result, or nullopt where it refused the bytes as bad input; anything else aborts.
template <class Read>
std::optional<precompiled_circuit> attempt(Read&& read) {
    try {
        return read();
    } catch (const c2lab::error& e) {
        if (e.kind() != c2lab::errc::bad_input) std::abort();
        return std::nullopt;
    }
}

// a, b, c of the circuit at one assignment (inputs[0] = 1, then small distinct values).
struct products {
    std::vector<fr> a, b, c;
};
products evaluate(const precompiled_circuit& p) {
    std::vector<fr> inputs(p.num_inputs()), aux(p.num_aux());
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = fr::from_u64(i + 1);
    for (size_t i = 0; i < aux.size(); ++i) aux[i] = fr::from_u64(1000 + i);
    products r{std::vector<fr>(p.num_constraints()), std::vector<fr>(p.num_constraints()),
               std::vector<fr>(p.num_constraints())};
    p.evaluate(inputs, aux, r.a, r.b, r.c);
    return r;
}

void read_all(std::span<const uint8_t> bytes) {
    const std::optional<precompiled_circuit> held =
        attempt([&] { return precompiled_circuit::deserialize(bytes, "fuzz input"); });
    write_scratch(bytes);
    const std::optional<precompiled_circuit> loaded = attempt([&] { return precompiled_circuit::load(scratch_path()); });
    const std::optional<precompiled_circuit> mapped = attempt([&] { return precompiled_circuit::open(scratch_path()); });
    if (held.has_value() != loaded.has_value() || held.has_value() != mapped.has_value()) std::abort();
    if (!held) return;
    if (!(*held == *loaded) || !(*held == *mapped)) std::abort();
    const std::vector<uint8_t> again = held->serialize();
    if (again.size() != bytes.size() || std::memcmp(again.data(), bytes.data(), bytes.size()) != 0) std::abort();
    // The shape is the header's: a few hundred bytes may claim 2^32 variables. Evaluate only
    // what the fuzzer's memory limit allows.
    if (held->num_inputs() + held->num_aux() > (size_t{1} << 16) || held->num_constraints() > (size_t{1} << 16))
        return;
    const products x = evaluate(*held), y = evaluate(*mapped);
    if (x.a != y.a || x.b != y.b || x.c != y.c) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    c2lab::reseal_and_read(
        std::span<const uint8_t>(data, size), [](std::span<const uint8_t> b) { return c2lab::xxh3_of(b.data(), b.size()); },
        read_all);
    return 0;
}
