#include "report/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb::report {

namespace {

// The folder part of `path` ("." when it has none) and the last component.
std::pair<std::string, std::string> split_path(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// Unique within the process (counter) and across processes (pid); the target's name is cut so the
// temporary name stays under NAME_MAX even for a target name of NAME_MAX bytes.
std::string temp_path_for(const std::string& target) {
  static std::atomic<unsigned> counter{0};
  const auto [dir, name] = split_path(target);
  const std::string tmp_name =
      fmt::format(".{}.{}-{}.tmp", name.substr(0, 200), static_cast<long>(getpid()), counter.fetch_add(1));
  return dir == "/" ? "/" + tmp_name : dir + "/" + tmp_name;
}

// Direct write to a device, pipe or terminal: no rename possible, no fsync meaningful. O_APPEND:
// /dev/stdout redirected to a file is a new description of it, which would write from offset 0
// over what the shell's stdout wrote.
int write_special(const std::string& path, std::string_view text) noexcept {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return errno;
  int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

// Makes the rename durable: the folder's entry is what a crash would otherwise lose. Best effort (a
// folder on some file systems cannot be fsync'ed); the data itself was fsync'ed already.
void sync_folder(const std::string& dir) noexcept {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  (void)::close(fd);
}

int write_replacing(const std::string& target, std::string_view text) noexcept {
  const std::string tmp = temp_path_for(target);
  // 0666 less the umask, as a plain open() of the target would give.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  // A file being replaced keeps its mode (a user's chmod 600 on a results file survives the run).
  struct stat old {};
  if (::stat(target.c_str(), &old) == 0) (void)::fchmod(fd, old.st_mode & 07777);
  int err = write_all(fd, text);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS reports a deferred ENOSPC here
  if (err == 0 && ::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    (void)::unlink(tmp.c_str());
    return err;
  }
  sync_folder(split_path(target).first);
  return 0;
}

}  // namespace

int write_all(int fd, std::string_view data, std::size_t* written) noexcept {
  const std::size_t size = data.size();
  int err = 0;
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (n == 0) {  // no progress and no error: do not spin
      err = EIO;
      break;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  if (written != nullptr) *written = size - data.size();
  return err;
}

int try_write_file_atomic(const std::string& path, std::string_view text) noexcept {
  if (path.empty()) return ENOENT;
  // /dev/stdout is a link to /proc/self/fd/1, itself a link to whatever the shell redirected to:
  // renaming over a redirected file would detach it from the shell, so /dev/ paths are written to.
  if (path.starts_with("/dev/") || path.starts_with("/proc/")) return write_special(path, text);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (!S_ISREG(st.st_mode)) return write_special(path, text);
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      // Replace the file the link names, keep the link.
      std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
      if (!real) return errno;
      return write_replacing(real.get(), text);
    }
  }
  return write_replacing(path, text);
}

void write_file_atomic(const std::string& path, std::string_view text) {
  const int err = try_write_file_atomic(path, text);
  if (err != 0) throw UserError(fmt::format("cannot write {}: {}", path, std::strerror(err)), ExitCode::write_failed);
}

}  // namespace sb::report
