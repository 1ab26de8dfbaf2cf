#pragma once
// Typed field access on a simdjson DOM element with errors that name the file and the component.
#include <simdjson.h>

#include <optional>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace sb::tok {

class JsonCtx {
 public:
  using element = simdjson::dom::element;
  explicit JsonCtx(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& what) const { throw UserError("tokenizer " + file_ + ": " + what); }

  static std::optional<element> field(element e, std::string_view key) {
    element v;
    if (!e.is_object() || e[key].get(v) != simdjson::SUCCESS) return std::nullopt;
    return v;
  }
  static bool present(element e, std::string_view key) {
    auto v = field(e, key);
    return v && !v->is_null();
  }

  element need(element e, std::string_view key, const char* where) const {
    auto v = field(e, key);
    if (!v) fail(std::string(where) + ": missing field '" + std::string(key) + "'");
    return *v;
  }
  std::string str(element e, std::string_view key, const char* where) const {
    std::string_view s;
    if (need(e, key, where).get_string().get(s) != simdjson::SUCCESS) {
      fail(std::string(where) + ": field '" + std::string(key) + "' is not a string");
    }
    return std::string(s);
  }
  std::optional<std::string> opt_str(element e, std::string_view key) const {
    std::string_view s;
    auto v = field(e, key);
    if (!v || v->get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
    return std::string(s);
  }
  bool boolean(element e, std::string_view key, bool fallback) const {
    auto v = field(e, key);
    bool b = fallback;
    if (v && !v->is_null() && v->get_bool().get(b) != simdjson::SUCCESS) {
      fail("field '" + std::string(key) + "' is not a boolean");
    }
    return b;
  }
  std::int64_t as_int(element v, const char* where) const {
    std::int64_t i = 0;
    if (v.get_int64().get(i) != simdjson::SUCCESS) fail(std::string(where) + ": expected an integer");
    return i;
  }
  std::int64_t integer(element e, std::string_view key, const char* where) const { return as_int(need(e, key, where), where); }
  simdjson::dom::array arr(element e, std::string_view key, const char* where) const {
    simdjson::dom::array a;
    if (need(e, key, where).get_array().get(a) != simdjson::SUCCESS) {
      fail(std::string(where) + ": field '" + std::string(key) + "' is not an array");
    }
    return a;
  }
  element obj_elem(element e, std::string_view key, const char* where) const {
    element v = need(e, key, where);
    if (!v.is_object()) fail(std::string(where) + ": field '" + std::string(key) + "' is not an object");
    return v;
  }
  // {"pattern": {"String": s}} or {"pattern": {"Regex": r}} -> (text, is_literal).
  std::pair<std::string, bool> pattern(element e, const char* where) const {
    element p = obj_elem(e, "pattern", where);
    if (auto s = opt_str(p, "String")) return {*s, true};
    if (auto r = opt_str(p, "Regex")) return {*r, false};
    fail(std::string(where) + ": pattern is neither String nor Regex");
  }
  // Like pattern() but only literal strings are supported (normalizer/decoder Replace).
  std::string string_pattern(element e, const char* where) const {
    auto [text, literal] = pattern(e, where);
    if (!literal) fail(std::string(where) + ": Regex patterns are not supported here");
    return text;
  }

 private:
  std::string file_;
};

}  // namespace sb::tok
