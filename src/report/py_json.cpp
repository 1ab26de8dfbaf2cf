#include "report/py_json.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace sb::report {

namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, std::uint32_t unit) {
  char buf[6] = {'\\', 'u', kHex[(unit >> 12) & 0xF], kHex[(unit >> 8) & 0xF],
                 kHex[(unit >> 4) & 0xF], kHex[unit & 0xF]};
  out.append(buf, 6);
}

// Decodes one UTF-8 code point at text[i]; returns its length (1 on invalid input, cp = U+FFFD).
std::size_t decode_utf8(std::string_view text, std::size_t i, std::uint32_t& cp) noexcept {
  const auto b0 = static_cast<unsigned char>(text[i]);
  std::size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
  if (len == 0 || b0 > 0xF4 || i + len > text.size()) {
    cp = 0xFFFD;
    return 1;
  }
  cp = b0 & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) {
      cp = 0xFFFD;
      return 1;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    cp = 0xFFFD;
    return 1;
  }
  return len;
}

void append_escaped_cp(std::string& out, std::uint32_t cp) {
  switch (cp) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    default: break;
  }
  if (cp >= 0x20 && cp < 0x7F) {
    out += static_cast<char>(cp);
  } else if (cp < 0x10000) {
    append_u_escape(out, cp);
  } else {
    const std::uint32_t v = cp - 0x10000;
    append_u_escape(out, 0xD800 | (v >> 10));
    append_u_escape(out, 0xDC00 | (v & 0x3FF));
  }
}

// Shortest round-trip digits and decimal exponent: value = 0.DIGITS x 10^decpt (Python's decpt).
int shortest_digits(double value, char* digits, int& ndigits) noexcept {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const char* e = static_cast<const char*>(std::memchr(buf, 'e', static_cast<std::size_t>(res.ptr - buf)));
  ndigits = 0;
  for (const char* c = buf; c < e; ++c)
    if (*c != '.') digits[ndigits++] = *c;
  const char* exp_begin = e + 1;
  if (*exp_begin == '+') ++exp_begin;  // from_chars takes no leading '+'
  int exp10 = 0;
  std::from_chars(exp_begin, res.ptr, exp10);
  return exp10 + 1;
}

}  // namespace

char* py_float_repr(char* out, double value) noexcept {
  if (std::isnan(value)) return std::strcpy(out, "NaN") + 3;
  if (std::isinf(value)) return value > 0 ? std::strcpy(out, "Infinity") + 8 : std::strcpy(out, "-Infinity") + 9;
  if (std::signbit(value)) *out++ = '-';
  value = std::fabs(value);
  if (value == 0) return std::strcpy(out, "0.0") + 3;
  char digits[20] = {};
  int n = 0;
  const int decpt = shortest_digits(value, digits, n);
  if (decpt > -4 && decpt <= 16) {  // repr's fixed notation range
    if (decpt <= 0) {
      *out++ = '0';
      *out++ = '.';
      for (int i = 0; i < -decpt; ++i) *out++ = '0';
      for (int i = 0; i < n; ++i) *out++ = digits[i];
      return out;
    }
    for (int i = 0; i < decpt; ++i) *out++ = i < n ? digits[i] : '0';
    *out++ = '.';
    if (n <= decpt) *out++ = '0';
    for (int i = decpt; i < n; ++i) *out++ = digits[i];
    return out;
  }
  *out++ = digits[0];
  if (n > 1) {
    *out++ = '.';
    for (int i = 1; i < n; ++i) *out++ = digits[i];
  }
  const int exp10 = decpt - 1;
  *out++ = 'e';
  *out++ = exp10 < 0 ? '-' : '+';
  const int mag = std::abs(exp10);
  if (mag < 10) *out++ = '0';
  return std::to_chars(out, out + 4, mag).ptr;
}

