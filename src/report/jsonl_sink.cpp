#include "report/jsonl_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"
#include "report/atomic_file.hpp"
#include "report/py_json.hpp"

namespace sb::report {

namespace {

// repr(ns_to_ms(ns)), as every time in the line is written; from integers (py_ms_repr): a request's
// line holds one per token event.
void put_ms(std::string& out, Nanos ns) {
  char buf[32];
  out.append(buf, py_ms_repr(buf, ns));
}

// "[a, b, ...]": one time per token event, gathered in a stack buffer and appended a few hundred
// bytes at a time rather than one std::string append per number and separator.
void put_itls(std::string& out, const TokenTimes& times) {
  constexpr std::size_t kFlushAt = 480;  // leaves room for ", " and the longest repr (24 bytes)
  char buf[512];
  std::size_t used = 0;
  buf[used++] = '[';
  for (std::size_t i = 1; i < times.size(); ++i) {
    if (i > 1) {
      buf[used++] = ',';
      buf[used++] = ' ';
    }
    used = static_cast<std::size_t>(py_ms_repr(buf + used, times[i] - times[i - 1]) - buf);
    if (used >= kFlushAt) {
      out.append(buf, used);
      used = 0;
    }
  }
  buf[used++] = ']';
  out.append(buf, used);
}

void put_key(std::string& out, const char* key) {
  out += ", \"";
  out += key;
  out += "\": ";
}

// An integer as fmt's "{}" writes it.
template <class Int>
void put_int(std::string& out, Int n) {
  char buf[24];
  out.append(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, n).ptr - buf));
}

// A key and a value that needs no escaping (an enum's name).
void put_word(std::string& out, const char* key, const char* word) {
  put_key(out, key);
  out += '"';
  out += word;
  out += '"';
}

void put_times(std::string& out, const RequestRecord& r) {
  const bool has_token = !r.token_ns.empty();
  put_key(out, "intended_ms");
  put_ms(out, r.intended_ns);
  put_key(out, "sent_ms");
  put_ms(out, r.sent_ns);
  put_key(out, "first_byte_ms");
  if (r.first_byte_ns >= 0) put_ms(out, r.first_byte_ns); else out += "null";
  put_key(out, "done_ms");
  put_ms(out, r.done_ns);
  put_key(out, "ttft_ms");
  if (has_token) put_ms(out, r.ttft_ns()); else out += "null";
  put_key(out, "e2el_ms");
  if (has_token) put_ms(out, r.latency_ns()); else out += "null";
  put_key(out, "tpot_ms");
  if (has_token && r.ok() && r.output_tokens > 1) {
    char buf[32];
    const double tpot_ms = (ns_to_ms(r.latency_ns()) - ns_to_ms(r.ttft_ns())) / (r.output_tokens - 1);
    out.append(buf, py_float_repr(buf, tpot_ms));
  } else {
    out += "null";
  }
  put_key(out, "itl_ms");
  put_itls(out, r.token_ns);
}

void put_float_ms(std::string& out, const char* key, float ms) {
  if (ms < 0) return;
  char buf[32];
  put_key(out, key);
  // The record keeps a float: rounded to the µs, 12.3 prints as 12.3, not as 12.300000190734863.
  out.append(buf, py_float_repr(buf, std::round(static_cast<double>(ms) * 1e3) / 1e3));
}

void put_count(std::string& out, const char* key, int n) {
  if (n < 0) return;
  put_key(out, key);
  out += std::to_string(n);
}

// What the server said about the request (docs/results-format.md §3): only keys it reported.
void put_server_side(std::string& out, const RequestRecord& r) {
  put_float_ms(out, "server_prefill_ms", r.server.prefill_ms);
  put_float_ms(out, "server_decode_ms", r.server.decode_ms);
  put_count(out, "server_prefill_tokens", r.server.prefill_tokens);
  put_count(out, "server_decode_tokens", r.server.decode_tokens);
  put_count(out, "cached_prompt_tokens", r.cached_prompt_tokens);
}

}  // namespace

