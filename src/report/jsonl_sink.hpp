#pragma once
// Per-request JSONL (docs/results-format.md §3): one line per finished request, written and
// flushed at once so a crash or Ctrl-C loses nothing. Called from worker threads.
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "metrics/request_record.hpp"

namespace sb::report {

// Appends one JSON object (no newline) for `r` to `out`. Times are ms relative to the stage start.
void format_request_line(std::string& out, std::size_t stage, const RequestRecord& r,
                         std::string_view request_id);

class JsonlSink {
 public:
  // Creates (or truncates, unless `append`) the file. Throws sb::UserError naming the path.
  explicit JsonlSink(const std::string& path, bool append = false);
  ~JsonlSink();
  JsonlSink(const JsonlSink&) = delete;
  JsonlSink& operator=(const JsonlSink&) = delete;

  // Thread-safe; never throws. A failed write is remembered (see write_failed()), not raised,
  // because it runs on the request path.
  void write(std::size_t stage, const RequestRecord& r, std::string_view request_id) noexcept;

  std::int64_t lines_written() const;
  bool write_failed() const;
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  mutable std::mutex mu_;
  std::int64_t lines_ = 0;
  bool failed_ = false;
};

}  // namespace sb::report
