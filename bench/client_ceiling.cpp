// Ceiling: SSE events/s and requests/s one client core handles against `servebench sim` with zero
// simulated delay (64 tokens per response), closed loop at 1, 64 and 512 connections.
// Usage: client_ceiling [seconds_per_level=5] [connections...]   (sim on core 0, client on core 1)
#include <cstdlib>

#include "client_bench_util.hpp"

int main(int argc, char** argv) {
  using namespace sb;
  using namespace sb::bench;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  std::vector<int> levels;
  for (int i = 2; i < argc; ++i) levels.push_back(std::atoi(argv[i]));
  if (levels.empty()) levels = {1, 64, 512};
  constexpr int kTokens = 64;
  std::printf("%6s %10s %12s %10s %14s %8s\n", "conns", "req/s", "events/s", "cpu%", "cpu_us/event", "failed");
  for (int conns : levels) {
    Sim sim({"--cost", "fixed", "--ttft-ms", "0", "--itl-ms", "0"}, 0);
    pin_to_core(1);
    Runner runner(client_options(sim.port));
    runner.run_stage(BenchStage(static_cast<std::size_t>(conns) * 4, kTokens, conns).in, {}, {});  // warm-up
    // Size the measured stage from a 1 s probe so every level runs about `seconds`.
    BenchStage probe(static_cast<std::size_t>(conns) * 20 + 200, kTokens, conns);
    const Nanos p0 = now_ns();
    runner.run_stage(probe.in, {}, {});
    const double probe_rps = static_cast<double>(probe.bodies.size()) / ns_to_s(now_ns() - p0);
    BenchStage stage(static_cast<std::size_t>(std::max(100.0, probe_rps * seconds)), kTokens, conns);
    const double cpu0 = cpu_seconds();
    const Nanos t0 = now_ns();
    const StageOutput out = runner.run_stage(stage.in, {}, {});
    const double wall_s = ns_to_s(now_ns() - t0), cpu_s = cpu_seconds() - cpu0;
    const Tally t = tally(out);
    std::printf("%6d %10.0f %12.0f %10.1f %14.2f %8zu %s\n", conns, static_cast<double>(t.ok) / wall_s,
                static_cast<double>(t.events) / wall_s, 100.0 * cpu_s / wall_s,
                1e6 * cpu_s / static_cast<double>(std::max<std::size_t>(1, t.events)), t.failed,
                t.first_error.c_str());
  }
  return 0;
}
