#pragma once
// Per-request JSONL (docs/results-format.md §3): one line per finished request, written as it
// finishes, or (batched, as a run does it) once its worker's event loop has handled the other
// requests that finished in the same pass: one write per pass instead of one per request, and a
// line is in the file before the worker next waits for the network. Called from worker threads.
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "metrics/request_record.hpp"

namespace sb::report {

// Appends one JSON object (no newline) for `r` to `out`. Times are ms relative to the stage start.
// `shard` >= 0 (a sharded run, docs/distributed.md) adds "shard": I as the last key.
void format_request_line(std::string& out, std::size_t stage, const RequestRecord& r,
                         std::string_view request_id, int shard = -1);

class JsonlSink {
 public:
  // Creates (or truncates, unless `append`) the file; a device or pipe (/dev/stdout, /dev/full) is
  // opened for writing as it is. Throws sb::UserError naming the path.
  explicit JsonlSink(const std::string& path, bool append = false);
  ~JsonlSink();
  JsonlSink(const JsonlSink&) = delete;
  JsonlSink& operator=(const JsonlSink&) = delete;

  // Thread-safe; never throws. A failed write is remembered (see error()), not raised, because it
  // runs on the request path. After a failure the file is cut back to its last whole line (a
  // regular file; a device cannot be) and no further line is written: a later line after a gap
  // would look like a complete file. Those lines are counted in lines_lost().
  void write(std::size_t stage, const RequestRecord& r, std::string_view request_id) noexcept;
  // Batched: write() keeps lines in memory until flush() (or close()) writes them in one system
  // call; a failure there keeps the whole lines that went out and counts the rest lost.
  void set_batched(bool on) noexcept;
  void flush() noexcept;  // thread-safe; nothing to do when no line waits
  // Closes the file, checking the close (NFS reports a deferred ENOSPC there). Idempotent.
  void close() noexcept;
  // A sharded run: every line from now on says which shard sent it. Before the first write.
  void set_shard(int index) noexcept { shard_ = index; }

  std::int64_t lines_written() const;
  std::int64_t lines_lost() const;
  bool write_failed() const;
  int error() const;  // errno of the first failure, 0 when none
  const std::string& path() const noexcept { return path_; }

 private:
  void fail_locked(int err) noexcept;
  void flush_locked() noexcept;

  std::string path_;
  int fd_ = -1;
  bool regular_ = false;     // can be cut back with ftruncate
  mutable std::mutex mu_;
  std::int64_t lines_ = 0;
  std::int64_t lost_ = 0;
  std::int64_t good_bytes_ = 0;  // end of the last whole line
  int error_ = 0;
  int shard_ = -1;           // -1: not a sharded run
  bool batched_ = false;
  std::string pending_;      // whole lines not written yet
  std::int64_t pending_lines_ = 0;
};

// "cannot write per-request file PATH: <errno text>: N request lines lost (M written)".
std::string describe_loss(const JsonlSink& sink);

}  // namespace sb::report
