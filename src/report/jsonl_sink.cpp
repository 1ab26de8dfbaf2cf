#include "report/jsonl_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

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

// ", \"key\": " built at compile time: one append per key (17 keys a line, on the worker thread).
template <std::size_t N>
struct Key {
  consteval Key(const char (&key)[N]) {  // NOLINT(google-explicit-constructor): put_key<"name">
    const char* at = key;
    text[0] = ',';
    text[1] = ' ';
    text[2] = '"';
    for (std::size_t i = 0; i + 1 < N; ++i) text[3 + i] = *at++;
    text[N + 2] = '"';
    text[N + 3] = ':';
    text[N + 4] = ' ';
  }
  char text[N + 5]{};
};

template <Key K>
void put_key(std::string& out) {
  out.append(K.text, sizeof K.text);
}

// An integer as fmt's "{}" writes it.
template <class Int>
void put_int(std::string& out, Int n) {
  char buf[24];
  out.append(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, n).ptr - buf));
}

// A key and a value that needs no escaping (an enum's name).
template <Key K>
void put_word(std::string& out, const char* word) {
  put_key<K>(out);
  out += '"';
  out += word;
  out += '"';
}

void put_times(std::string& out, const RequestRecord& r) {
  const bool has_token = !r.token_ns.empty();
  put_key<"intended_ms">(out);
  put_ms(out, r.intended_ns);
  put_key<"sent_ms">(out);
  put_ms(out, r.sent_ns);
  put_key<"first_byte_ms">(out);
  if (r.first_byte_ns >= 0) put_ms(out, r.first_byte_ns); else out += "null";
  put_key<"done_ms">(out);
  put_ms(out, r.done_ns);
  put_key<"ttft_ms">(out);
  if (has_token) put_ms(out, r.ttft_ns()); else out += "null";
  put_key<"e2el_ms">(out);
  if (has_token) put_ms(out, r.latency_ns()); else out += "null";
  put_key<"tpot_ms">(out);
  if (has_token && r.ok() && r.output_tokens > 1) {
    char buf[32];
    const double tpot_ms = (ns_to_ms(r.latency_ns()) - ns_to_ms(r.ttft_ns())) / (r.output_tokens - 1);
    out.append(buf, py_float_repr(buf, tpot_ms));
  } else {
    out += "null";
  }
  put_key<"itl_ms">(out);
  put_itls(out, r.token_ns);
}

template <Key K>
void put_float_ms(std::string& out, float ms) {
  if (ms < 0) return;
  char buf[32];
  put_key<K>(out);
  // The record keeps a float: rounded to the µs, 12.3 prints as 12.3, not as 12.300000190734863.
  out.append(buf, py_float_repr(buf, std::round(static_cast<double>(ms) * 1e3) / 1e3));
}

template <Key K>
void put_count(std::string& out, int n) {
  if (n < 0) return;
  put_key<K>(out);
  out += std::to_string(n);
}

// What the server said about the request (docs/results-format.md §3): only keys it reported.
void put_server_side(std::string& out, const RequestRecord& r) {
  put_float_ms<"server_prefill_ms">(out, r.server.prefill_ms);
  put_float_ms<"server_decode_ms">(out, r.server.decode_ms);
  put_count<"server_prefill_tokens">(out, r.server.prefill_tokens);
  put_count<"server_decode_tokens">(out, r.server.decode_tokens);
  put_count<"cached_prompt_tokens">(out, r.cached_prompt_tokens);
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
  put_word<"outcome">(out, to_string(outcome));
  put_key<"http_status">(out);
  put_int(out, r.http_status);
  put_key<"error">(out);
  py_json_append_string(out, r.error);
  put_times(out, r);
  put_key<"prompt_tokens">(out);
  put_int(out, r.prompt_tokens);
  put_key<"output_tokens">(out);
  put_int(out, r.output_tokens);
  put_key<"expected_output_tokens">(out);
  put_int(out, r.expected_output_tokens);
  put_word<"token_source">(out, to_string(r.token_source));
  put_key<"aborted">(out);
  out += r.aborted ? "true" : "false";
  // retries: times the request was sent again on a fresh connection because a kept-alive one had
  // been closed by the server before it could have read a byte (exec/worker.cpp).
  put_key<"retries">(out);
  put_int(out, r.retries);
  // Ours, after vLLM-free keys: how the stream ended and whether its events carried any text.
  put_word<"finish_reason">(out, to_string(r.finish_reason));
  put_key<"saw_text">(out);
  out += r.saw_text ? "true" : "false";
  put_server_side(out, r);
  if (shard >= 0) {  // ours: docs/distributed.md
    put_key<"shard">(out);
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
  flush_locked();
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
  try {
    pending_ += line;
  } catch (...) {
    ++lost_;
    flush_locked();
    fail_locked(ENOMEM);
    return;
  }
  ++pending_lines_;
  if (!batched_) flush_locked();
}

void JsonlSink::set_batched(bool on) noexcept {
  std::lock_guard lock(mu_);
  batched_ = on;
  if (!on) flush_locked();
}

void JsonlSink::flush() noexcept {
  std::lock_guard lock(mu_);
  flush_locked();
}

void JsonlSink::flush_locked() noexcept {
  if (pending_lines_ == 0) return;
  std::size_t out = 0;
  // Lines wait only while the sink is open and has not failed (write() drops them otherwise).
  const int err = write_all(fd_, pending_, &out);
  // The whole lines that went out count as written; a torn last one is cut off by fail_locked.
  const std::string_view sent(pending_.data(), out);
  const std::size_t whole = err == 0 ? out : sent.rfind('\n') + 1;  // npos + 1 == 0: none whole
  const auto lines = static_cast<std::int64_t>(std::count(sent.begin(), sent.begin() + static_cast<std::ptrdiff_t>(whole), '\n'));
  lines_ += lines;
  good_bytes_ += static_cast<std::int64_t>(whole);
  lost_ += pending_lines_ - lines;
  pending_.clear();
  pending_lines_ = 0;
  if (err != 0) fail_locked(err);
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
