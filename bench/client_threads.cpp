// Multi-core: SSE events/s with 1, 2, ... client worker threads (one event loop each) against
// `servebench sim --cost fixed` with zero delay (64 tokens per answer), closed loop at 64
// connections per thread. Nothing is pinned: the threads and the simulator share the machine's
// cores, so the table shows both what the client reached (events/s) and what it cost per event
// (CPU µs per event of the client's worker threads, from the kernel's per-thread accounting).
// Usage: client_threads [seconds_per_level=3] [threads...=1 2]
// SIMS=N starts N simulators on one port (`sim --reuse-port`) on cores 0..N-1, for machines where
// one simulator thread would be the limit; TASKSET the client to the other cores yourself.
#include <cstdlib>
#include <memory>

#include "client_bench_util.hpp"

int main(int argc, char** argv) {
  using namespace sb;
  using namespace sb::bench;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  std::vector<int> levels;
  for (int i = 2; i < argc; ++i) levels.push_back(std::atoi(argv[i]));
  if (levels.empty()) levels = {1, 2};
  constexpr int kTokens = 64, kConnsPerThread = 64;
  std::printf("%7s %12s %10s %16s %14s %10s %8s\n", "threads", "events/s", "req/s", "busiest thread", "worker cpu%",
              "us/event", "failed");
  for (int threads : levels) {
    const int nsims = std::getenv("SIMS") != nullptr ? std::max(1, std::atoi(std::getenv("SIMS"))) : 1;
    std::vector<std::string> sim_args = {"--cost", "fixed", "--ttft-ms", "0", "--itl-ms", "0"};
    if (nsims > 1) sim_args.push_back("--reuse-port");
    std::vector<std::unique_ptr<Sim>> sims;
    for (int k = 0; k < nsims; ++k) sims.push_back(std::make_unique<Sim>(sim_args, k, k == 0 ? 0 : sims[0]->port));
    ClientOptions opt = client_options(sims[0]->port);
    opt.threads = threads;
    Runner runner(opt);
    const int conns = kConnsPerThread * threads;
    runner.run_stage(BenchStage(static_cast<std::size_t>(conns) * 4, kTokens, conns).in, {}, {});  // warm-up
    BenchStage stage(1, kTokens, conns);
    stage.in.issue_for_ns = static_cast<Nanos>(seconds * 1e9);
    stage.in.issue_count = kUntilDeadline;
    const StageOutput out = runner.run_stage(stage.in, {}, {});
    const Tally t = tally(out);
    const double wall_s = ns_to_s(out.end_ns);
    const ClientThreadTimes& ct = out.client_times;
    std::printf("%7d %12.0f %10.0f %15.0f%% %13.0f%% %10.3f %8zu %s\n", threads, static_cast<double>(t.events) / wall_s,
                static_cast<double>(t.ok) / wall_s, 100.0 * ns_to_s(ct.busiest_worker_ns) / wall_s,
                100.0 * ns_to_s(ct.worker_cpu_ns) / wall_s / threads,
                1e6 * ns_to_s(ct.worker_cpu_ns) / static_cast<double>(std::max<std::size_t>(1, t.events)), t.failed,
                t.first_error.c_str());
  }
  return 0;
}
