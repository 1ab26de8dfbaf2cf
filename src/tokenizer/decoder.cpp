#include "tokenizer/decoder.hpp"

#include "tokenizer/byte_level.hpp"
#include "tokenizer/utf8.hpp"

namespace sb::tok {

namespace {

using Tokens = std::vector<std::string>;

// Joins everything, maps the GPT-2 alphabet back to bytes (a token with a foreign character keeps
// its own bytes) and repairs invalid UTF-8 like Rust's from_utf8_lossy.
Tokens byte_level(const Tokens& in) {
  std::string bytes;
  for (const auto& t : in) {
    if (auto raw = byte_level_to_bytes(t)) bytes += *raw;
    else bytes += t;
  }
  std::string out;
  append_utf8_lossy(out, bytes);
  return {std::move(out)};
}

Tokens replace(const DecoderStep& s, Tokens in) {
  if (s.pattern.empty()) return in;
  for (auto& t : in) {
    std::string out;
    std::size_t pos = 0;
    for (std::size_t hit; (hit = t.find(s.pattern, pos)) != std::string::npos; pos = hit + s.pattern.size()) {
      out.append(t, pos, hit - pos);
      out += s.content;
    }
    out.append(t, pos);
    t = std::move(out);
  }
  return in;
}

int byte_token_value(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  int v = 0;
  for (int k = 3; k < 5; ++k) {
    const char c = t[static_cast<std::size_t>(k)];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// Runs of <0xNN> tokens become their UTF-8 text, or one U+FFFD per byte if the run is invalid.
Tokens byte_fallback(const Tokens& in) {
  Tokens out;
  std::string pending;
  auto flush = [&] {
    if (pending.empty()) return;
    if (valid_utf8_prefix(pending) == pending.size()) {
      out.push_back(pending);
    } else {
      for (std::size_t k = 0; k < pending.size(); ++k) out.emplace_back("\xEF\xBF\xBD");
    }
    pending.clear();
  };
  for (const auto& t : in) {
    const int v = byte_token_value(t);
    if (v >= 0) {
      pending.push_back(static_cast<char>(v));
      continue;
    }
    flush();
    out.push_back(t);
  }
  flush();
  return out;
}

Tokens fuse(const Tokens& in) {
  std::string all;
  for (const auto& t : in) all += t;
  return {std::move(all)};
}

// Removes up to `start` leading and `stop` trailing copies of the content character, per token.
Tokens strip(const DecoderStep& s, Tokens in) {
  for (auto& t : in) {
    std::size_t b = 0, e = t.size();
    for (std::size_t k = 0; k < s.strip_start && t.compare(b, s.content.size(), s.content) == 0 && b < e; ++k) {
      b += s.content.size();
    }
    for (std::size_t k = 0; k < s.strip_stop && e >= b + s.content.size() &&
                            t.compare(e - s.content.size(), s.content.size(), s.content) == 0; ++k) {
      e -= s.content.size();
    }
    t = t.substr(b, e - b);
  }
  return in;
}

// Replacement -> space, except that HF drops every replacement character of the first token
// (not just a leading one) unless the prepend scheme is "never".
Tokens metaspace(const DecoderStep& s, Tokens in) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::string_view with = i == 0 && s.metaspace_prepend ? "" : " ";
    std::string out;
    const std::string& t = in[i];
    std::size_t pos = 0;
    for (std::size_t hit; (hit = t.find(s.replacement, pos)) != std::string::npos; pos = hit + s.replacement.size()) {
      out.append(t, pos, hit - pos);
      out += with;
    }
    out.append(t, pos);
    in[i] = std::move(out);
  }
  return in;
}

}  // namespace

std::string Decoder::decode(std::vector<std::string> tokens) const {
  if (!present_) {
    std::string joined;
    for (std::size_t i = 0; i < tokens.size(); ++i) joined += (i ? " " : "") + tokens[i];
    return joined;
  }
  for (const auto& s : steps_) {
    using K = DecoderStep::Kind;
    switch (s.kind) {
      case K::byte_level: tokens = byte_level(tokens); break;
      case K::replace: tokens = replace(s, std::move(tokens)); break;
      case K::byte_fallback: tokens = byte_fallback(tokens); break;
      case K::fuse: tokens = fuse(tokens); break;
      case K::strip: tokens = strip(s, std::move(tokens)); break;
      case K::metaspace: tokens = metaspace(s, std::move(tokens)); break;
    }
  }
  std::string out;
  for (const auto& t : tokens) out += t;
  return out;
}

}  // namespace sb::tok
