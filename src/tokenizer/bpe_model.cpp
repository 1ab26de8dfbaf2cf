#include "tokenizer/bpe_model.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "tokenizer/byte_level.hpp"
#include "tokenizer/utf8.hpp"

namespace sb::tok {

BpeModel::BpeModel(BpeConfig cfg)
    : byte_fallback_(cfg.byte_fallback), fuse_unk_(cfg.fuse_unk), ignore_merges_(cfg.ignore_merges),
      byte_level_(cfg.byte_level) {
  std::int32_t max_id = -1;
  for (const auto& [tok, id] : cfg.vocab) max_id = std::max(max_id, id);
  id_to_token_.resize(static_cast<std::size_t>(max_id + 1));
  vocab_.reserve(cfg.vocab.size());
  for (auto& [tok, id] : cfg.vocab) {
    // Tokens outside the ByteLevel alphabet cannot come out of a byte-level pre-tokenizer; keeping
    // their literal bytes is harmless and keeps token_to_id working.
    std::optional<std::string> raw = byte_level_ ? byte_level_to_bytes(tok) : std::nullopt;
    vocab_.insert(raw ? *raw : tok, id);
    id_to_token_[static_cast<std::size_t>(id)] = std::move(tok);
  }
  vocab_size_ = cfg.vocab.size();
  byte_ids_.fill(-1);
  ascii_ids_.fill(-1);
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    const auto id = byte_level_ ? lookup(std::string(1, static_cast<char>(b))) : lookup(name);
    byte_ids_[static_cast<std::size_t>(b)] = id.value_or(-1);
    if (b < 128) ascii_ids_[static_cast<std::size_t>(b)] = lookup(std::string(1, static_cast<char>(b))).value_or(-1);
  }
  if (cfg.unk_token) {
    const auto id = token_to_id(*cfg.unk_token);
    if (!id) throw std::invalid_argument("unk_token '" + *cfg.unk_token + "' is not in the vocabulary");
    unk_id_ = *id;
  }
  // Merges name tokens in tokenizer.json spelling: resolve them through a temporary view map
  // rather than token_to_id, which would convert each ByteLevel string to bytes first.
  StringIdMap by_spelling;
  by_spelling.reserve(id_to_token_.size());
  for (std::size_t id = 0; id < id_to_token_.size(); ++id) {
    if (!id_to_token_[id].empty()) by_spelling.insert(id_to_token_[id], static_cast<std::int32_t>(id));
  }
  auto find = [&](std::string_view t) { return by_spelling.find(t).value_or(-1); };
  merges_.reserve(cfg.merges.size());
  std::string joined;
  for (std::size_t rank = 0; rank < cfg.merges.size(); ++rank) {
    const auto [a, b] = cfg.merges[rank];
    joined.assign(a).append(b);
    const std::int32_t ia = find(a), ib = find(b), inew = find(joined);
    if (ia < 0 || ib < 0 || inew < 0) {
      throw std::invalid_argument("merge '" + std::string(a) + " " + std::string(b) + "' uses a token not in the vocabulary");
    }
    merges_.insert(ia, ib, {static_cast<std::int32_t>(rank), inew});
  }
}

std::optional<std::int32_t> BpeModel::lookup(std::string_view key) const { return vocab_.find(key); }

std::optional<std::int32_t> BpeModel::token_to_id(std::string_view token) const {
  if (byte_level_) {
    if (auto raw = byte_level_to_bytes(token)) return lookup(*raw);
  }
  return lookup(token);
}

const std::string* BpeModel::id_to_token(std::int32_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= id_to_token_.size()) return nullptr;
  const std::string& t = id_to_token_[static_cast<std::size_t>(id)];
  return t.empty() ? nullptr : &t;
}

