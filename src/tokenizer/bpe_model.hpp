#pragma once
// The BPE model of tokenizer.json: vocabulary, merge ranks, byte_fallback / unk handling,
// ignore_merges, and a merge cache. In byte-level mode the vocabulary is keyed by raw bytes
// (the ByteLevel alphabet is undone at load time), so encode never maps bytes to characters.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/merge_cache.hpp"
#include "tokenizer/merge_table.hpp"
#include "tokenizer/string_id_map.hpp"

namespace sb::tok {

struct BpeConfig {
  std::vector<std::pair<std::string, std::int32_t>> vocab;      // as written in tokenizer.json
  // In rank order. Views: they must outlive the BpeModel constructor only (the loader points them
  // into the parsed JSON document, which avoids 2 allocations per merge).
  std::vector<std::pair<std::string_view, std::string_view>> merges;
  std::optional<std::string> unk_token;
  bool byte_fallback = false;
  bool fuse_unk = false;
  bool ignore_merges = false;
  bool byte_level = false;  // a ByteLevel pre-tokenizer is present: vocab uses GPT-2's alphabet
};

class BpeModel {
 public:
  // Throws std::invalid_argument naming a merge whose parts or result are not in the vocabulary.
  explicit BpeModel(BpeConfig cfg);

  // Appends the ids of one pre-token (raw UTF-8 bytes) to out. Thread-safe; allocation-free
  // after warm-up except for cache inserts.
  void encode_piece(std::string_view piece, std::vector<std::int32_t>& out) const;

  std::optional<std::int32_t> token_to_id(std::string_view token) const;  // tokenizer.json spelling
  const std::string* id_to_token(std::int32_t id) const;                  // tokenizer.json spelling
  std::size_t vocab_size() const noexcept { return vocab_size_; }

 private:
  std::optional<std::int32_t> lookup(std::string_view key) const;  // key in encode form (bytes if byte-level)
  void initial_symbols(std::string_view piece, std::vector<std::int32_t>& ids,
                       std::vector<std::uint32_t>& lens) const;
  void merge(std::vector<std::int32_t>& ids, std::vector<std::uint32_t>& lens) const;

  StringIdMap vocab_;  // encode spelling (raw bytes in byte-level mode) -> id
  std::vector<std::string> id_to_token_;
  std::array<std::int32_t, 256> byte_ids_{};   // byte-level: id of each byte; else id of <0xNN> (-1: none)
  std::array<std::int32_t, 128> ascii_ids_{};  // SentencePiece mode: id of each ASCII character (-1: none)
  MergeTable merges_;
  std::int32_t unk_id_ = -1;
  bool byte_fallback_ = false, fuse_unk_ = false, ignore_merges_ = false, byte_level_ = false;
  std::size_t vocab_size_ = 0;
  mutable MergeCache cache_;
};

}  // namespace sb::tok
