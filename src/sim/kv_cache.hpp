#pragma once
// KV cache as a pool of fixed-size blocks (vLLM's paged attention): a sequence holding n tokens
// owns ceil(n / block_size) blocks. Only counts matter to the simulator, so blocks are a number,
// except for the order of the free blocks, which decides what a preempted sequence finds again.
//
// vLLM V1's prefix caching (on by default) keeps a freed block's contents until the block is
// handed out again: the free blocks form one queue, freed blocks join its back (a sequence's last
// block first) and new blocks are taken from its front, so the oldest are evicted first. A
// preempted sequence that is scheduled again reuses the leading full blocks of its own that are
// still in the queue instead of recomputing them. Prompts of different requests are taken to
// share nothing (the simulator has no token contents), so only a sequence's own blocks are found.
#include <cstdint>
#include <deque>
#include <unordered_map>

namespace sb::sim {

class KvCache {
 public:
  KvCache(std::int64_t num_blocks, int block_size);

  std::int64_t blocks_for_tokens(std::int64_t tokens) const { return (tokens + block_size_ - 1) / block_size_; }
  // Grows a sequence from `held` blocks to cover `tokens`, taking blocks from the front of the
  // free queue (evicting what they cached); false (nothing taken) if short.
  bool grow(std::int64_t& held, std::int64_t tokens);
  bool can_grow(std::int64_t held, std::int64_t tokens) const { return blocks_for_tokens(tokens) - held <= free_; }
  // Frees the blocks of a finished or cancelled sequence: nobody will look for them again.
  void release(std::int64_t& held);
  // Frees a preempted sequence's blocks, keeping the contents of its first `cached_blocks` (its
  // full, computed blocks) findable by `owner` until they are evicted.
  void release_cached(std::uint64_t owner, std::int64_t& held, std::int64_t cached_blocks);
  // Leading blocks of `owner` still cached (0 if none or evicted).
  std::int64_t cached_blocks(std::uint64_t owner) const;
  // Takes the first `blocks` (at most cached_blocks(owner)) of owner's cached blocks out of the
  // free queue into `held` (which must be 0); any cached blocks after them stay as plain free blocks.
  void reclaim(std::uint64_t owner, std::int64_t& held, std::int64_t blocks);
  // Owner is gone: its cached blocks become plain free blocks.
  void forget(std::uint64_t owner);

  std::int64_t total_blocks() const { return total_; }
  std::int64_t free_blocks() const { return free_; }
  int block_size() const { return block_size_; }
  // vllm:kv_cache_usage_perc is a fraction 0..1 despite its name.
  double usage() const { return total_ > 0 ? 1.0 - static_cast<double>(free_) / total_ : 0.0; }

 private:
  // Consecutive free blocks in queue order; an owned run holds owner's blocks [0, count) with the
  // highest index at the front, as vLLM frees a sequence's blocks last to first.
  struct Run {
    std::int64_t count = 0;
    std::uint64_t owner = 0;
    bool owned = false;
  };
  void append(const Run& run);
  Run* owned_run(std::uint64_t owner);

  std::int64_t total_;
  std::int64_t free_;
  int block_size_;
  std::deque<Run> queue_;          // front: evicted first; Σ count == free_
  std::uint64_t front_index_ = 0;  // absolute index of queue_.front(), so runs keep stable indices
  std::unordered_map<std::uint64_t, std::uint64_t> run_of_owner_;  // owner -> absolute run index
};

}  // namespace sb::sim
