#pragma once
// Open-addressing hash table (id_left, id_right) -> (rank, merged id). A flat table instead of
// std::unordered_map: 280k merges load in a few ms and a lookup is one or two cache lines.
#include <cstdint>
#include <vector>

namespace sb::tok {

struct MergeResult {
  std::int32_t rank = -1;
  std::int32_t new_id = -1;
};

class MergeTable {
 public:
  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
  }

  // Later inserts of the same pair win, like HF's HashMap collect.
  void insert(std::int32_t left, std::int32_t right, MergeResult r) {
    const std::uint64_t key = pack(left, right);
    for (std::size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == kEmpty || slots_[i].key == key) {
        slots_[i] = Slot{key, r};
        return;
      }
    }
  }

  MergeResult find(std::int32_t left, std::int32_t right) const noexcept {
    const std::uint64_t key = pack(left, right);
    for (std::size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].value;
      if (slots_[i].key == kEmpty) return {};
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = ~0ULL;
  struct Slot {
    std::uint64_t key = kEmpty;
    MergeResult value;
  };
  static std::uint64_t pack(std::int32_t a, std::int32_t b) noexcept {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  }
  static std::size_t hash(std::uint64_t x) noexcept {  // splitmix64 finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return static_cast<std::size_t>(x ^ (x >> 31));
  }
  std::vector<Slot> slots_{16};
  std::size_t mask_ = 15;
};

}  // namespace sb::tok
