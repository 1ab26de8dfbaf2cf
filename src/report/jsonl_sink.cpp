#include "report/jsonl_sink.hpp"

#include <cerrno>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "core/error.hpp"
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
  fmt::format_to(it, ", \"finish_reason\": \"{}\", \"saw_text\": {}}}", to_string(r.finish_reason),
                 r.saw_text ? "true" : "false");
}

JsonlSink::JsonlSink(const std::string& path, bool append) : path_(path) {
  file_ = std::fopen(path.c_str(), append ? "ab" : "wb");
  if (file_ == nullptr) throw UserError("cannot write per-request file " + path + ": " + std::strerror(errno));
}

JsonlSink::~JsonlSink() {
  if (file_ != nullptr) std::fclose(file_);
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
    failed_ = true;
    return;
  }
  std::lock_guard lock(mu_);
  const bool ok = std::fwrite(line.data(), 1, line.size(), file_) == line.size() && std::fflush(file_) == 0;
  if (ok) ++lines_; else failed_ = true;
}

std::int64_t JsonlSink::lines_written() const {
  std::lock_guard lock(mu_);
  return lines_;
}

bool JsonlSink::write_failed() const {
  std::lock_guard lock(mu_);
  return failed_;
}

}  // namespace sb::report
