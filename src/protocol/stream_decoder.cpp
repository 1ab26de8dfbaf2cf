#include "protocol/stream_decoder.hpp"

#include <simdjson.h>

#include <cstring>
#include <limits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include <string>

namespace sb {

namespace od = simdjson::ondemand;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

// A string or null (-> ""). Anything else is a decode error. `json` is its raw token (empty for null).
bool read_text(od::value v, std::string_view& out, std::string_view& json) {
  bool is_null = false;
  if (v.is_null().get(is_null)) return false;
  if (is_null) {
    out = json = {};
    return true;
  }
  json = v.raw_json_token();
  return !v.get_string().get(out);
}

// A token count: an integer, or a number with no fraction (some servers write 7.0). null -> unknown
// (-1). A count beyond int's range is refused as malformed rather than silently truncated.
bool read_count(od::value v, int& out) {
  od::json_type type;
  if (v.type().get(type)) return false;
  if (type == od::json_type::null) {
    out = -1;
    return true;
  }
  if (type != od::json_type::number) return false;
  double d = 0;
  if (v.get_double().get(d)) return false;
  // Range first: converting a double beyond the target type's range is undefined (fuzzing found it).
  if (!(d >= 0) || d > static_cast<double>(std::numeric_limits<int>::max())) return false;
  if (d != static_cast<double>(static_cast<int>(d))) return false;
  out = static_cast<int>(d);
  return true;
}

// usage.prompt_tokens_details: {"cached_tokens": n, ...} or null (vLLM sends null unless started
// with --enable-prompt-tokens-details).
bool read_prompt_details(od::value v, ChunkInfo& out) {
  bool is_null = false;
  if (v.is_null().get(is_null)) return false;
  if (is_null) return true;
  od::object obj;
  if (v.get_object().get(obj)) return false;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    if (key == "cached_tokens" && !read_count(field.value(), out.cached_tokens)) return false;
  }
  return true;
}

// usage: {"prompt_tokens": n, "completion_tokens": m, ...} or null.
bool read_usage(od::value v, ChunkInfo& out) {
  bool is_null = false;
  if (v.is_null().get(is_null)) return false;
  if (is_null) return true;
  od::object obj;
  if (v.get_object().get(obj)) return false;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    if (key == "prompt_tokens") {
      if (!read_count(field.value(), out.prompt_tokens)) return false;
    } else if (key == "completion_tokens") {
      if (!read_count(field.value(), out.completion_tokens)) return false;
    } else if (key == "prompt_tokens_details") {
      if (!read_prompt_details(field.value(), out)) return false;
    }
  }
  out.has_usage = true;
  return true;
}

// A timing value: a non-negative number; null (or any other type) leaves it unknown (-1), since a
// server's odd timing must not fail a request whose tokens arrived.
bool read_ms(od::value v, double& out) {
  od::json_type type;
  if (v.type().get(type)) return false;
  if (type != od::json_type::number) return true;
  double d = 0;
  if (v.get_double().get(d)) return false;
  out = d >= 0 ? d : -1;
  return true;
}

bool read_timing_count(od::value v, int& out) {
  double d = -1;
  if (!read_ms(v, d)) return false;
  out = d >= 0 && d <= static_cast<double>(std::numeric_limits<int>::max()) ? static_cast<int>(d) : -1;
  return true;
}

// llama.cpp's `timings` (tools/server/server.cpp, result_timings::to_json). The rates and per-token
// means are derived from these five, so they are not kept.
bool read_timings(od::value v, ChunkInfo& out) {
  od::json_type type;
  if (v.type().get(type)) return false;
  if (type != od::json_type::object) return true;
  od::object obj;
  if (v.get_object().get(obj)) return false;
  ChunkTimings& t = out.timings;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    od::value x;
    if (field.value().get(x)) return false;
    bool ok = true;
    if (key == "prompt_ms") ok = read_ms(x, t.prompt_ms);
    else if (key == "predicted_ms") ok = read_ms(x, t.predicted_ms);
    else if (key == "cache_n") ok = read_timing_count(x, t.cache_n);
    else if (key == "prompt_n") ok = read_timing_count(x, t.prompt_n);
    else if (key == "predicted_n") ok = read_timing_count(x, t.predicted_n);
    if (!ok) return false;
  }
  out.has_timings = true;
  return true;
}

