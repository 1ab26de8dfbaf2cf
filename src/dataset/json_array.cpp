#include "dataset/json_array.hpp"

#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"
#include "dataset/source_file.hpp"

namespace sb::dataset {
namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_space(char c) noexcept { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::size_t skip_space(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// Index of the quote closing a string whose content starts at `i`, or npos. memchr keeps this
// fast: string content is nearly all of a ShareGPT file.
std::size_t string_close(std::string_view s, std::size_t i) noexcept {
  while (i < s.size()) {
    const void* hit = std::memchr(s.data() + i, '"', s.size() - i);
    if (hit == nullptr) return npos;
    const auto q = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
    std::size_t backslashes = 0;
    while (q - backslashes > i && s[q - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return q;
    i = q + 1;
  }
  return npos;
}

[[noreturn]] void fail(std::string_view json, std::string_view name, std::size_t at,
                       std::string_view why) {
  throw UserError(fmt::format("{}:{}: {}", name, line_of_offset(json, at), why));
}

// End of the element starting at `i`: the index of the ',' or ']' that follows it at depth 0.
std::size_t element_end(std::string_view json, std::string_view name, std::size_t i) {
  const std::size_t start = i;
  int depth = 0;
  for (; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"') {
      i = string_close(json, i + 1);
      if (i == npos) fail(json, name, start, "unterminated string");
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0 && c == ']') return i;
      if (depth == 0) fail(json, name, i, "unbalanced '}'");
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  fail(json, name, start, "unterminated JSON array (file cut short?)");
}

}  // namespace

std::vector<ByteSpan> split_json_array(std::string_view json, std::string_view name) {
  std::vector<ByteSpan> spans;
  std::size_t i = skip_space(json, 0);
  if (i == json.size() || json[i] != '[') fail(json, name, i, "expected a JSON array");
  i = skip_space(json, i + 1);
  if (i < json.size() && json[i] == ']') {
    ++i;
  } else {
    while (true) {
      const std::size_t end = element_end(json, name, i);
      std::size_t trimmed = end;
      while (trimmed > i && is_space(json[trimmed - 1])) --trimmed;
      if (trimmed == i) fail(json, name, i, "empty array element");
      spans.push_back({i, trimmed});
      i = end + 1;
      if (json[end] == ']') break;
      i = skip_space(json, i);
    }
  }
  i = skip_space(json, i);
  if (i != json.size()) fail(json, name, i, "unexpected content after the JSON array");
  return spans;
}

}  // namespace sb::dataset
