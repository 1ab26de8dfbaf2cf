#include "exec/response_sink.hpp"

#include <algorithm>

namespace sb {
namespace {

constexpr std::size_t kMaxErrorBody = 8 * 1024;             // enough for any error message
constexpr std::size_t kMaxPlainBody = 64 * 1024 * 1024;     // non-streaming completions
// vLLM's exact wording (benchmarks/backend_request_func.py in vllm-project/vllm, no space after the
// period) so result files compare equal.
constexpr const char* kNoTokensMessage =
    "Never received a valid chunk to calculate TTFT.This response will be marked as failed!";

bool is_event_stream(std::string_view content_type) {
  return content_type.substr(0, 17) == "text/event-stream";
}

void scrub_keys(std::string& text);

// Failure paths only. Keys are masked before the cut, so no part of one is left at the end.
std::string excerpt(std::string_view text) {
  std::string out(text.substr(0, 4096));
  scrub_keys(out);
  out.resize(std::min<std::size_t>(out.size(), 80));
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  return out;
}

void scrub_keys(std::string& text) { scrub_secrets(text, {}); }

}  // namespace

void ResponseSink::begin(RequestRecord& rec) {
  rec_ = &rec;
  rec.outcome = Outcome::ok;
  rec.http_status = 0;
  rec.error.clear();
  rec.first_byte_ns = -1;
  rec.token_ns.clear();
  rec.generated_text.clear();
  rec.output_tokens = 0;
  rec.prompt_tokens = rec.dataset_prompt_tokens;
  rec.token_source = TokenSource::none;
  rec.finish_reason = FinishReason::none;
  rec.saw_text = false;
  rec.server = {};
  rec.cached_prompt_tokens = -1;
  sse_parser_.reset();
  body_.clear();
  reason_.clear();
  sse_ = failed_ = saw_done_ = saw_finish_ = false;
  usage_prompt_ = usage_completion_ = -1;
  usage_source_ = TokenSource::none;
}

void ResponseSink::on_headers(int status, std::string_view reason, std::string_view content_type) {
  rec_->http_status = status;
  reason_.assign(reason.data(), reason.size());
  sse_ = status / 100 == 2 && is_event_stream(content_type);
}

// A token event with a text and nothing else (most events of a stream); inline in on_body.
inline void ResponseSink::on_plain_token(std::string_view text, Nanos t_ns) {
  rec_->token_ns.push_back(t_ns);  // capacity reserved per request: no allocation per token
  if (keep_text_) rec_->generated_text.append(text);
  rec_->saw_text = rec_->saw_text || !text.empty();
}

bool ResponseSink::on_body(std::string_view bytes, Nanos t_ns) {
  if (failed_) return false;
  if (rec_->http_status / 100 != 2) {
    body_.append(bytes.substr(0, kMaxErrorBody - std::min(kMaxErrorBody, body_.size())));
    return true;
  }
  if (!sse_) {
    if (body_.size() + bytes.size() > kMaxPlainBody) {
      fail(Outcome::malformed, "response body larger than 64 MiB");
      return false;
    }
    body_.append(bytes);
    return true;
  }
  // Most events: the connection's plain token chunk again but for its text, matched where it lies
  // in `bytes` without the SSE parser's line search (protocol/chunk_shape.hpp).
  const auto take_shaped = [&](std::string_view rest) -> std::size_t {
    if (failed_) return 0;
    return chunk_shape_.match_events(rest, [&](std::string_view text) { on_plain_token(text, t_ns); });
  };
  const bool fits = sse_parser_.feed(bytes, [&](const SseParser::Event& ev) { on_event(ev.data, t_ns); }, take_shaped);
  if (!fits && !failed_) fail(Outcome::malformed, "SSE event larger than 64 MiB without a separator");
  return !failed_;
}

void ResponseSink::on_token(std::string_view text, bool finished, std::string_view finish_reason, Nanos t_ns) {
  on_plain_token(text, t_ns);
  if (finished) {
    saw_finish_ = true;
    rec_->finish_reason = finish_reason_from(finish_reason);
  }
}

void ResponseSink::on_event(std::string_view data, Nanos t_ns) {
  if (failed_) return;
  // Most events of a stream: the connection's plain token chunk again but for its text
  // (protocol/chunk_shape.hpp), all decode_chunk would report, counted without a ChunkInfo.
  if (std::string_view text; StreamDecoder::match_shape(data, chunk_shape_, text)) {
    on_plain_token(text, t_ns);
    return;
  }
  ChunkInfo info;
  if (!decoder_->decode_chunk(data, info, chunk_shape_)) {
    fail(Outcome::malformed, "stream chunk is not valid JSON: " + excerpt(data));
    return;
  }
  switch (info.kind) {
    case ChunkInfo::Kind::token: on_token(info.text, info.finished, info.finish_reason, t_ns); break;
    case ChunkInfo::Kind::done: saw_done_ = true; break;
    case ChunkInfo::Kind::error:
      fail(Outcome::http_error, "error event in the stream: " + excerpt(info.error_message));
      return;
    default: break;
  }
  if (info.has_usage) {
    usage_prompt_ = info.prompt_tokens;
    usage_completion_ = info.completion_tokens;
    usage_source_ = info.kind == ChunkInfo::Kind::token ? TokenSource::usage_in_choice
                                                        : TokenSource::usage_chunk;
  }
  if (info.has_timings || info.cached_tokens >= 0) keep_server_timings(info);
}

// Only the final chunk(s) carry these: off the per-token path.
void ResponseSink::keep_server_timings(const ChunkInfo& info) {
  if (info.has_timings) {
    const ChunkTimings& t = info.timings;
    rec_->server.prefill_ms = static_cast<float>(t.prompt_ms);
    rec_->server.decode_ms = static_cast<float>(t.predicted_ms);
    rec_->server.prefill_tokens = t.prompt_n;
    rec_->server.decode_tokens = t.predicted_n;
    if (t.cache_n >= 0) rec_->cached_prompt_tokens = t.cache_n;
  }
  if (info.cached_tokens >= 0) rec_->cached_prompt_tokens = info.cached_tokens;
}

void ResponseSink::fail(Outcome outcome, std::string error) {
  failed_ = true;
  rec_->outcome = outcome;
  rec_->error = std::move(error);
}

void ResponseSink::on_transport_failure(Outcome outcome, std::string error) {
  if (failed_) return;
  fail(outcome, std::move(error));
  finish_counts();
}

void ResponseSink::finish_counts() {
  const bool usage = usage_completion_ >= 0;
  rec_->output_tokens = usage ? usage_completion_ : static_cast<int>(rec_->token_ns.size());
  if (usage) rec_->token_source = usage_source_;
  else if (!rec_->token_ns.empty()) rec_->token_source = TokenSource::event_count;
  if (usage_prompt_ >= 0) rec_->prompt_tokens = usage_prompt_;
}

void ResponseSink::on_complete(Nanos t_ns) {
  if (failed_) return;
  ChunkInfo info;
  if (rec_->http_status / 100 != 2) {
    std::string error = "HTTP " + std::to_string(rec_->http_status) + " " + reason_;
    if (decoder_->decode_body(body_, info) && info.kind == ChunkInfo::Kind::error &&
        !info.error_message.empty()) {
      error += ": " + excerpt(info.error_message);
    }
    fail(Outcome::http_error, std::move(error));
    return;
  }
  if (sse_) {
    sse_parser_.finish([&](const SseParser::Event& ev) { on_event(ev.data, t_ns); });
    if (failed_) return finish_counts();
  } else if (!decoder_->decode_body(body_, info)) {
    return fail(Outcome::malformed, "response body is not valid JSON: " + excerpt(body_));
  } else if (info.kind == ChunkInfo::Kind::token) {
    rec_->token_ns.push_back(t_ns);  // non-streaming: the whole answer is one event (TTFT = E2EL)
    if (keep_text_) rec_->generated_text.assign(info.text);
    rec_->saw_text = !info.text.empty();
    if (info.finished) rec_->finish_reason = finish_reason_from(info.finish_reason);
    saw_done_ = true;
    if (info.has_usage) {
      usage_prompt_ = info.prompt_tokens;
      usage_completion_ = info.completion_tokens;
      usage_source_ = TokenSource::usage_body;
    }
    if (info.has_timings || info.cached_tokens >= 0) keep_server_timings(info);
  }
  finish_counts();
  if (rec_->token_ns.empty()) {
    fail(Outcome::no_tokens, kNoTokensMessage);
  } else if (!saw_done_ && !saw_finish_) {
    fail(Outcome::dropped, "stream ended without [DONE] or a finish_reason after " +
                               std::to_string(rec_->token_ns.size()) + " token events");
  }
}

}  // namespace sb
