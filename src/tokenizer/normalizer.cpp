#include "tokenizer/normalizer.hpp"

#include <utf8proc.h>

#include <cstdlib>

#include "tokenizer/utf8.hpp"

namespace sb::tok {

namespace {

// Starters that never decompose canonically and never compose with a preceding character:
// everything below U+0300 (combining marks start there), kana except the voicing marks
// U+3099/U+309A, CJK unified ideographs, precomposed Hangul syllables (jamo stay outside, as a
// trailing jamo composes with an LV syllable). NormalizerTest checks this against utf8proc.
bool nfc_stable_starter(char32_t cp) noexcept {
  if (cp < 0x300) return true;
  if (cp >= 0x3040 && cp <= 0x30FF) return cp != 0x3099 && cp != 0x309A;
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7A3);
}

}  // namespace

bool nfc_quick_yes(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    if (!nfc_stable_starter(next_code_point(s, i))) return false;
  }
  return true;
}

namespace {

// Appends the normal form of `in` to `out`.
void append_utf8proc(std::string_view in, std::string& out, utf8proc_option_t options) {
  utf8proc_uint8_t* mapped = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(in.data()),
                              static_cast<utf8proc_ssize_t>(in.size()), &mapped,
                              static_cast<utf8proc_option_t>(options | UTF8PROC_STABLE));
  if (n < 0) {
    out.append(in);  // cannot happen for valid UTF-8 (encode sanitises its input first)
  } else {
    out.append(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
  }
  std::free(mapped);
}

// NFC touching utf8proc only where the text may change. A stable starter is a safe cut: nothing
// before it composes with it or reorders across it, so NFC(x + s + y) = NFC(x) + NFC(s + y).
// Runs of stable starters are copied; each other run goes to utf8proc together with the stable
// starter just before it (which its marks may compose with, e.g. "e" + U+0301).
void nfc_by_runs(std::string_view in, std::string& out) {
  out.clear();
  std::size_t copied = 0, prev_start = 0, run_begin = 0;
  bool in_run = false;
  for (std::size_t i = 0; i < in.size();) {
    const std::size_t start = i;
    const bool stable = nfc_stable_starter(next_code_point(in, i));
    if (!stable && !in_run) {
      run_begin = start == copied ? start : prev_start;
      out.append(in.substr(copied, run_begin - copied));
      in_run = true;
    } else if (stable && in_run) {
      append_utf8proc(in.substr(run_begin, start - run_begin), out, UTF8PROC_COMPOSE);
      copied = start;
      in_run = false;
    }
    prev_start = start;
  }
  if (in_run) append_utf8proc(in.substr(run_begin), out, UTF8PROC_COMPOSE);
  else out.append(in.substr(copied));
}

void unicode_form(std::string_view in, std::string& out, utf8proc_option_t options) {
  // Pure ASCII is invariant under every normalisation form: skip utf8proc (and its malloc).
  if (is_ascii(in)) {
    out.assign(in);
    return;
  }
  if (options == UTF8PROC_COMPOSE) return nfc_by_runs(in, out);
  out.clear();
  append_utf8proc(in, out, options);
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