// Object holding the generated text: a chat `delta` (streaming) or `message` (non-streaming).
bool read_message(od::value v, ChunkInfo& out) {
  bool is_null = false;
  if (v.is_null().get(is_null)) return false;
  if (is_null) return true;
  od::object obj;
  if (v.get_object().get(obj)) return false;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    if (key == "content" && !read_text(field.value(), out.text, out.text_json)) return false;
  }
  return true;
}

// choices[0]: text (completions), delta/message.content (chat), finish_reason.
bool read_choice(od::object obj, ChunkInfo& out) {
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    if (key == "text") {
      if (!read_text(field.value(), out.text, out.text_json)) return false;
    } else if (key == "delta" || key == "message") {
      if (!read_message(field.value(), out)) return false;
    } else if (key == "finish_reason") {
      od::value v;
      bool is_null = false;
      if (field.value().get(v) || v.is_null().get(is_null)) return false;
      out.finished = !is_null;  // a string such as "stop" or "length"
      // Anything else non-null (a number, an object) still ends the stream, with no reason to count.
      if (!is_null && v.get_string().get(out.finish_reason)) out.finish_reason = {};
    }
  }
  return true;
}

bool read_choices(od::value v, ChunkInfo& out) {
  od::array arr;
  if (v.get_array().get(arr)) return false;
  bool first = true;
  for (auto element : arr) {
    od::value item;
    if (element.get(item)) return false;
    if (first) {
      od::object obj;
      if (item.get_object().get(obj) || !read_choice(obj, out)) return false;
      out.kind = ChunkInfo::Kind::token;
      first = false;
    }
  }
  return true;
}

// {"error": {"message": ...}} (OpenAI) or {"error": "text"}. Some servers put "error": null into
// every normal chunk: that is no error.
bool read_error(od::value v, ChunkInfo& out) {
  od::json_type type;
  if (v.type().get(type)) return false;
  if (type == od::json_type::null) return true;
  out.kind = ChunkInfo::Kind::error;
  if (type == od::json_type::string) return !v.get_string().get(out.error_message);
  if (type != od::json_type::object) return true;
  od::object obj;
  if (v.get_object().get(obj)) return false;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    if (key == "message" && field.value().get_string().get(out.error_message)) return false;
  }
  return true;
}

}  // namespace

struct StreamDecoder::Impl {
  explicit Impl(Api a) : api(a) {}
  Api api;
  od::parser parser;
  std::string scratch;  // payload copy with SIMDJSON_PADDING slack; grows, never shrinks

  bool decode(std::string_view json, ChunkInfo& out);
};

// On-Demand validates only what it visits: skipped values may hold bytes JSON forbids. A raw
// control character is invalid anywhere in JSON except the whitespace between tokens, so one cheap
// scan refuses what the skipping would let through (a NUL inside an ignored field, say).
bool has_forbidden_control_byte(std::string_view json) {
  // Eight bytes at a time: a word holding no byte below 0x20 (the common case: every chunk) is
  // passed with a few instructions; only a word with one is looked at byte by byte.
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const char* p = json.data();
  std::size_t n = json.size();
  const auto forbidden = [](unsigned char b) { return b < 0x20 && b != '\t' && b != '\n' && b != '\r'; };
#if defined(__AVX2__)
  // 32 bytes at a time where the build targets AVX2 (cmake/platform.cmake): byte <= 0x1f iff
  // min(byte, 0x1f) == byte.
  const __m256i limit = _mm256_set1_epi8(0x1f);
  for (; n >= 32; p += 32, n -= 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i low = _mm256_cmpeq_epi8(_mm256_min_epu8(v, limit), v);
    if (_mm256_testz_si256(low, low)) continue;
    for (int i = 0; i < 32; ++i)
      if (forbidden(static_cast<unsigned char>(p[i]))) return true;
  }
#endif
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, 8);
    if (((w - 0x20 * kOnes) & ~w & kHigh) == 0) continue;  // no byte < 0x20 in this word
    for (int i = 0; i < 8; ++i)
      if (forbidden(static_cast<unsigned char>(p[i]))) return true;
  }
  for (; n > 0; ++p, --n)
    if (forbidden(static_cast<unsigned char>(*p))) return true;
  return false;
}

