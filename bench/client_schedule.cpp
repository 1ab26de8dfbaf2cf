// Schedule fidelity: open-loop Poisson arrivals at R req/s (default 1,000) for S seconds (default
// 5): lag = actual send - intended send, p50/p99/max. Short answers (4 tokens, ITL 1 ms).
// Usage: client_schedule [rate=1000] [seconds=5]   (sim on core 0, client on core 1)
#include <cstdlib>

#include "client_bench_util.hpp"
#include "load/schedule.hpp"

int main(int argc, char** argv) {
  using namespace sb;
  using namespace sb::bench;
  const double rate = argc > 1 ? std::atof(argv[1]) : 1000;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 5;
  Sim sim({"--cost", "fixed", "--ttft-ms", "1", "--itl-ms", "1"}, 0);
  pin_to_core(1);
  Runner runner(client_options(sim.port));
  runner.run_stage(BenchStage(200, 4, 64).in, {}, {});  // warm-up: opens connections
  const auto n = static_cast<std::size_t>(rate * seconds);
  BenchStage stage(n, 4, std::nullopt);
  const std::vector<Nanos> offsets = make_schedule(ScheduleParams{n, rate, 1.0, 42});
  for (std::size_t i = 0; i < n; ++i) stage.in.requests[i].offset_ns = offsets[i];
  const StageOutput out = runner.run_stage(stage.in, {}, {});
  std::vector<double> lag_ms;
  for (const auto& r : out.records) lag_ms.push_back(ns_to_ms(r.sent_ns - r.intended_ns));
  const Tally t = tally(out);
  std::printf("rate %.0f req/s  requests %zu  ok %zu  failed %zu %s\n", rate, n, t.ok, t.failed, t.first_error.c_str());
  std::printf("schedule lag p50 %.3f ms  p99 %.3f ms  max %.3f ms\n", percentile(lag_ms, 50),
              percentile(lag_ms, 99), *std::max_element(lag_ms.begin(), lag_ms.end()));
  return 0;
}
