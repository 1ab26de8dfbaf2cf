#pragma once
// Flat open-addressing map string -> token id. All keys live in one arena, slots hold a 32-bit hash
// tag and an entry index, so a lookup costs about one cache miss instead of std::unordered_map's
// three (bucket, node, heap string). Used for the 150k-entry vocabularies on the load and encode paths.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::tok {

inline std::uint64_t hash_bytes(std::string_view s) noexcept {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, s.data() + i, s.size() - i);
  h = (h ^ tail) * 0x94D049BB133111EBULL;
  return h ^ (h >> 32);
}

class StringIdMap {
 public:
  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    entries_.reserve(n);
  }

  // Inserts or overwrites (the later value wins).
  void insert(std::string_view key, std::int32_t id) {
    if ((entries_.size() + 1) * 2 > slots_.size()) grow();
    const std::uint64_t h = hash_bytes(key);
    const std::size_t slot = probe(key, h);
    if (slots_[slot].entry >= 0) {
      entries_[static_cast<std::size_t>(slots_[slot].entry)].id = id;
      return;
    }
    entries_.push_back({static_cast<std::uint32_t>(arena_.size()), static_cast<std::uint32_t>(key.size()), id});
    arena_.append(key);
    slots_[slot] = {static_cast<std::uint32_t>(h), static_cast<std::int32_t>(entries_.size() - 1)};
  }

  std::optional<std::int32_t> find(std::string_view key) const noexcept {
    const std::size_t slot = probe(key, hash_bytes(key));
    if (slots_[slot].entry < 0) return std::nullopt;
    return entries_[static_cast<std::size_t>(slots_[slot].entry)].id;
  }

  std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Slot {
    std::uint32_t tag = 0;
    std::int32_t entry = -1;
  };
  struct Entry {
    std::uint32_t offset, length;
    std::int32_t id;
  };

  // The slot holding key, or the empty slot where it would go.
  std::size_t probe(std::string_view key, std::uint64_t h) const noexcept {
    const auto tag = static_cast<std::uint32_t>(h);
    for (std::size_t i = (h >> 32) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.entry < 0) return i;
      if (s.tag == tag) {
        const Entry& e = entries_[static_cast<std::size_t>(s.entry)];
        if (e.length == key.size() && std::memcmp(arena_.data() + e.offset, key.data(), key.size()) == 0) return i;
      }
    }
  }

  void grow() {
    std::vector<Entry> old = std::move(entries_);
    std::string old_arena = std::move(arena_);
    entries_.clear();
    arena_.clear();
    reserve(std::max<std::size_t>(old.size() * 2, 16));
    for (const Entry& e : old) insert(std::string_view(old_arena).substr(e.offset, e.length), e.id);
  }

  std::vector<Slot> slots_{16};
  std::vector<Entry> entries_;
  std::string arena_;
  std::size_t mask_ = 15;
};

}  // namespace sb::tok
