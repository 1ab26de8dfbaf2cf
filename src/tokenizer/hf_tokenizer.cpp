#include "tokenizer/hf_tokenizer.hpp"

#include <algorithm>

#include "tokenizer/utf8.hpp"

namespace sb::tok {

namespace {

// Per-thread scratch so encode does not allocate once a thread is warm.
struct Scratch {
  std::vector<TextSplit> raw_splits, norm_splits;
  std::string normalized, norm_tmp, sanitized;
  Pieces pieces, pieces_tmp;
  std::vector<std::int32_t> ids;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

std::vector<AddedToken> select(const std::vector<AddedToken>& all, bool normalized) {
  std::vector<AddedToken> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out),
               [&](const AddedToken& t) { return t.normalized == normalized; });
  return out;
}

}  // namespace

HfTokenizer::HfTokenizer(TokenizerParts parts)
    : parts_(std::move(parts)),
      raw_added_(select(parts_.added_tokens, false)),
      normalized_added_(select(parts_.added_tokens, true)) {
  for (std::size_t i = 0; i < parts_.added_tokens.size(); ++i) {
    added_by_id_[parts_.added_tokens[i].id] = i;
    added_by_content_[parts_.added_tokens[i].content] = parts_.added_tokens[i].id;
  }
}

void HfTokenizer::encode_plain(std::string_view text, bool at_input_start, std::vector<std::int32_t>& out,
                               std::size_t limit) const {
  Scratch& s = scratch();
  s.pieces.spans.clear();
  parts_.pre_tokenizer.apply(text, at_input_start, s.pieces, s.pieces_tmp);
  const std::string_view buf = s.pieces.text;
  for (const auto& [b, e] : s.pieces.spans) {
    if (out.size() > limit) return;
    parts_.model->encode_piece(buf.substr(b, e - b), out);
  }
}

void HfTokenizer::encode_into(std::string_view text, std::vector<std::int32_t>& out, std::size_t limit) const {
  Scratch& s = scratch();
  raw_added_.split(text, s.raw_splits);
  // encode_plain only touches s.pieces*, so the split lists and s.normalized stay valid here.
  for (const auto& split : s.raw_splits) {
    if (out.size() > limit) return;
    if (split.token_id >= 0) {
      out.push_back(split.token_id);
      continue;
    }
    const std::string_view segment = text.substr(split.begin, split.end - split.begin);
    const bool at_start = split.begin == 0;
    if (parts_.normalizer.empty() && normalized_added_.empty()) {
      encode_plain(segment, at_start, out, limit);
      continue;
    }
    std::string& normalized = s.normalized;
    parts_.normalizer.apply(segment, normalized, s.norm_tmp);
    if (normalized_added_.empty()) {
      encode_plain(normalized, at_start, out, limit);
      continue;
    }
    normalized_added_.split(normalized, s.norm_splits);
    for (const auto& sub : s.norm_splits) {
      if (sub.token_id >= 0) out.push_back(sub.token_id);
      else encode_plain(std::string_view(normalized).substr(sub.begin, sub.end - sub.begin), at_start && sub.begin == 0, out,
                        limit);
    }
  }
}

std::vector<std::int32_t> HfTokenizer::encode(std::string_view text, bool add_special_tokens) const {
  Scratch& s = scratch();
  if (valid_utf8_prefix(text) != text.size()) {
    // HF only ever sees valid strings; callers with raw bytes get the U+FFFD-repaired text.
    s.sanitized.clear();
    append_utf8_lossy(s.sanitized, text);
    const std::string copy = s.sanitized;
    return encode(copy, add_special_tokens);
  }
  std::vector<std::int32_t> body;
  encode_into(text, body);
  if (!add_special_tokens || !parts_.single_template) return body;
  std::vector<std::int32_t> out;
  out.reserve(body.size() + 4);
  for (const auto& piece : *parts_.single_template) {
    if (piece.is_sequence) out.insert(out.end(), body.begin(), body.end());
    else out.insert(out.end(), piece.ids.begin(), piece.ids.end());
  }
  return out;
}

std::size_t HfTokenizer::count(std::string_view text, bool add_special_tokens) const {
  if (valid_utf8_prefix(text) != text.size()) return encode(text, add_special_tokens).size();
  Scratch& s = scratch();
  s.ids.clear();
  encode_into(text, s.ids);
  return s.ids.size() + (add_special_tokens ? num_special_tokens_to_add() : 0);
}

std::size_t HfTokenizer::count_up_to(std::string_view text, bool add_special_tokens, std::size_t limit) const {
  const std::size_t specials = add_special_tokens ? num_special_tokens_to_add() : 0;
  if (limit < specials || valid_utf8_prefix(text) != text.size()) return count(text, add_special_tokens);
  Scratch& s = scratch();
  s.ids.clear();
  encode_into(text, s.ids, limit - specials);
  return s.ids.size() + specials;
}

std::string HfTokenizer::decode(const std::vector<std::int32_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const std::int32_t id : ids) {
    if (const auto it = added_by_id_.find(id); it != added_by_id_.end()) {
      const AddedToken& t = parts_.added_tokens[it->second];
      if (!(skip_special_tokens && t.special)) tokens.push_back(t.content);
    } else if (const std::string* t = parts_.model->id_to_token(id)) {
      tokens.push_back(*t);
    }
  }
  return parts_.decoder.decode(std::move(tokens));
}

std::vector<std::int32_t> HfTokenizer::special_ids() const {
  std::vector<std::int32_t> out;
  for (const auto& t : parts_.added_tokens) {
    if (t.special) out.push_back(t.id);
  }
  return out;
}

std::size_t HfTokenizer::num_special_tokens_to_add() const {
  if (!parts_.single_template) return 0;
  std::size_t n = 0;
  for (const auto& piece : *parts_.single_template) n += piece.is_sequence ? 0 : piece.ids.size();
  return n;
}

std::optional<std::int32_t> HfTokenizer::token_to_id(std::string_view token) const {
  if (const auto it = added_by_content_.find(std::string(token)); it != added_by_content_.end()) return it->second;
  return parts_.model->token_to_id(token);
}

std::optional<std::string> HfTokenizer::id_to_token(std::int32_t id) const {
  if (const auto it = added_by_id_.find(id); it != added_by_id_.end()) return parts_.added_tokens[it->second].content;
  if (const std::string* t = parts_.model->id_to_token(id)) return *t;
  return std::nullopt;
}

}  // namespace sb::tok
