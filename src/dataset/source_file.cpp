#include "dataset/source_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb::dataset {
namespace {

[[noreturn]] void fail(const std::string& path, std::string_view why) {
  throw UserError(fmt::format("--dataset-path: {}: {}", path, why));
}

// Reserves file size + padding of address space as zero pages, then maps the file over its start,
// so the padding after the last byte is always readable.
void* map_padded(int fd, std::size_t size, std::size_t total, PaddedFile::Access access) {
  void* base = mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  const int populate = access == PaddedFile::Access::whole ? MAP_POPULATE : 0;
  void* file = mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | populate, fd, 0);
  if (file == MAP_FAILED) {
    munmap(base, total);
    return nullptr;
  }
  if (access == PaddedFile::Access::streamed) (void)madvise(base, size, MADV_SEQUENTIAL);
  return base;
}

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

}  // namespace

PaddedFile PaddedFile::open(const std::string& path, Access access) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, errno == ENOENT ? "no such file" : std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(path, "not a regular file");
  }
  PaddedFile f;
  f.size_ = static_cast<std::size_t>(st.st_size);
  if (f.size_ == 0) {
    f.empty_.assign(simdjson::SIMDJSON_PADDING, '\0');
    f.data_ = f.empty_.data();
  } else {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    f.map_bytes_ = (f.size_ + simdjson::SIMDJSON_PADDING + page - 1) / page * page;
    f.map_ = map_padded(fd, f.size_, f.map_bytes_, access);
    const int map_errno = errno;
    if (f.map_ == nullptr) {
      ::close(fd);
      fail(path, fmt::format("cannot map ({})", std::strerror(map_errno)));
    }
    f.data_ = static_cast<const char*>(f.map_);
    if (std::string_view(f.data_, f.size_).starts_with(kUtf8Bom)) {
      f.data_ += kUtf8Bom.size();
      f.size_ -= kUtf8Bom.size();
    }
  }
  ::close(fd);  // the mapping keeps the pages
  return f;
}

PaddedFile::PaddedFile(PaddedFile&& other) noexcept { *this = std::move(other); }

PaddedFile& PaddedFile::operator=(PaddedFile&& other) noexcept {
  if (this != &other) {
    release();
    empty_ = std::move(other.empty_);
    data_ = other.map_ ? other.data_ : empty_.data();  // past a byte order mark, as other's
    size_ = std::exchange(other.size_, 0);
    map_ = std::exchange(other.map_, nullptr);
    map_bytes_ = std::exchange(other.map_bytes_, 0);
    other.data_ = nullptr;
  }
  return *this;
}

PaddedFile::~PaddedFile() { release(); }

void PaddedFile::release() noexcept {
  if (map_ != nullptr) munmap(map_, map_bytes_);
  map_ = nullptr;
  map_bytes_ = 0;
}

simdjson::padded_string_view PaddedFile::slice(std::size_t begin, std::size_t length) const noexcept {
  return simdjson::padded_string_view(data_ + begin, length,
                                      size_ - begin + simdjson::SIMDJSON_PADDING);
}

void PaddedFile::drop_pages_before(std::size_t offset) const noexcept {
  if (map_ == nullptr) return;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t from_map = static_cast<std::size_t>(data_ - static_cast<const char*>(map_)) + offset;
  const std::size_t bytes = from_map / page * page;
  // A private mapping never written to: dropping its pages loses nothing, a later touch reads them again.
  if (bytes > 0) (void)madvise(map_, bytes, MADV_DONTNEED);
}

std::size_t line_of_offset(std::string_view text, std::size_t offset) noexcept {
  const std::string_view before = text.substr(0, offset);
  return 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
}

}  // namespace sb::dataset
