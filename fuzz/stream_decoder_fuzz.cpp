// StreamDecoder: never crashes; what it accepts as a chunk is JSON an ordinary parser accepts
// structurally the same way, and the text and token counts it reads agree with that parser's.
// (On-Demand does not check the spelling of values it skips, e.g. a bare `tru`: the decoder need
// not reject those; docs/fuzzing.md says what it must reject.)
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "protocol/stream_decoder.hpp"

namespace {

// The fields the decoder reads, as nlohmann sees them: choices[0].text / delta.content, usage.
bool agrees(const nlohmann::json& j, const sb::ChunkInfo& c) {
  if (!j.is_object()) return false;
  if (const auto it = j.find("choices"); it != j.end() && it->is_array() && !it->empty()) {
    const nlohmann::json& first = (*it)[0];
    // A choice holding both `text` and `delta.content` is no real chunk: the decoder keeps the one
    // that comes last, nlohmann's objects have no order to compare that with; either is right.
    std::vector<std::string> texts;
    if (first.contains("text") && first["text"].is_string()) texts.push_back(first["text"].get<std::string>());
    for (const char* k : {"delta", "message"})
      if (first.contains(k) && first[k].is_object() && first[k].contains("content") && first[k]["content"].is_string())
        texts.push_back(first[k]["content"].get<std::string>());
    const bool text_agrees = texts.empty() ? c.text.empty() : std::find(texts.begin(), texts.end(), c.text) != texts.end();
    if (c.kind == sb::ChunkInfo::Kind::token && !text_agrees) return false;
  }
  if (c.has_usage && c.completion_tokens >= 0) {
    const auto& u = j["usage"];
    if (!u.is_object() || !u.contains("completion_tokens") || u["completion_tokens"].get<double>() != c.completion_tokens)
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view payload(reinterpret_cast<const char*>(data), size);
  static sb::StreamDecoder chunks(sb::Api::completions), chat(sb::Api::chat);
  // Learnt from earlier inputs, so mutations of a plain token chunk meet the shape of their seed.
  static sb::ChunkShape shape;
  for (sb::StreamDecoder* d : {&chunks, &chat}) {
    sb::ChunkInfo c;
    const bool ok = d->decode_chunk(payload, c);
    // Decoding through a ChunkShape gives the same answer as decoding in full.
    {
      sb::ChunkInfo full = c, shaped;
      const std::string text(full.text);
      const bool shaped_ok = d->decode_chunk(payload, shaped, shape);
      if (shaped_ok != ok) __builtin_trap();
      if (ok && (shaped.kind != full.kind || shaped.text != text || shaped.finished != full.finished ||
                 shaped.has_usage != full.has_usage || shaped.completion_tokens != full.completion_tokens))
        __builtin_trap();
      d->decode_chunk(payload, c);  // c's views again point at this decoder's latest full parse
    }
    sb::ChunkInfo b;
    d->decode_body(payload, b);
    if (!ok || c.kind == sb::ChunkInfo::Kind::done || c.kind == sb::ChunkInfo::Kind::other) continue;
    // Duplicate keys have no defined meaning (RFC 8259 §4): the decoder keeps the last value of a
    // field it reads, nlohmann the last object; compare only inputs without them.
    std::vector<std::set<std::string>> keys;
    bool duplicate = false;
    const auto note_keys = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& value) {
      if (event == nlohmann::json::parse_event_t::object_start) keys.emplace_back();
      if (event == nlohmann::json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
      if (event == nlohmann::json::parse_event_t::key && !keys.empty() && !keys.back().insert(value.get<std::string>()).second)
        duplicate = true;
      return true;
    };
    const nlohmann::json j = nlohmann::json::parse(payload, note_keys, /*allow_exceptions=*/false);
    if (!j.is_discarded() && !duplicate && !agrees(j, c)) __builtin_trap();
  }
  return 0;
}
