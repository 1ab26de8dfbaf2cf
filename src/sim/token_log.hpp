#pragma once
// `servebench sim --token-log FILE`: the server-side send time of every emitted token, so a test
// or benchmark can compare the client-measured ITL with the truth. The hot path only appends a
// 24-byte record to an in-memory batch; a background thread formats and writes full batches.
//
// File format (text, one token per line, in send order, documented in docs/sim.md):
//   # servebench-sim token-log v1: send_ns request_id token_index
//   81234567890123 bench-1a2b3c4d-17 0
// send_ns: steady_clock (CLOCK_MONOTONIC) nanoseconds taken just before the write that carries
// the token; request_id: the request's x-request-id header, else "sim-<n>"; token_index from 0.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/clock.hpp"

namespace sb::sim {

class TokenLog {
 public:
  // Throws sb::UserError naming the file when it cannot be created.
  explicit TokenLog(const std::filesystem::path& file);
  ~TokenLog();  // flushes everything and closes the file
  TokenLog(const TokenLog&) = delete;
  TokenLog& operator=(const TokenLog&) = delete;

  // Producer side: call from one thread only.
  void begin(std::uint64_t id, std::string_view request_id);  // once per request, before its tokens
  void token(std::uint64_t id, int index, Nanos send_ns) noexcept;
  void end(std::uint64_t id);                                 // after its last token
  void flush();                                               // hand the current batch over and wait

 private:
  struct Record {
    Nanos send_ns;
    std::uint64_t id;
    std::int32_t index;   // token index, or -1 begin / -2 end
    std::uint32_t name;   // begin: index into names
  };
  struct Batch {
    std::vector<Record> records;
    std::vector<std::string> names;
  };

  void hand_over();  // moves `cur_` to the writer, blocks only if the writer is a batch behind
  void writer_loop();
  void write_batch(Batch& b);

  std::FILE* file_ = nullptr;
  Batch cur_;
  Batch pending_;
  bool has_pending_ = false;
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<std::uint64_t, std::string> names_;  // writer thread only
  std::thread writer_;
  static constexpr std::size_t kBatchRecords = 1 << 15;
};

// Reads a token log back: (request_id, token_index) -> send_ns rows in file order. For tests and
// benchmarks; throws sb::UserError with file:line on a malformed line.
struct TokenLogRow {
  Nanos send_ns = 0;
  std::string request_id;
  int token_index = 0;
};
std::vector<TokenLogRow> read_token_log(const std::filesystem::path& file);

}  // namespace sb::sim
