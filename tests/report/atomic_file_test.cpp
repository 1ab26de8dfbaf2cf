// Tests for src/report/atomic_file.cpp: the target is replaced whole or left as it was, no
// temporary file survives a failure, devices are written directly and their errors reported.
#include "report/atomic_file.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sb::report {
namespace {

namespace fs = std::filesystem;

std::string atomic_slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct AtomicDir {
  fs::path path = fs::temp_directory_path() / ("sb_atomic_file_" + std::to_string(::getpid()));
  AtomicDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~AtomicDir() { fs::remove_all(path); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

// Runs `body` in a child whose files may grow to `limit_bytes` at most (a write past it fails
// with EFBIG, as a full disk fails with ENOSPC); returns the child's exit status.
template <class Body>
int with_file_size_limit(rlim_t limit_bytes, Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // the write fails instead of killing the process
    const rlimit lim{limit_bytes, limit_bytes};
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(100);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(AtomicFile, CreatesThenReplacesWithoutLeavingATemporaryFile) {
  AtomicDir dir;
  const std::string target = (dir.path / "out.json").string();
  write_file_atomic(target, "first\n");
  EXPECT_EQ(atomic_slurp(target), "first\n");
  write_file_atomic(target, "second, longer\n");
  EXPECT_EQ(atomic_slurp(target), "second, longer\n");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.json"});
}

TEST(AtomicFile, FailedWriteLeavesTheTargetAsItWasAndNoTemporaryFile) {
  AtomicDir dir;
  const std::string target = (dir.path / "sweep.json").string();
  write_file_atomic(target, "old content\n");
  const std::string big(64 * 1024, 'x');
  const int code = with_file_size_limit(1024, [&] { return try_write_file_atomic(target, big); });
  EXPECT_EQ(code, EFBIG);  // the errno of the failed write comes back
  EXPECT_EQ(atomic_slurp(target), "old content\n");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"sweep.json"});
}

TEST(AtomicFile, FailedFirstWriteCreatesNothing) {
  AtomicDir dir;
  const std::string target = (dir.path / "new.csv").string();
  const int code = with_file_size_limit(10, [&] { return try_write_file_atomic(target, std::string(100, 'y')); });
  EXPECT_EQ(code, EFBIG);
  EXPECT_TRUE(dir.names().empty());
}

TEST(AtomicFile, FolderWhereTheFileGoesIsAnErrorNamingThePath) {
  AtomicDir dir;
  fs::create_directories(dir.path / "taken");
  const std::string target = (dir.path / "taken").string();
  try {
    write_file_atomic(target, "x");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.code(), ExitCode::write_failed);
    EXPECT_EQ(std::string(e.what()), "cannot write " + target + ": " + std::strerror(EISDIR));
  }
  EXPECT_EQ(dir.names(), std::vector<std::string>{"taken"});
}

TEST(AtomicFile, DevFullIsWrittenDirectlyAndItsErrorReported) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  EXPECT_EQ(try_write_file_atomic("/dev/full", "data"), ENOSPC);
  EXPECT_EQ(try_write_file_atomic("/dev/null", "data"), 0);
}

TEST(AtomicFile, ReplacedFileKeepsItsMode) {
  AtomicDir dir;
  const std::string target = (dir.path / "private.json").string();
  write_file_atomic(target, "a");
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomic(target, "b");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

TEST(AtomicFile, SymlinkIsFollowedAndKept) {
  AtomicDir dir;
  const fs::path real = dir.path / "real.json";
  const fs::path link = dir.path / "link.json";
  write_file_atomic(real.string(), "a");
  fs::create_symlink(real, link);
  write_file_atomic(link.string(), "b");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(atomic_slurp(real), "b");
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"link.json", "real.json"}));
}

TEST(AtomicFile, NameOfNameMaxBytesStillGetsATemporaryFile) {
  AtomicDir dir;
  const std::string target = (dir.path / std::string(255, 'n')).string();
  EXPECT_EQ(try_write_file_atomic(target, "x"), 0);
  EXPECT_EQ(atomic_slurp(target), "x");
  EXPECT_EQ(dir.names().size(), 1u);
}

TEST(AtomicFile, WriteAllReportsTheErrnoOfAClosedDescriptor) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[1]);
  EXPECT_EQ(write_all(fds[1], "x"), EBADF);
  ::close(fds[0]);
}

}  // namespace
}  // namespace sb::report
