// For the cache tests: a fresh C2LAB_CACHE_DIR for the object's life (a temporary directory
// named by `tag` and the process id), the previous value restored and the directory removed
// at the end.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace c2lab::pipeline {

class scoped_cache_dir {
public:
    explicit scoped_cache_dir(const std::string& tag)
        : dir_(std::filesystem::temp_directory_path() / ("c2lab-" + tag + "-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(dir_);
        if (const char* d = std::getenv("C2LAB_CACHE_DIR")) saved_ = d;
        ::setenv("C2LAB_CACHE_DIR", dir_.c_str(), 1);
    }
    ~scoped_cache_dir() {
        if (saved_)
            ::setenv("C2LAB_CACHE_DIR", saved_->c_str(), 1);
        else
            ::unsetenv("C2LAB_CACHE_DIR");
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    scoped_cache_dir(const scoped_cache_dir&) = delete;
    scoped_cache_dir& operator=(const scoped_cache_dir&) = delete;
    const std::filesystem::path& path() const noexcept { return dir_; }

private:
    std::filesystem::path dir_;
    std::optional<std::string> saved_;
};

}  // namespace c2lab::pipeline
