#pragma once
// Runs fn(i) for i in [0, n) on up to hardware_concurrency threads, in contiguous blocks.
// Used for tokenizing (Tokenizer is thread-safe) and per-element JSON parsing; results must be
// written to per-index slots so the outcome does not depend on the thread count.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace sb::dataset {

// fn(begin, end) per block; lets each thread keep its own state (e.g. a JSON parser).
template <class Fn>
void parallel_blocks(std::size_t n, Fn&& fn, std::size_t min_per_thread = 16) {
  const std::size_t hw = std::max<unsigned>(1, std::thread::hardware_concurrency());
  const std::size_t threads = std::min(hw, std::max<std::size_t>(1, n / min_per_thread));
  if (threads <= 1) {
    fn(std::size_t{0}, n);
    return;
  }
  // Blocks are contiguous and stop at their first error, so the error of the lowest block is the
  // error of the lowest index: messages do not depend on thread timing.
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        fn(n * t / threads, n * (t + 1) / threads);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

template <class Fn>
void parallel_for(std::size_t n, Fn&& fn, std::size_t min_per_thread = 16) {
  parallel_blocks(
      n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) fn(i);
      },
      min_per_thread);
}

}  // namespace sb::dataset