// Mirrors HF BPE::merge_word's symbol construction, including the quirk that a pending <unk> is
// emitted after byte-fallback tokens that follow it.
void BpeModel::initial_symbols(std::string_view piece, std::vector<std::int32_t>& ids,
                               std::vector<std::uint32_t>& lens) const {
  std::int32_t pending_unk_len = 0;
  auto flush_unk = [&] {
    if (pending_unk_len > 0) {
      ids.push_back(unk_id_);
      lens.push_back(static_cast<std::uint32_t>(pending_unk_len));
      pending_unk_len = 0;
    }
  };
  for (std::size_t i = 0; i < piece.size();) {
    const auto lead = static_cast<unsigned char>(piece[i]);
    const std::size_t n = byte_level_ ? 1 : std::min(utf8_len(lead), piece.size() - i);
    std::int32_t id = byte_level_ ? byte_ids_[lead] : lead < 128 ? ascii_ids_[lead] : lookup(piece.substr(i, n)).value_or(-1);
    if (id >= 0) {
      flush_unk();
      ids.push_back(id);
      lens.push_back(static_cast<std::uint32_t>(n));
    } else if (byte_fallback_ && std::all_of(piece.begin() + static_cast<std::ptrdiff_t>(i), piece.begin() + static_cast<std::ptrdiff_t>(i + n),
                                             [&](char c) { return byte_ids_[static_cast<unsigned char>(c)] >= 0; })) {
      for (std::size_t k = i; k < i + n; ++k) {
        ids.push_back(byte_ids_[static_cast<unsigned char>(piece[k])]);
        lens.push_back(1);
      }
    } else if (unk_id_ >= 0) {
      if (pending_unk_len > 0 && !fuse_unk_) flush_unk();
      pending_unk_len += static_cast<std::int32_t>(n);
    }
    i += n;
  }
  flush_unk();
}

void BpeModel::encode_piece(std::string_view piece, std::vector<std::int32_t>& out) const {
  if (piece.empty()) return;
  if (ignore_merges_) {
    if (const auto id = lookup(piece)) {
      out.push_back(*id);
      return;
    }
  }
  if (cache_.lookup(piece, out)) return;
  thread_local std::vector<std::int32_t> ids;
  thread_local std::vector<std::uint32_t> lens;
  ids.clear();
  lens.clear();
  initial_symbols(piece, ids, lens);
  merge(ids, lens);
  out.insert(out.end(), ids.begin(), ids.end());
  cache_.insert(piece, ids.data(), ids.size());
}

}  // namespace sb::tok

namespace sb::tok {

namespace {

struct Candidate {
  std::int32_t rank, pos, new_id;
  // std heap is a max-heap: "greater" = lower rank, then leftmost position (HF's Merge ordering).
  bool operator<(const Candidate& o) const noexcept { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

}  // namespace

// Applies merges lowest rank first, leftmost first among equals, exactly as HF's Word::merge_all.
// Symbols form a linked list over the initial arrays; a merged-away symbol gets length 0.
void BpeModel::merge(std::vector<std::int32_t>& ids, std::vector<std::uint32_t>& lens) const {
  const auto n = static_cast<std::int32_t>(ids.size());
  if (n < 2) return;
  thread_local std::vector<std::int32_t> prev, next;
  thread_local std::vector<Candidate> heap;
  prev.resize(static_cast<std::size_t>(n));
  next.resize(static_cast<std::size_t>(n));
  heap.clear();
  for (std::int32_t i = 0; i < n; ++i) {
    prev[static_cast<std::size_t>(i)] = i - 1;
    next[static_cast<std::size_t>(i)] = i + 1 < n ? i + 1 : -1;
    if (i + 1 < n) {
      const MergeResult m = merges_.find(ids[static_cast<std::size_t>(i)], ids[static_cast<std::size_t>(i + 1)]);
      if (m.rank >= 0) heap.push_back({m.rank, i, m.new_id});
    }
  }
  std::make_heap(heap.begin(), heap.end());
  auto push_pair = [&](std::int32_t left) {
    const std::int32_t right = next[static_cast<std::size_t>(left)];
    if (left < 0 || right < 0) return;
    const MergeResult m = merges_.find(ids[static_cast<std::size_t>(left)], ids[static_cast<std::size_t>(right)]);
    if (m.rank < 0) return;
    heap.push_back({m.rank, left, m.new_id});
    std::push_heap(heap.begin(), heap.end());
  };
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    const Candidate top = heap.back();
    heap.pop_back();
    const auto p = static_cast<std::size_t>(top.pos);
    if (lens[p] == 0 || next[p] < 0) continue;
    const auto r = static_cast<std::size_t>(next[p]);
    if (merges_.find(ids[p], ids[r]).new_id != top.new_id) continue;  // stale entry
    ids[p] = top.new_id;
    lens[p] += lens[r];
    lens[r] = 0;
    next[p] = next[r];
    if (next[r] >= 0) prev[static_cast<std::size_t>(next[r])] = top.pos;
    if (prev[p] >= 0) push_pair(prev[p]);
    push_pair(top.pos);
  }
  std::size_t w = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (lens[i] != 0) ids[w++] = ids[i];
  }
  ids.resize(w);
}

}  // namespace sb::tok
