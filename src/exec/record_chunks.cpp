#include "exec/record_chunks.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <memory>
#include <new>
#include <utility>

namespace sb {
namespace {

constexpr std::size_t chunk_bytes(std::size_t records) { return records * sizeof(RequestRecord); }

}  // namespace

RecordChunks::~RecordChunks() {
  for (std::size_t c = 0; c < chunks_.size(); ++c) release_chunk(c);
}

RequestRecord& RecordChunks::emplace_back(RequestRecord&& r) {
  const std::size_t slot = size_ % kPerChunk;
  if (slot == 0) {
    chunks_.reserve(chunks_.size() + 1);  // so that a failure below leaves nothing half-done
    void* p = mmap(nullptr, chunk_bytes(kPerChunk), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    chunks_.push_back(static_cast<RequestRecord*>(p));
  }
  RequestRecord* rec = new (chunks_.back() + slot) RequestRecord(std::move(r));
  ++size_;
  return *rec;
}

void RecordChunks::drain_into(std::vector<RequestRecord>& out) {
  out.reserve(out.size() + size_);
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    const std::size_t first = c * kPerChunk;
    const std::size_t n = std::min(kPerChunk, size_ - first);
    for (std::size_t i = 0; i < n; ++i) out.push_back(std::move(chunks_[c][i]));
    release_chunk(c);
  }
  chunks_.clear();
  size_ = 0;
}

// Destroys the chunk's records and unmaps it (the pages go back to the OS at once).
void RecordChunks::release_chunk(std::size_t c) noexcept {
  RequestRecord* data = chunks_[c];
  if (data == nullptr) return;
  const std::size_t first = c * kPerChunk;
  const std::size_t n = size_ > first ? std::min(kPerChunk, size_ - first) : 0;
  std::destroy_n(data, n);
  munmap(data, chunk_bytes(kPerChunk));
  chunks_[c] = nullptr;
}

}  // namespace sb
