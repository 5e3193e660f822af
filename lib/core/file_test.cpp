// write_file_atomic under faults, each in a forked child so that limits and signals stay
// there: a file-size limit (RLIMIT_FSIZE with SIGXFSZ ignored: write() fails with EFBIG, as
// a full disk fails with ENOSPC) keeps the old file and names it; SIGTERM or SIGINT in the
// middle of a write ends the process with the signal and leaves neither a temporary nor a
// changed target. Both ways of making the temporary are covered: unnamed (O_TMPFILE) and
// named (C2LAB_NAMED_TEMP_FILES=1, the path of filesystems without O_TMPFILE).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/file.hpp"

namespace c2lab {
namespace {

namespace fs = std::filesystem;

struct temp_dir {
    fs::path dir;
    temp_dir() {
        std::string t = (fs::temp_directory_path() / "c2lab-file-fault-XXXXXX").string();
        if (::mkdtemp(t.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        dir = t;
    }
    ~temp_dir() { fs::remove_all(dir); }
    std::vector<std::string> entries() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
        return out;
    }
};

const std::vector<uint8_t> old_content = {'o', 'l', 'd', '\n'};

std::vector<uint8_t> big_content() { return std::vector<uint8_t>(1 << 20, 0x5a); }

// Runs child() in a fork; returns the wait status; the child's text (a pipe) goes to *text.
template <class F>
int in_child(F child, std::string* text) {
    int p[2];
    if (::pipe(p) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::close(p[0]);
        const std::string msg = child();
        (void)!::write(p[1], msg.data(), msg.size());
        ::_exit(0);
    }
    ::close(p[1]);
    char buf[4096];
    for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) text->append(buf, size_t(n));
    ::close(p[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
}

class file_fault : public ::testing::TestWithParam<bool /* named temporary */> {
protected:
    void SetUp() override {
        if (GetParam())
            ::setenv("C2LAB_NAMED_TEMP_FILES", "1", 1);
        else
            ::unsetenv("C2LAB_NAMED_TEMP_FILES");
    }
    void TearDown() override { ::unsetenv("C2LAB_NAMED_TEMP_FILES"); }
};

TEST_P(file_fault, replaces_with_mode_0644_and_leaves_no_temporary) {
    temp_dir t;
    const std::string path = (t.dir / "out.bin").string();
    write_file_atomic(path, old_content);
    write_file_atomic(path, big_content());
    EXPECT_EQ(read_file(path), big_content());
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    EXPECT_EQ(t.entries(), std::vector<std::string>{"out.bin"});
}

// The limit stands for a full disk: write() fails (EFBIG here, ENOSPC there) part-way.
TEST_P(file_fault, file_size_limit_keeps_the_old_file_and_names_it) {
    temp_dir t;
    const std::string path = (t.dir / "params.bin").string();
    write_file_atomic(path, old_content);
    std::string text;
    const int status = in_child(
        [&]() -> std::string {
            ::signal(SIGXFSZ, SIG_IGN);
            rlimit lim{64 * 1024, 64 * 1024};  // 64 KiB, well under the 1 MiB written
            if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return "setrlimit failed";
            try {
                write_file_atomic(path, big_content());
                return "no error";
            } catch (const error& e) {
                return std::string(e.what());
            }
        },
        &text);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_NE(text.find("cannot write " + path), std::string::npos) << text;
    EXPECT_NE(text.find(std::strerror(EFBIG)), std::string::npos) << text;
    EXPECT_NE(text.find(path + " is left as it was"), std::string::npos) << text;
    EXPECT_EQ(read_file(path), old_content);
    EXPECT_EQ(t.entries(), std::vector<std::string>{"params.bin"});
}

TEST_P(file_fault, file_size_limit_on_a_new_file_creates_nothing) {
    temp_dir t;
    const std::string path = (t.dir / "new.bin").string();
    std::string text;
    const int status = in_child(
        [&]() -> std::string {
            ::signal(SIGXFSZ, SIG_IGN);
            rlimit lim{4096, 4096};
            if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return "setrlimit failed";
            try {
                write_file_atomic(path, big_content());
                return "no error";
            } catch (const error& e) {
                return std::string(e.what());
            }
        },
        &text);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_NE(text.find(path + " was not written"), std::string::npos) << text;
    EXPECT_TRUE(t.entries().empty());
}

// A signal while the content is being written (the filler raises it itself, after writing
// part of the file): the process ends with that signal; no temporary, the old file intact.
void interrupted_write(int sig) {
    temp_dir t;
    const std::string path = (t.dir / "out.json").string();
    write_file_atomic(path, old_content);
    std::string text;
    const int status = in_child(
        [&]() -> std::string {
            install_signal_cleanup();
            struct sigaction now {};
            ::sigaction(sig, nullptr, &now);
            if (now.sa_handler == SIG_DFL || now.sa_handler == SIG_IGN)
                return "skip: this process started with the signal ignored";
            write_file_atomic(path, [&](int fd, const std::string& name) {
                const std::vector<uint8_t> part(1 << 16, 0x11);
                write_all(fd, part.data(), part.size(), name);
                ::raise(sig);
                write_all(fd, part.data(), part.size(), name);
            });
            return "the write finished";
        },
        &text);
    if (text.rfind("skip:", 0) == 0) GTEST_SKIP() << text;
    ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status << ": " << text;
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_EQ(read_file(path), old_content);
    EXPECT_EQ(t.entries(), std::vector<std::string>{"out.json"});
}

TEST_P(file_fault, sigterm_mid_write_leaves_no_temporary) { interrupted_write(SIGTERM); }
TEST_P(file_fault, sigint_mid_write_leaves_no_temporary) { interrupted_write(SIGINT); }

INSTANTIATE_TEST_SUITE_P(temporary, file_fault, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? std::string("named") : std::string("unnamed"); });

// The registry alone: a registered path is removed by SIGTERM, an unregistered one is not.
TEST(unlink_on_signal, removes_registered_paths_only) {
    temp_dir t;
    const std::string kept = (t.dir / "kept").string(), removed = (t.dir / "removed").string();
    write_file_atomic(kept, old_content);
    write_file_atomic(removed, old_content);
    std::string text;
    const int status = in_child(
        [&]() -> std::string {
            { unlink_on_signal gone(kept); }  // registered, then released
            unlink_on_signal guard(removed);
            ::raise(SIGTERM);
            return "still alive";
        },
        &text);
    if (!WIFSIGNALED(status)) GTEST_SKIP() << "SIGTERM is not at its default here: " << text;
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
    EXPECT_TRUE(fs::exists(kept));
    EXPECT_FALSE(fs::exists(removed));
}

}  // namespace
}  // namespace c2lab
