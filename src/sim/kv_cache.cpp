#include "sim/kv_cache.hpp"

#include <algorithm>

namespace sb::sim {

KvCache::KvCache(std::int64_t num_blocks, int block_size)
    : total_(num_blocks), free_(num_blocks), block_size_(block_size) {
  if (num_blocks > 0) queue_.push_back({num_blocks, 0, false});
}

bool KvCache::grow(std::int64_t& held, std::int64_t tokens) {
  std::int64_t need = blocks_for_tokens(tokens) - held;
  if (need <= 0) return true;
  if (need > free_) return false;
  free_ -= need;
  held += need;
  while (need > 0 || (!queue_.empty() && queue_.front().count == 0)) {
    Run& front = queue_.front();
    const std::int64_t take = std::min(need, front.count);
    front.count -= take;  // an owned run loses its highest blocks first: the cached prefix shrinks
    need -= take;
    if (front.count > 0) break;
    if (front.owned) run_of_owner_.erase(front.owner);
    queue_.pop_front();
    ++front_index_;
  }
  return true;
}

void KvCache::append(const Run& run) {
  if (run.count <= 0) return;
  // Plain free blocks merge with plain ones before them: their order among themselves is moot.
  if (!run.owned && !queue_.empty() && !queue_.back().owned) {
    queue_.back().count += run.count;
    return;
  }
  queue_.push_back(run);
}

void KvCache::release(std::int64_t& held) {
  free_ += held;
  append({held, 0, false});
  held = 0;
}

void KvCache::release_cached(std::uint64_t owner, std::int64_t& held, std::int64_t cached_blocks) {
  forget(owner);
  const std::int64_t cached = std::clamp<std::int64_t>(cached_blocks, 0, held);
  free_ += held;
  append({held - cached, 0, false});  // the partial and not yet computed blocks: freed first
  if (cached > 0) {
    append({cached, owner, true});
    run_of_owner_[owner] = front_index_ + queue_.size() - 1;
  }
  held = 0;
}

KvCache::Run* KvCache::owned_run(std::uint64_t owner) {
  const auto it = run_of_owner_.find(owner);
  if (it == run_of_owner_.end()) return nullptr;
  return &queue_[static_cast<std::size_t>(it->second - front_index_)];
}

std::int64_t KvCache::cached_blocks(std::uint64_t owner) const {
  const auto it = run_of_owner_.find(owner);
  if (it == run_of_owner_.end()) return 0;
  return queue_[static_cast<std::size_t>(it->second - front_index_)].count;
}

void KvCache::reclaim(std::uint64_t owner, std::int64_t& held, std::int64_t blocks) {
  Run* run = owned_run(owner);
  if (run == nullptr || held != 0) return;
  const std::int64_t taken = std::clamp<std::int64_t>(blocks, 0, run->count);
  // The run stays in place (others' indices depend on it); what is left is plain free blocks and
  // an empty run is dropped when it reaches the front.
  run->count -= taken;
  run->owned = false;
  run_of_owner_.erase(owner);
  free_ -= taken;
  held = taken;
}

void KvCache::forget(std::uint64_t owner) {
  Run* run = owned_run(owner);
  if (run == nullptr) return;
  run->owned = false;
  run_of_owner_.erase(owner);
}

}  // namespace sb::sim
