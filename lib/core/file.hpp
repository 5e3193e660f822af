// Whole files, read and written the way c2lab writes every result: atomically.
//
// write_file_atomic(path, fill) creates a temporary file beside path (path.tmp.XXXXXX),
// lets fill write the content through write_all, fsyncs it, gives it mode 0644, renames it
// over path and fsyncs the directory. Whatever fails on the way (a full disk, a signal's
// exception) removes the temporary file and leaves the old path untouched; the
// c2lab::error (errc::io) names the step, the file and the system's reason.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace c2lab {

std::vector<uint8_t> read_file(const std::string& path);

// Writes all of data to fd (retrying short writes and EINTR); `name` is for the message.
void write_all(int fd, const uint8_t* data, size_t size, const std::string& name);

void write_file_atomic(const std::string& path, const std::function<void(int fd, const std::string& tmp)>& fill);
void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace c2lab