char* py_ms_repr(char* out, std::int64_t ns) noexcept {
  // ns / 1e6 is the double nearest to the decimal ns * 10^-6 (ns is exact in a double and the
  // division is correctly rounded). Below 10^15 that decimal has at most 15 significant digits, so
  // it is the one shortest string that reads back as that double: repr() writes exactly its digits.
  // From 100 ns (0.0001) repr() uses fixed notation; smaller, negative and huge values take the
  // general path. 0 (two events from one read) is the most common value of all.
  constexpr std::int64_t kExactBelow = 1'000'000'000'000'000;
  if (ns == 0) return std::memcpy(out, "0.0", 3), out + 3;
  if (ns < 100 || ns >= kExactBelow) return py_float_repr(out, static_cast<double>(ns) / 1e6);
  const std::int64_t whole = ns / 1'000'000;
  auto frac = static_cast<std::uint32_t>(ns % 1'000'000);
  out = std::to_chars(out, out + 20, whole).ptr;
  *out++ = '.';
  if (frac == 0) {
    *out++ = '0';
    return out;
  }
  int digits = 6;
  while (frac % 10 == 0) {
    frac /= 10;
    --digits;
  }
  for (int i = digits - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  return out + digits;
}

std::string py_float_repr(double value) {
  char buf[32];
  return {buf, py_float_repr(buf, value)};
}

void py_json_append_string(std::string& out, std::string_view text) {
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    // A run of printable ASCII but '"' and '\\' stands for itself: one append (request ids, most
    // errors: the per-request line writes two strings).
    std::size_t plain = i;
    while (plain < text.size() && text[plain] >= 0x20 && text[plain] < 0x7F && text[plain] != '"' && text[plain] != '\\')
      ++plain;
    if (plain > i) {
      out.append(text.data() + i, plain - i);
      i = plain;
      continue;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      append_escaped_cp(out, c);
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    i += decode_utf8(text, i, cp);
    append_escaped_cp(out, cp);
  }
  out += '"';
}

std::string percentile_word(double p) {
  // Python: str(int(p)) if int(p) == p else str(p)
  if (p == std::trunc(p) && std::fabs(p) < 1e15) return std::to_string(static_cast<long long>(p));
  return py_float_repr(p);
}

namespace {

void newline(std::string& out, const PyJsonOptions& opt, int depth) {
  out += '\n';
  out.append(static_cast<std::size_t>(opt.indent * depth), ' ');
}

void dump(std::string& out, const nlohmann::ordered_json& v, const PyJsonOptions& opt, int depth);

void dump_container(std::string& out, const nlohmann::ordered_json& v, const PyJsonOptions& opt,
                    int depth) {
  const bool is_obj = v.is_object();
  if (v.empty()) {
    out += is_obj ? "{}" : "[]";
    return;
  }
  out += is_obj ? '{' : '[';
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!first) out += opt.indent >= 0 ? "," : ", ";
    first = false;
    if (opt.indent >= 0) newline(out, opt, depth + 1);
    if (is_obj) {
      py_json_append_string(out, it.key());
      out += ": ";
    }
    dump(out, it.value(), opt, depth + 1);
  }
  if (opt.indent >= 0) newline(out, opt, depth);
  out += is_obj ? '}' : ']';
}

void dump(std::string& out, const nlohmann::ordered_json& v, const PyJsonOptions& opt, int depth) {
  using T = nlohmann::ordered_json::value_t;
  char buf[32];
  switch (v.type()) {
    case T::null:
    case T::discarded: out += "null"; return;
    case T::boolean: out += v.get<bool>() ? "true" : "false"; return;
    case T::number_integer: out += std::to_string(v.get<std::int64_t>()); return;
    case T::number_unsigned: out += std::to_string(v.get<std::uint64_t>()); return;
    case T::number_float: {
      const double d = v.get<double>();
      if (opt.nan_as_null && !std::isfinite(d)) {
        out += "null";
        return;
      }
      out.append(buf, py_float_repr(buf, d));
      return;
    }
    case T::string: py_json_append_string(out, v.get_ref<const std::string&>()); return;
    case T::binary: out += "[]"; return;  // never produced by our reporters
    case T::object:
    case T::array: dump_container(out, v, opt, depth); return;
  }
}

}  // namespace

std::string py_json_dump(const nlohmann::ordered_json& value, const PyJsonOptions& opt) {
  std::string out;
  dump(out, value, opt, 0);
  return out;
}

}  // namespace sb::report