bool StreamDecoder::Impl::decode(std::string_view json, ChunkInfo& out) {
  if (json.empty() || has_forbidden_control_byte(json)) return false;
  if (scratch.size() < json.size() + simdjson::SIMDJSON_PADDING)
    scratch.resize(json.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(scratch.data(), json.data(), json.size());
  od::document doc;
  if (parser.iterate(scratch.data(), json.size(), scratch.size()).get(doc)) return false;
  od::object obj;
  if (doc.get_object().get(obj)) return false;
  bool vllm_error_object = false;  // vLLM's {"object": "error", "message": ...}
  std::string_view top_message;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    od::value v;
    if (field.value().get(v)) return false;
    bool ok = true;
    if (key == "choices") {
      ok = read_choices(v, out);
    } else if (key == "usage") {
      ok = read_usage(v, out);
    } else if (key == "timings") {
      ok = read_timings(v, out);
    } else if (key == "error") {
      ok = read_error(v, out);
    } else if (key == "object") {
      std::string_view kind;
      ok = !v.get_string().get(kind);
      vllm_error_object = kind == "error";
    } else if (key == "message") {
      if (v.get_string().get(top_message)) top_message = {};
    }
    if (!ok) return false;
  }
  // On-Demand stops at the object's closing brace; anything after it ("{...}{...}", a stray
  // character) would go unnoticed.
  // current_location() is in bounds only while a structural character remains.
  const char* trailing = nullptr;
  if (!doc.current_location().get(trailing)) return false;
  if (vllm_error_object && out.kind != ChunkInfo::Kind::error) {
    out.kind = ChunkInfo::Kind::error;
    out.error_message = top_message;
  }
  if (out.kind == ChunkInfo::Kind::other && out.has_usage) out.kind = ChunkInfo::Kind::usage_only;
  return true;
}

StreamDecoder::StreamDecoder(Api api) : impl_(std::make_unique<Impl>(api)) {}
StreamDecoder::~StreamDecoder() = default;

bool StreamDecoder::decode_chunk(std::string_view payload, ChunkInfo& out) {
  out = ChunkInfo{};
  payload = trim(payload);
  if (payload == "[DONE]") {
    out.kind = ChunkInfo::Kind::done;
    return true;
  }
  // An event whose data is empty ("data:" alone, a keep-alive some proxies send) carries nothing.
  if (payload.empty()) return true;
  return impl_->decode(payload, out);
}

namespace {

// A token chunk with nothing but its text: what ChunkShape may stand in for.
bool is_plain_token_chunk(const ChunkInfo& c) {
  return c.kind == ChunkInfo::Kind::token && !c.has_usage && c.prompt_tokens < 0 && c.completion_tokens < 0 &&
         !c.finished && c.finish_reason.empty() && c.error_message.empty() && !c.has_timings && c.cached_tokens < 0;
}

}  // namespace

bool StreamDecoder::match_shape(std::string_view payload, ChunkShape& shape, std::string_view& text) {
  return shape.match(trim(payload), text);
}

bool StreamDecoder::decode_chunk(std::string_view payload, ChunkInfo& out, ChunkShape& shape) {
  const std::string_view json = trim(payload);
  std::string_view text;
  if (shape.match(json, text)) {
    out = ChunkInfo{};
    out.kind = ChunkInfo::Kind::token;
    out.text = text;
    return true;
  }
  if (!decode_chunk(payload, out)) return false;
  if (!is_plain_token_chunk(out) || out.text_json.empty()) return true;
  // The text's bytes as written: the token without its trailing spaces and quotes. Only text that
  // needed no unescaping reads the same there, and only that can be matched in place later.
  std::string_view token = trim(out.text_json);
  if (token.size() < 2 || token.front() != '"' || token.back() != '"') return true;
  token = token.substr(1, token.size() - 2);
  if (token != out.text) return true;
  const auto at = static_cast<std::size_t>(token.data() - impl_->scratch.data());
  if (at + token.size() <= json.size()) shape.learn(json, at, token.size());
  return true;
}

bool StreamDecoder::decode_body(std::string_view body, ChunkInfo& out) {
  out = ChunkInfo{};
  return impl_->decode(trim(body), out);
}

}  // namespace sb
