#include "sim/sse_writer.hpp"

#include <array>
#include <charconv>

#include "protocol/json_text.hpp"

namespace sb::sim {
namespace {

void append_int(std::string& out, std::int64_t v) { out += std::to_string(v); }

// Shortest text that reads back as the same double.
void append_double(std::string& out, double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace

SseWriter::SseWriter(const StreamFormat& f) : f_(f) {
  const bool chat = f.api == Api::chat;
  common_ = "{\"id\":";
  append_json_string(common_, f.id);
  common_ += ",\"object\":\"";
  common_ += chat ? "chat.completion.chunk" : "text_completion";
  common_ += "\",\"created\":";
  append_int(common_, f.created_s);
  common_ += ",\"model\":";
  append_json_string(common_, f.model);
  head_ = "data: " + common_ + ",\"choices\":[{\"index\":0,";
  text_key_ = chat ? "\"delta\":{\"content\":\"" : "\"text\":\"";
}

void SseWriter::append_token(std::string& out, std::string_view text, const TokenChunk& c) const {
  const bool chat = f_.api == Api::chat;
  out += head_;
  if (chat && c.first) out += "\"delta\":{\"role\":\"assistant\",\"content\":\"";
  else out += text_key_;
  out += text;
  out += chat ? "\"}," : "\",";
  out += "\"logprobs\":null,\"finish_reason\":";
  if (c.finish_reason) {
    out += '"';
    out += c.finish_reason;
    out += '"';
  } else {
    out += "null";
  }
  out += "}]";
  if (c.usage) {
    out += ',';
    append_usage_json(out, *c.usage);
  }
  if (c.timings) {
    out += ',';
    append_timings_json(out, *c.timings);
  }
  out += "}\n\n";
}

void SseWriter::append_usage_chunk(std::string& out, const Usage& u, const LlamaTimings* timings) const {
  out += "data: ";
  out += common_;
  out += ",\"choices\":[],";
  append_usage_json(out, u);
  if (timings) {
    out += ',';
    append_timings_json(out, *timings);
  }
  out += "}\n\n";
}

void SseWriter::append_done(std::string& out) { out += "data: [DONE]\n\n"; }

void SseWriter::append_malformed(std::string& out) const {
  // Cut in the middle of the object: a client must report it as invalid JSON.
  out += head_;
  out += "\"text\":\"\n\n";
}

std::string SseWriter::full_body(std::string_view text, const char* finish_reason, const Usage& u,
                                 const LlamaTimings* timings) const {
  const bool chat = f_.api == Api::chat;
  std::string out = common_;
  // The non-streaming objects are "text_completion" / "chat.completion", not the chunk type.
  if (chat) {
    const auto at = out.find("chat.completion.chunk");
    out.replace(at, 21, "chat.completion");
  }
  out += ",\"choices\":[{\"index\":0,";
  out += chat ? "\"message\":{\"role\":\"assistant\",\"content\":" : "\"text\":";
  append_json_string(out, text);
  out += chat ? "}," : ",";
  out += "\"logprobs\":null,\"finish_reason\":\"";
  out += finish_reason;
  out += "\"}],";
  append_usage_json(out, u);
  if (timings) {
    out += ',';
    append_timings_json(out, *timings);
  }
  out += '}';
  return out;
}

void append_usage_json(std::string& out, const Usage& u) {
  out += "\"usage\":{\"prompt_tokens\":";
  append_int(out, u.prompt_tokens);
  out += ",\"total_tokens\":";
  append_int(out, static_cast<std::int64_t>(u.prompt_tokens) + u.completion_tokens);
  out += ",\"completion_tokens\":";
  append_int(out, u.completion_tokens);
  out += '}';
}

void append_timings_json(std::string& out, const LlamaTimings& t) {
  // Keys in llama.cpp's order (result_timings::to_json); a rate over zero time is written as 0
  // rather than inf, which JSON cannot hold.
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  out += "\"timings\":{\"cache_n\":";
  append_int(out, t.cache_n);
  out += ",\"prompt_n\":";
  append_int(out, t.prompt_n);
  out += ",\"prompt_ms\":";
  append_double(out, t.prompt_ms);
  out += ",\"prompt_per_token_ms\":";
  append_double(out, ratio(t.prompt_ms, t.prompt_n));
  out += ",\"prompt_per_second\":";
  append_double(out, ratio(1e3 * t.prompt_n, t.prompt_ms));
  out += ",\"predicted_n\":";
  append_int(out, t.predicted_n);
  out += ",\"predicted_ms\":";
  append_double(out, t.predicted_ms);
  // The observation of llama-server: predicted_ms / (n - 1), vLLM's TPOT.
  out += ",\"predicted_per_token_ms\":";
  append_double(out, ratio(t.predicted_ms, t.predicted_n - 1));
  out += ",\"predicted_per_second\":";
  append_double(out, ratio(1e3 * t.predicted_n, t.predicted_ms));
  out += '}';
}

std::string_view filler_word(std::uint64_t seed, int index) noexcept {
  static constexpr std::array<std::string_view, 32> words{
      " the", " model", " serves", " tokens", " at", " a", " steady", " pace", " and",
      " every", " request", " gets", " its", " answer", " in", " time", " while", " the",
      " batch", " grows", " so", " load", " rises", " until", " the", " queue", " waits",
      " for", " free", " slots", " again", " now"};
  const std::uint64_t k = seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(index);
  return words[(k ^ (k >> 29)) % words.size()];
}

}  // namespace sb::sim
