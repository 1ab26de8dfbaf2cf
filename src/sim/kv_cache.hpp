#pragma once
// KV cache as a pool of fixed-size blocks (vLLM's paged attention): a sequence holding n tokens
// owns ceil(n / block_size) blocks. Only counts matter to the simulator, so blocks are a number,
// not a free list; prefix caching is not modelled.
#include <cstdint>

namespace sb::sim {

class KvCache {
 public:
  KvCache(std::int64_t num_blocks, int block_size) : total_(num_blocks), free_(num_blocks), block_size_(block_size) {}

  std::int64_t blocks_for_tokens(std::int64_t tokens) const { return (tokens + block_size_ - 1) / block_size_; }
  // Grows a sequence from `held` blocks to cover `tokens`; false (nothing taken) if short.
  bool grow(std::int64_t& held, std::int64_t tokens) {
    const std::int64_t need = blocks_for_tokens(tokens) - held;
    if (need <= 0) return true;
    if (need > free_) return false;
    free_ -= need;
    held += need;
    return true;
  }
  bool can_grow(std::int64_t held, std::int64_t tokens) const { return blocks_for_tokens(tokens) - held <= free_; }
  void release(std::int64_t& held) {
    free_ += held;
    held = 0;
  }

  std::int64_t total_blocks() const { return total_; }
  std::int64_t free_blocks() const { return free_; }
  int block_size() const { return block_size_; }
  // vllm:kv_cache_usage_perc is a fraction 0..1 despite its name.
  double usage() const { return total_ > 0 ? 1.0 - static_cast<double>(free_) / total_ : 0.0; }

 private:
  std::int64_t total_;
  std::int64_t free_;
  int block_size_;
};

}  // namespace sb::sim
