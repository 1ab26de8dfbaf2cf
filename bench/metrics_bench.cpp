// summarize() cost at the end of a large stage: 10k requests x 256 token events each.
// Build with -DSB_BUILD_BENCH=ON, run ./metrics_bench. Records are synthetic but shaped like a
// real stage (staggered sends, 20-40 ms token gaps, 1 % failures).
#include <benchmark/benchmark.h>

#include <vector>

#include "metrics/summarize.hpp"

namespace {

std::vector<sb::RequestRecord> make_records(int requests, int tokens) {
  std::vector<sb::RequestRecord> records(static_cast<std::size_t>(requests));
  std::uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
  for (int i = 0; i < requests; ++i) {
    sb::RequestRecord& r = records[static_cast<std::size_t>(i)];
    r.index = static_cast<std::uint32_t>(i);
    r.intended_ns = static_cast<sb::Nanos>(i) * 10'000'000;
    r.sent_ns = r.intended_ns + next() % 1'000'000;
    r.first_byte_ns = r.sent_ns + 50'000'000 + next() % 100'000'000;
    if (i % 100 == 99) {
      r.outcome = sb::Outcome::http_error;
      r.http_status = 503;
      r.error = "Service Unavailable";
      r.done_ns = r.first_byte_ns;
      continue;
    }
    r.token_ns.reserve(static_cast<std::size_t>(tokens));
    sb::Nanos t = r.first_byte_ns;
    for (int k = 0; k < tokens; ++k) r.token_ns.push_back(t += 20'000'000 + next() % 20'000'000);
    r.done_ns = t + 1'000'000;
    r.output_tokens = tokens;
    r.prompt_tokens = r.dataset_prompt_tokens = 512;
    r.expected_output_tokens = tokens;
    r.token_source = sb::TokenSource::usage_chunk;
  }
  return records;
}

void BM_Summarize(benchmark::State& state) {
  const auto records = make_records(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  sb::SummarizeParams p;
  p.load.request_rate = 100;
  p.percentiles = {99, 99.9};
  p.goodput_slo_ms = {{"ttft", 200}, {"tpot", 40}};
  for (auto _ : state) benchmark::DoNotOptimize(sb::summarize(records, p));
  state.SetItemsProcessed(state.iterations() * state.range(0) * state.range(1));
  state.SetLabel("items = token events");
}
BENCHMARK(BM_Summarize)->Args({10'000, 256})->Args({1'000, 256})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