// Plain appends and std::to_chars, the bytes fmt's "{}" wrote: five format_to calls were a fifth
// of the line's cost, and the line is written on the worker thread for every request.
void format_request_line(std::string& out, std::size_t stage, const RequestRecord& r,
                         std::string_view request_id, int shard) {
  // An "ok" stream without a token event is a no_tokens failure, as in metrics/summarize.
  const Outcome outcome = r.ok() && r.token_ns.empty() ? Outcome::no_tokens : r.outcome;
  out += "{\"stage\": ";
  put_int(out, stage);
  out += ", \"index\": ";
  put_int(out, r.index);
  out += ", \"request_id\": ";
  py_json_append_string(out, request_id);
  put_word(out, "outcome", to_string(outcome));
  put_key(out, "http_status");
  put_int(out, r.http_status);
  put_key(out, "error");
  py_json_append_string(out, r.error);
  put_times(out, r);
  put_key(out, "prompt_tokens");
  put_int(out, r.prompt_tokens);
  put_key(out, "output_tokens");
  put_int(out, r.output_tokens);
  put_key(out, "expected_output_tokens");
  put_int(out, r.expected_output_tokens);
  put_word(out, "token_source", to_string(r.token_source));
  put_key(out, "aborted");
  out += r.aborted ? "true" : "false";
  // retries: times the request was sent again on a fresh connection because a kept-alive one had
  // been closed by the server before it could have read a byte (exec/worker.cpp).
  put_key(out, "retries");
  put_int(out, r.retries);
  // Ours, after vLLM-free keys: how the stream ended and whether its events carried any text.
  put_word(out, "finish_reason", to_string(r.finish_reason));
  put_key(out, "saw_text");
  out += r.saw_text ? "true" : "false";
  put_server_side(out, r);
  if (shard >= 0) {  // ours: docs/distributed.md
    put_key(out, "shard");
    put_int(out, shard);
  }
  out += '}';
}

JsonlSink::JsonlSink(const std::string& path, bool append) : path_(path) {
  struct stat st {};
  // /dev/stdout may be the shell's redirect to a file: appended to, never truncated under it.
  const bool special = path.starts_with("/dev/") || path.starts_with("/proc/") ||
                       (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
  int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY;
  flags |= special ? O_APPEND : O_CREAT | (append ? O_APPEND : O_TRUNC);
  fd_ = ::open(path.c_str(), flags, 0666);
  if (fd_ < 0) throw UserError("cannot write per-request file " + path + ": " + std::strerror(errno));
  // Cut back on a failure only in a file of our own: a redirected stdout holds the console's lines too.
  regular_ = !special && ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  if (regular_) good_bytes_ = static_cast<std::int64_t>(st.st_size);
}

JsonlSink::~JsonlSink() { close(); }

void JsonlSink::close() noexcept {
  std::lock_guard lock(mu_);
  if (fd_ < 0) return;
  if (::close(fd_) != 0 && error_ == 0) error_ = errno;
  fd_ = -1;
}

void JsonlSink::fail_locked(int err) noexcept {
  if (error_ == 0) error_ = err;
  // Half a line would be read as a malformed record; whole lines only.
  if (regular_ && fd_ >= 0) (void)::ftruncate(fd_, good_bytes_);
}

void JsonlSink::write(std::size_t stage, const RequestRecord& r, std::string_view request_id) noexcept {
  // One buffer per thread, reused: formatting happens outside the lock and allocates only
  // when a line is longer than any before it on this thread.
  thread_local std::string line;
  try {
    line.clear();
    format_request_line(line, stage, r, request_id, shard_);
    line += '\n';
  } catch (...) {  // only std::bad_alloc can get here
    std::lock_guard lock(mu_);
    ++lost_;
    fail_locked(ENOMEM);
    return;
  }
  std::lock_guard lock(mu_);
  if (error_ != 0 || fd_ < 0) {
    ++lost_;
    return;
  }
  if (const int err = write_all(fd_, line); err != 0) {
    ++lost_;
    fail_locked(err);
    return;
  }
  ++lines_;
  good_bytes_ += static_cast<std::int64_t>(line.size());
}

std::int64_t JsonlSink::lines_written() const {
  std::lock_guard lock(mu_);
  return lines_;
}

std::int64_t JsonlSink::lines_lost() const {
  std::lock_guard lock(mu_);
  return lost_;
}

bool JsonlSink::write_failed() const { return error() != 0; }

int JsonlSink::error() const {
  std::lock_guard lock(mu_);
  return error_;
}

std::string describe_loss(const JsonlSink& sink) {
  return fmt::format("cannot write per-request file {}: {}: {} request lines lost ({} written)", sink.path(),
                     std::strerror(sink.error()), sink.lines_lost(), sink.lines_written());
}

}  // namespace sb::report
