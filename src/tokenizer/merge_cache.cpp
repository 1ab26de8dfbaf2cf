#include "tokenizer/merge_cache.hpp"

namespace sb::tok {

bool MergeCache::lookup(std::string_view key, std::vector<std::int32_t>& out) const {
  if (key.size() > kMaxKeyBytes) return false;
  const std::size_t h = Hash{}(key);
  const Shard& shard = shards_[h % kShards];
  std::lock_guard lock(shard.mutex);
  const auto it = shard.map.find(key);
  if (it == shard.map.end()) return false;
  out.insert(out.end(), it->second.begin(), it->second.end());
  return true;
}

void MergeCache::insert(std::string_view key, const std::int32_t* ids, std::size_t n) {
  if (key.size() > kMaxKeyBytes) return;
  Shard& shard = shards_[Hash{}(key) % kShards];
  std::lock_guard lock(shard.mutex);
  if (shard.map.size() >= kMaxEntriesPerShard) return;
  shard.map.try_emplace(std::string(key), ids, ids + n);
}

}  // namespace sb::tok
