#include "report/jsonl_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "core/error.hpp"
#include "report/atomic_file.hpp"
#include "report/py_json.hpp"

namespace sb::report {

namespace {

void put_ms(std::string& out, Nanos ns) {
  char buf[32];
  out.append(buf, py_float_repr(buf, ns_to_ms(ns)));
}

void put_key(std::string& out, const char* key) {
  out += ", \"";
  out += key;
  out += "\": ";
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
  out += '[';
  for (std::size_t i = 1; i < r.token_ns.size(); ++i) {
    if (i > 1) out += ", ";
    put_ms(out, r.token_ns[i] - r.token_ns[i - 1]);
  }
  out += ']';
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

void format_request_line(std::string& out, std::size_t stage, const RequestRecord& r,
                         std::string_view request_id) {
  auto it = std::back_inserter(out);
  // An "ok" stream without a token event is a no_tokens failure, as in metrics/summarize.
  const Outcome outcome = r.ok() && r.token_ns.empty() ? Outcome::no_tokens : r.outcome;
  fmt::format_to(it, "{{\"stage\": {}, \"index\": {}, \"request_id\": ", stage, r.index);
  py_json_append_string(out, request_id);
  fmt::format_to(it, ", \"outcome\": \"{}\", \"http_status\": {}, \"error\": ", to_string(outcome), r.http_status);
  py_json_append_string(out, r.error);
  put_times(out, r);
  fmt::format_to(it, ", \"prompt_tokens\": {}, \"output_tokens\": {}, \"expected_output_tokens\": {}",
                 r.prompt_tokens, r.output_tokens, r.expected_output_tokens);
  // retries: times the request was sent again on a fresh connection because a kept-alive one had
  // been closed by the server before it could have read a byte (exec/worker.cpp).
  fmt::format_to(it, ", \"token_source\": \"{}\", \"aborted\": {}, \"retries\": {}", to_string(r.token_source),
                 r.aborted ? "true" : "false", r.retries);
  // Ours, after vLLM-free keys: how the stream ended and whether its events carried any text.
  fmt::format_to(it, ", \"finish_reason\": \"{}\", \"saw_text\": {}", to_string(r.finish_reason),
                 r.saw_text ? "true" : "false");
  put_server_side(out, r);
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
    format_request_line(line, stage, r, request_id);
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
