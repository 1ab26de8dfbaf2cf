#include "protocol/stream_decoder.hpp"

#include <simdjson.h>

#include <cstring>
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

// A string or null (-> ""). Anything else is a decode error.
bool read_text(od::value v, std::string_view& out) {
  bool is_null = false;
  if (v.is_null().get(is_null)) return false;
  if (is_null) {
    out = {};
    return true;
  }
  return !v.get_string().get(out);
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
    std::int64_t n = 0;
    if (key == "prompt_tokens") {
      if (field.value().get_int64().get(n)) return false;
      out.prompt_tokens = static_cast<int>(n);
    } else if (key == "completion_tokens") {
      if (field.value().get_int64().get(n)) return false;
      out.completion_tokens = static_cast<int>(n);
    }
  }
  out.has_usage = true;
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
    if (key == "content" && !read_text(field.value(), out.text)) return false;
  }
  return true;
}

// choices[0]: text (completions), delta/message.content (chat), finish_reason.
bool read_choice(od::object obj, ChunkInfo& out) {
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    if (key == "text") {
      if (!read_text(field.value(), out.text)) return false;
    } else if (key == "delta" || key == "message") {
      if (!read_message(field.value(), out)) return false;
    } else if (key == "finish_reason") {
      od::value v;
      bool is_null = false;
      if (field.value().get(v) || v.is_null().get(is_null)) return false;
      out.finished = !is_null;  // a string such as "stop" or "length"
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

// {"error": {"message": ...}} (OpenAI) or {"error": "text"}.
bool read_error(od::value v, ChunkInfo& out) {
  out.kind = ChunkInfo::Kind::error;
  od::json_type type;
  if (v.type().get(type)) return false;
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

bool StreamDecoder::Impl::decode(std::string_view json, ChunkInfo& out) {
  if (scratch.size() < json.size() + simdjson::SIMDJSON_PADDING)
    scratch.resize(json.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(scratch.data(), json.data(), json.size());
  if (json.empty()) return false;
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
  // On-Demand stops at the object's closing brace; text after it would go unnoticed.
  if (json.back() != '}') return false;
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
  return impl_->decode(payload, out);
}

bool StreamDecoder::decode_body(std::string_view body, ChunkInfo& out) {
  out = ChunkInfo{};
  return impl_->decode(trim(body), out);
}

}  // namespace sb
