#include "sim/server_stream.hpp"

#include <utility>

#include "net/server_http.hpp"

namespace sb::sim {
namespace {

StreamFormat format_of(const StreamSetup& s) { return {s.api, s.id, s.model, s.created_s}; }

}  // namespace

StreamState::StreamState(StreamSetup s) : s_(std::move(s)), writer_(format_of(s_)) {
  text_.reserve(s_.stream ? 64 : static_cast<std::size_t>(s_.max_tokens) * 8);
}

void StreamState::begin(std::string& out, bool keep_alive) {
  append_head(out, {200, "text/event-stream", true, 0, keep_alive});
}

void StreamState::on_tokens(std::string& out, const TokenEvent& ev) {
  if (done_ || drop_now_) return;
  const int n = ev.tokens < 1 ? 1 : ev.tokens;
  const bool first = emitted_ == 0;
  if (first) {
    started_ns_ = ev.started_ns;
    first_at_ns_ = ev.at_ns;
  }
  last_at_ns_ = ev.at_ns;
  const char* finish = nullptr;
  if (ev.finished) finish = emitted_ + n < s_.max_tokens ? "stop" : "length";
  if (!s_.stream) {
    for (int i = 0; i < n; ++i) text_ += filler_word(s_.seed, emitted_ + i);
    emitted_ += n;
    done_ = ev.finished;
    return;
  }
  if (chunk_at_ == std::string::npos) chunk_at_ = begin_chunk(out);
  std::string_view text = filler_word(s_.seed, emitted_);
  if (n > 1) {  // several tokens in one step (e.g. speculative decoding): one event, all words
    text_.clear();
    for (int i = 0; i < n; ++i) text_ += filler_word(s_.seed, emitted_ + i);
    text = text_;
  }
  emitted_ += n;
  const Usage usage{s_.prompt_tokens, emitted_};
  const bool usage_chunk_follows = s_.include_usage && !s_.usage_in_last_chunk;
  const LlamaTimings t = finish && s_.timings ? timings() : LlamaTimings{};
  const LlamaTimings* in_last = finish && s_.timings && !usage_chunk_follows ? &t : nullptr;
  writer_.append_token(out, text, {first, finish, finish && s_.usage_in_last_chunk ? &usage : nullptr, in_last});
  // A fault whose point lies beyond an early EOS happens at the last token instead.
  const bool fault_due = emitted_ >= s_.fault.after_tokens || ev.finished;
  if (s_.fault.kind == FaultKind::malformed && !malformed_sent_ && fault_due) {
    writer_.append_malformed(out);
    malformed_sent_ = true;
  }
  if (s_.fault.kind == FaultKind::drop && fault_due) {  // no [DONE], no last chunk: a cut stream
    drop_now_ = true;
    return;
  }
  if (!ev.finished) return;
  done_ = true;
  if (usage_chunk_follows) writer_.append_usage_chunk(out, usage, s_.timings ? &t : nullptr);
  SseWriter::append_done(out);
}

void StreamState::seal(std::string& out) {
  if (chunk_at_ != std::string::npos) {
    end_chunk(out, chunk_at_);
    chunk_at_ = std::string::npos;
  }
  if (done_ && s_.stream && !ended_) {
    append_last_chunk(out);
    ended_ = true;
  }
}

void StreamState::append_full_response(std::string& out, bool keep_alive) const {
  const char* finish = emitted_ < s_.max_tokens ? "stop" : "length";
  const LlamaTimings t = timings();
  const std::string body = writer_.full_body(text_, finish, {s_.prompt_tokens, emitted_}, s_.timings ? &t : nullptr);
  append_head(out, {200, "application/json", false, body.size(), keep_alive});
  out += body;
}

// Requests share no prefix in the simulator: every prompt token is computed (cache_n 0).
LlamaTimings StreamState::timings() const {
  LlamaTimings t;
  t.prompt_n = s_.prompt_tokens;
  t.predicted_n = emitted_;
  if (started_ns_ >= 0 && first_at_ns_ >= started_ns_) t.prompt_ms = ns_to_ms(first_at_ns_ - started_ns_);
  if (last_at_ns_ >= first_at_ns_) t.predicted_ms = ns_to_ms(last_at_ns_ - first_at_ns_);
  return t;
}

}  // namespace sb::sim
