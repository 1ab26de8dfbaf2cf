// Scale: N concurrent streams (default 10,000) with ITL 50 ms held for S seconds (default 30):
// counts errors and reports the client's peak RSS.
// Usage: client_scale [streams=10000] [itl_ms=50] [seconds=30]   (sim on core 0, client on core 1)
#include <cstdlib>

#include "client_bench_util.hpp"
#include "net/rlimit.hpp"

int main(int argc, char** argv) {
  using namespace sb;
  using namespace sb::bench;
  const int streams = argc > 1 ? std::atoi(argv[1]) : 10000;
  const double itl_ms = argc > 2 ? std::atof(argv[2]) : 50;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 30;
  raise_nofile_limit(fds_needed_for(static_cast<std::uint64_t>(streams)));  // the sim child inherits it
  Sim sim({"--cost", "fixed", "--ttft-ms", "0", "--itl-ms", std::to_string(itl_ms)}, 0);
  pin_to_core(1);
  const long rss_before = peak_rss_kib();
  Runner runner(client_options(sim.port));
  const int tokens = static_cast<int>(seconds * 1000.0 / itl_ms);
  BenchStage stage(static_cast<std::size_t>(streams), tokens, std::nullopt);
  const double cpu0 = cpu_seconds();
  const Nanos t0 = now_ns();
  const StageOutput out = runner.run_stage(stage.in, {}, {});
  const double wall_s = ns_to_s(now_ns() - t0);
  const Tally t = tally(out);
  std::vector<double> gaps_ms;
  for (const auto& r : out.records) {
    for (std::size_t i = 1; i < r.token_ns.size(); i += 7) gaps_ms.push_back(ns_to_ms(r.token_ns[i] - r.token_ns[i - 1]));
  }
  std::printf("streams %d  itl %.0f ms  tokens/stream %d  wall %.1f s  client cpu %.0f%%\n", streams, itl_ms,
              tokens, wall_s, 100.0 * (cpu_seconds() - cpu0) / wall_s);
  std::printf("ok %zu  failed %zu %s\n", t.ok, t.failed, t.first_error.c_str());
  std::printf("events %zu (%.0f/s)  measured ITL p50 %.2f ms p99 %.2f ms\n", t.events,
              static_cast<double>(t.events) / wall_s, percentile(gaps_ms, 50), percentile(gaps_ms, 99));
  std::printf("client peak RSS %.1f MiB (%.1f MiB before the run, %.1f KiB per stream incl. records)\n",
              peak_rss_kib() / 1024.0, rss_before / 1024.0,
              static_cast<double>(peak_rss_kib() - rss_before) / streams);
  return t.failed == 0 ? 0 : 1;
}
