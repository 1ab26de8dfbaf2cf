#pragma once
// Cumulative counters and histograms the engine keeps for /metrics, named after vLLM V1's
// metrics (docs/trace.md). Bucket bounds are vLLM's, so scrapes are comparable.
#include <array>
#include <cstdint>
#include <span>

#include "sim/prom_histogram.hpp"

namespace sb::sim {

namespace buckets {
inline constexpr std::array<double, 22> kTtft = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,
                                                 0.25,  0.5,   0.75, 1.0,  2.5,  5.0,  7.5,  10.0,
                                                 20.0,  40.0,  80.0, 160.0, 640.0, 2560.0};
inline constexpr std::array<double, 19> kItl = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,
                                                0.3,  0.4,   0.5,  0.75,  1.0, 2.5,  5.0,
                                                7.5,  10.0,  20.0, 40.0,  80.0};
inline constexpr std::array<double, 21> kRequest = {0.3,  0.5,  0.8,  1.0,   1.5,   2.0,   2.5,
                                                    5.0,  10.0, 15.0, 20.0,  30.0,  40.0,  50.0,
                                                    60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
inline constexpr std::array<double, 13> kIterationTokens = {1,   8,    16,   32,   64,   128, 256,
                                                            512, 1024, 2048, 4096, 8192, 16384};
inline constexpr std::array<double, 19> kTokens = {1,     2,     5,      10,     20,     50,     100,
                                                   200,   500,   1000,   2000,   5000,   10000,  20000,
                                                   50000, 100000, 200000, 500000, 1000000};
// vLLM builds the token-count buckets as 1-2-5 steps up to max_model_len (build_1_2_5_buckets).
inline std::span<const double> tokens_up_to(int max_model_len) {
  std::size_t n = 0;
  while (n < kTokens.size() && kTokens[n] <= max_model_len) ++n;
  return {kTokens.data(), n};
}
}  // namespace buckets

struct EngineStats {
  std::uint64_t prompt_tokens = 0;       // counted once per request when its prefill completes
  std::uint64_t generation_tokens = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t finished_stop = 0;       // EOS drawn before max_tokens
  std::uint64_t finished_length = 0;     // reached max_tokens
  std::uint64_t finished_abort = 0;      // cancelled by the client or rejected
  std::uint64_t steps = 0;
  double busy_s = 0;                     // simulated GPU busy time (unscaled cost-model seconds)

  PromHistogram ttft_s{buckets::kTtft};
  PromHistogram itl_s{buckets::kItl};
  PromHistogram tpot_s{buckets::kItl};
  PromHistogram e2e_s{buckets::kRequest};
  PromHistogram queue_s{buckets::kRequest};
  PromHistogram inference_s{buckets::kRequest};
  PromHistogram prefill_s{buckets::kRequest};
  PromHistogram decode_s{buckets::kRequest};
  PromHistogram iteration_tokens{buckets::kIterationTokens};
  PromHistogram request_prompt_tokens{buckets::kTokens};
  PromHistogram request_generation_tokens{buckets::kTokens};
};

}  // namespace sb::sim
