#include "tokenizer/pre_tokenizer.hpp"

#include <algorithm>

#include <utf8proc.h>

#include "tokenizer/utf8.hpp"

namespace sb::tok {

namespace {

using Span = std::pair<std::uint32_t, std::uint32_t>;

void push_span(std::vector<Span>& spans, std::size_t b, std::size_t e) {
  if (e > b) spans.emplace_back(static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e));
}

void push_span(Pieces& out, std::size_t b, std::size_t e) { push_span(out.spans, b, e); }

struct Segment {
  std::size_t begin, end;
  bool is_match;
};

// Splits one span by regex matches, folding matches and gaps exactly like HF's
// SplitDelimiterBehavior (including its treatment of adjacent matches).
void split_span(const PreTokenizerStep& s, std::string_view text, Span span, std::vector<Span>& out) {
  thread_local std::vector<Match> matches;
  thread_local std::vector<Segment> segs, acc;
  const std::size_t base = span.first, len = span.second - span.first;
  s.regex->find_all(text.substr(base, len), matches);
  segs.clear();
  std::size_t pos = 0;
  for (const auto& m : matches) {
    if (m.begin > pos) segs.push_back({pos, m.begin, s.invert});
    segs.push_back({m.begin, m.end, !s.invert});
    pos = m.end;
  }
  if (pos < len) segs.push_back({pos, len, s.invert});
  acc.clear();
  bool previous_match = false;
  switch (s.behavior) {
    case SplitBehavior::isolated: acc = segs; break;
    case SplitBehavior::removed:
      for (const auto& g : segs) if (!g.is_match) acc.push_back(g);
      break;
    case SplitBehavior::merged_with_previous:
      for (const auto& g : segs) {
        if (g.is_match && !previous_match && !acc.empty()) acc.back().end = g.end;
        else acc.push_back(g);
        previous_match = g.is_match;
      }
      break;
    case SplitBehavior::merged_with_next:
      for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
        if (it->is_match && !previous_match && !acc.empty()) acc.back().begin = it->begin;
        else acc.push_back(*it);
        previous_match = it->is_match;
      }
      std::reverse(acc.begin(), acc.end());
      break;
    case SplitBehavior::contiguous:
      for (const auto& g : segs) {
        if (g.is_match == previous_match && !acc.empty()) acc.back().end = g.end;
        else acc.push_back(g);
        previous_match = g.is_match;
      }
      break;
  }
  for (const auto& g : acc) push_span(out, base + g.begin, base + g.end);
}

// Split and Digits never change the text, only the spans.
void apply_split(const PreTokenizerStep& s, const Pieces& in, std::vector<Span>& out) {
  out.clear();
  for (const auto& span : in.spans) split_span(s, in.text, span, out);
}

void apply_byte_level(const PreTokenizerStep& s, const Pieces& in, Pieces& out) {
  out.text.clear();
  out.spans.clear();
  thread_local std::vector<Span> regex_spans;
  for (const auto& [b, e] : in.spans) {
    const std::size_t start = out.text.size();
    if (s.add_prefix_space && in.text[b] != ' ') out.text.push_back(' ');
    out.text.append(in.text, b, e - b);
    push_span(out, start, out.text.size());
  }
  if (s.regex) {
    PreTokenizerStep split = s;
    split.behavior = SplitBehavior::isolated;
    apply_split(split, out, regex_spans);
    std::swap(out.spans, regex_spans);
  }
}

void apply_metaspace(const PreTokenizerStep& s, const Pieces& in, bool at_start, Pieces& out) {
  out.text.clear();
  out.spans.clear();
  const std::string& rep = s.replacement;
  for (std::size_t k = 0; k < in.spans.size(); ++k) {
    const auto [b, e] = in.spans[k];
    const std::size_t start = out.text.size();
    const std::string_view piece(in.text.data() + b, e - b);
    const bool prepend = s.prepend == PreTokenizerStep::Prepend::always ||
                         (s.prepend == PreTokenizerStep::Prepend::first && at_start && k == 0);
    // HF replaces spaces first, then prepends unless the text already starts with the replacement.
    if (prepend && !piece.starts_with(' ') && !piece.starts_with(rep)) out.text += rep;
    for (char c : piece) {
      if (c == ' ') out.text += rep;
      else out.text.push_back(c);
    }
    if (!s.split_on_replacement) {
      push_span(out, start, out.text.size());
      continue;
    }
    // MergedWithNext on the replacement: every piece starts at a replacement character.
    std::size_t piece_start = start;
    for (std::size_t i = start; i < out.text.size();) {
      if (out.text.compare(i, rep.size(), rep) == 0) {
        push_span(out, piece_start, i);
        piece_start = i;
        i += rep.size();
      } else {
        ++i;
      }
    }
    push_span(out, piece_start, out.text.size());
  }
}

// Rust's char::is_numeric: general categories Nd, Nl and No (so "①" and "²" count as digits).
bool is_numeric(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return cat == UTF8PROC_CATEGORY_ND || cat == UTF8PROC_CATEGORY_NL || cat == UTF8PROC_CATEGORY_NO;
}

void apply_digits(const PreTokenizerStep& s, const Pieces& in, std::vector<Span>& out) {
  out.clear();
  for (const auto& [b, e] : in.spans) {
    std::size_t start = b;
    bool prev_numeric = false;
    for (std::size_t i = b; i < e;) {
      std::size_t next = i;
      const bool numeric = is_numeric(next_code_point(in.text, next));
      const bool boundary = i > start && (s.individual_digits ? numeric || prev_numeric : numeric != prev_numeric);
      if (boundary) {
        push_span(out, start, i);
        start = i;
      }
      prev_numeric = numeric;
      i = next;
    }
    push_span(out, start, e);
  }
}

}  // namespace

const std::string& gpt2_pattern() {
  static const std::string p =
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
  return p;
}

void PreTokenizer::apply(std::string_view in, bool at_input_start, Pieces& out, Pieces& scratch) const {
  out.text.assign(in);
  out.spans.clear();
  push_span(out, 0, in.size());
  for (const auto& step : steps_) {
    using K = PreTokenizerStep::Kind;
    // ByteLevel without prefix space or regex only maps bytes to characters, which we skip (the
    // vocabulary is byte-keyed): nothing to do, not even a copy.
    if (step.kind == K::byte_level && !step.add_prefix_space && !step.regex) continue;
    switch (step.kind) {
      case K::split:
        apply_split(step, out, scratch.spans);
        std::swap(out.spans, scratch.spans);
        break;
      case K::digits:
        apply_digits(step, out, scratch.spans);
        std::swap(out.spans, scratch.spans);
        break;
      case K::byte_level:
        apply_byte_level(step, out, scratch);
        std::swap(out, scratch);
        break;
      case K::metaspace:
        apply_metaspace(step, out, at_input_start, scratch);
        std::swap(out, scratch);
        break;
    }
  }
}

}  // namespace sb::tok
