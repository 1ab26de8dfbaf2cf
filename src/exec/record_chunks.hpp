#pragma once
// A stage's records while it runs: appended in dispatch order, never moved (workers hold a pointer
// to the record of each request in flight), and handed over as the std::vector the rest of the
// program reads. Chunks come straight from the OS (mmap) so that handing them over returns each
// chunk's pages as soon as it is emptied: the records exist once, not twice, at the stage's end
// (issue 13: constant memory per request). A std::deque kept 264 bytes per 216-byte record (two to
// a 512-byte block) and its blocks stayed in the heap after the copy into the vector.
#include <cstddef>
#include <vector>

#include "metrics/request_record.hpp"

namespace sb {

class RecordChunks {
 public:
  RecordChunks() = default;
  ~RecordChunks();
  RecordChunks(const RecordChunks&) = delete;
  RecordChunks& operator=(const RecordChunks&) = delete;

  // The new record's address stays valid until drain_into() or destruction. Throws std::bad_alloc.
  RequestRecord& emplace_back(RequestRecord&& r);
  std::size_t size() const noexcept { return size_; }

  // Appends every record to `out` in order and leaves this empty; each chunk is unmapped once its
  // records have moved, so at most one chunk exists beside `out`.
  void drain_into(std::vector<RequestRecord>& out);

 private:
  // 1,024 records: a 216 KiB mapping; untouched pages of a partly filled chunk cost nothing.
  static constexpr std::size_t kPerChunk = 1024;
  void release_chunk(std::size_t c) noexcept;
  std::vector<RequestRecord*> chunks_;
  std::size_t size_ = 0;
};

}  // namespace sb
