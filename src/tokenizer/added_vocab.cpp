#include "tokenizer/added_vocab.hpp"

#include <algorithm>

#include <utf8proc.h>

#include "tokenizer/utf8.hpp"

namespace sb::tok {

AddedVocab::AddedVocab(const std::vector<AddedToken>& tokens) {
  for (const auto& t : tokens) {
    if (t.content.empty()) continue;
    first_byte_[static_cast<unsigned char>(t.content[0])] = true;
    std::int32_t node = 0;
    for (char ch : t.content) {
      const auto c = static_cast<unsigned char>(ch);
      auto& kids = nodes_[static_cast<std::size_t>(node)].children;
      auto it = std::lower_bound(kids.begin(), kids.end(), std::make_pair(c, std::int32_t{-1}));
      if (it != kids.end() && it->first == c) {
        node = it->second;
        continue;
      }
      const auto fresh = static_cast<std::int32_t>(nodes_.size());
      kids.insert(it, {c, fresh});
      nodes_.emplace_back();
      node = fresh;
    }
    nodes_[static_cast<std::size_t>(node)].token = static_cast<std::int32_t>(tokens_.size());
    tokens_.push_back(t);
  }
}

std::int32_t AddedVocab::longest_at(std::string_view text, std::size_t pos, std::size_t& end) const {
  std::int32_t node = 0, best = -1;
  for (std::size_t i = pos; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto& kids = nodes_[static_cast<std::size_t>(node)].children;
    auto it = std::lower_bound(kids.begin(), kids.end(), std::make_pair(c, std::int32_t{-1}));
    if (it == kids.end() || it->first != c) break;
    node = it->second;
    if (nodes_[static_cast<std::size_t>(node)].token >= 0) {
      best = nodes_[static_cast<std::size_t>(node)].token;
      end = i + 1;
    }
  }
  return best;
}

namespace {

bool is_word_char(char32_t cp) {
  if (cp == '_') return true;
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) ||
         (cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO);
}

char32_t code_point_before(std::string_view s, std::size_t pos) {
  std::size_t k = pos - 1;
  while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
  return next_code_point(s, k);
}

}  // namespace

// Applies single_word (reject) and lstrip/rstrip (widen over whitespace) to a raw match.
bool AddedVocab::accept(std::string_view text, const AddedToken& t, std::size_t& begin, std::size_t& end) const {
  if (t.single_word) {
    std::size_t e = end;
    if (begin > 0 && is_word_char(code_point_before(text, begin))) return false;
    if (end < text.size() && is_word_char(next_code_point(text, e))) return false;
  }
  while (t.lstrip && begin > 0) {
    std::size_t k = begin - 1;
    while (k > 0 && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80) --k;
    std::size_t j = k;
    if (!is_unicode_whitespace(next_code_point(text, j))) break;
    begin = k;
  }
  while (t.rstrip && end < text.size()) {
    std::size_t j = end;
    if (!is_unicode_whitespace(next_code_point(text, j))) break;
    end = j;
  }
  return true;
}

void AddedVocab::split(std::string_view text, std::vector<TextSplit>& out) const {
  out.clear();
  std::size_t plain_start = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    if (!first_byte_[static_cast<unsigned char>(text[pos])]) {
      ++pos;
      continue;
    }
    std::size_t end = 0;
    const std::int32_t idx = longest_at(text, pos, end);
    std::size_t begin = pos;
    if (idx < 0 || !accept(text, tokens_[static_cast<std::size_t>(idx)], begin, end)) {
      ++pos;
      continue;
    }
    begin = std::max(begin, plain_start);  // lstrip never reaches into an earlier token
    if (begin > plain_start) out.push_back({plain_start, begin, -1});
    out.push_back({begin, end, tokens_[static_cast<std::size_t>(idx)].id});
    plain_start = pos = end;
  }
  if (plain_start < text.size()) out.push_back({plain_start, text.size(), -1});
}

}  // namespace sb::tok
