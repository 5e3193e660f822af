// libFuzzer target: the dataset manifest (pipeline/datasets.hpp read_manifest).
//
// read_manifest takes a path: each input is written to one in-memory file (memfd_create) and
// read back through /proc/self/fd. Contract: a bad manifest is c2lab::error(bad_input) naming
// the file and the key; anything else escaping is a bug. Entries that parse have a sector
// size that porep::parse_sector_size accepts.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "pipeline/datasets.hpp"
#include "porep/params.hpp"

namespace {

struct memory_file {
    int fd = ::memfd_create("c2lab_manifest_fuzz", MFD_CLOEXEC);
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    memory_file() {
        if (fd < 0) std::abort();
    }
    void write(const uint8_t* data, size_t size) const {
        if (::ftruncate(fd, 0) != 0) std::abort();
        for (size_t done = 0; done < size;) {
            const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) std::abort();
            done += static_cast<size_t>(n);
        }
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const memory_file file;
    file.write(data, size);
    std::vector<c2lab::pipeline::dataset_info> entries;
    try {
        entries = c2lab::pipeline::read_manifest(file.path);
    } catch (const c2lab::error& e) {
        if (e.kind() != c2lab::errc::bad_input) std::abort();
        return 0;
    }
    for (const auto& d : entries) {
        try {
            (void)c2lab::porep::parse_sector_size(d.sector);
        } catch (const c2lab::error&) {
            std::abort();  // read_manifest let a bad sector size through
        }
    }
    return 0;
}
