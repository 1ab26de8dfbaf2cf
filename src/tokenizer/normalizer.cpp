#include "tokenizer/normalizer.hpp"

#include <utf8proc.h>

#include <cstdlib>

#include "tokenizer/utf8.hpp"

namespace sb::tok {

namespace {

void unicode_form(std::string_view in, std::string& out, utf8proc_option_t options) {
  // Pure ASCII is invariant under every normalisation form: skip utf8proc (and its malloc).
  if (is_ascii(in)) {
    out.assign(in);
    return;
  }
  utf8proc_uint8_t* mapped = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(in.data()),
                              static_cast<utf8proc_ssize_t>(in.size()), &mapped,
                              static_cast<utf8proc_option_t>(options | UTF8PROC_STABLE));
  if (n < 0) {
    out.assign(in);  // cannot happen for valid UTF-8 (encode sanitises its input first)
  } else {
    out.assign(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
  }
  std::free(mapped);
}

// Per character, like Rust's char::to_lowercase (no final-sigma context). U+0130 is the one
// character whose unconditional lowercase is two characters; utf8proc only has simple mappings.
void lowercase(std::string_view in, std::string& out) {
  out.clear();
  std::size_t i = 0;
  while (i < in.size()) {
    const char32_t cp = next_code_point(in, i);
    if (cp == 0x130) {
      out += "i\xCC\x87";
      continue;
    }
    append_utf8(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))));
  }
}

void replace_all(std::string_view in, const std::string& pattern, const std::string& content,
                 std::string& out) {
  out.clear();
  if (pattern.empty()) {
    out.assign(in);
    return;
  }
  std::size_t pos = 0;
  for (;;) {
    const std::size_t hit = in.find(pattern, pos);
    if (hit == std::string_view::npos) break;
    out.append(in.substr(pos, hit - pos));
    out += content;
    pos = hit + pattern.size();
  }
  out.append(in.substr(pos));
}

void strip(std::string_view in, bool left, bool right, std::string& out) {
  std::size_t b = 0, e = in.size();
  while (left && b < e) {
    std::size_t j = b;
    if (!is_unicode_whitespace(next_code_point(in, j))) break;
    b = j;
  }
  while (right && e > b) {
    std::size_t k = e - 1;
    while (k > b && (static_cast<unsigned char>(in[k]) & 0xC0) == 0x80) --k;
    std::size_t j = k;
    if (!is_unicode_whitespace(next_code_point(in, j))) break;
    e = k;
  }
  out.assign(in.substr(b, e - b));
}

void apply_step(const NormalizerStep& s, std::string_view in, std::string& out) {
  using K = NormalizerStep::Kind;
  switch (s.kind) {
    case K::nfc: return unicode_form(in, out, UTF8PROC_COMPOSE);
    case K::nfkc: return unicode_form(in, out, static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_COMPAT));
    case K::nfd: return unicode_form(in, out, UTF8PROC_DECOMPOSE);
    case K::nfkd: return unicode_form(in, out, static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT));
    case K::lowercase: return lowercase(in, out);
    case K::replace: return replace_all(in, s.pattern, s.content, out);
    case K::prepend:
      out.clear();
      if (!in.empty()) out = s.content;  // HF prepends only to non-empty text
      out.append(in);
      return;
    case K::strip: return strip(in, s.strip_left, s.strip_right, out);
  }
}

}  // namespace

void Normalizer::apply(std::string_view in, std::string& out, std::string& scratch) const {
  out.assign(in);
  for (const auto& step : steps_) {
    apply_step(step, out, scratch);
    out.swap(scratch);
  }
}

}  // namespace sb::tok
