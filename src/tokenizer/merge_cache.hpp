#pragma once
// Thread-safe cache pre-token bytes -> token ids, so repeated words skip the merge loop.
// Sharded by hash, one mutex per shard; no LRU bookkeeping: a full shard simply stops inserting
// (frequent words arrive early, so they are the ones kept).
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sb::tok {

class MergeCache {
 public:
  static constexpr std::size_t kMaxKeyBytes = 64;

  // Appends the cached ids for key to out; false on a miss.
  bool lookup(std::string_view key, std::vector<std::int32_t>& out) const;
  void insert(std::string_view key, const std::int32_t* ids, std::size_t n);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, std::vector<std::int32_t>, Hash, std::equal_to<>> map;
  };
  static constexpr std::size_t kShards = 64;
  static constexpr std::size_t kMaxEntriesPerShard = 4096;
  std::array<Shard, kShards> shards_;
};

}  // namespace sb::tok
