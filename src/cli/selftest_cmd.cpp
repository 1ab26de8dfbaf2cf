// `servebench selftest`: the client's own ceiling on this machine (docs/selftest.md), measured
// against the simulator started in-process over loopback, at each --client-threads value; the
// results refresh the cache the automatic probe before a run reads.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/ceiling_probe.hpp"
#include "cli/commands.hpp"
#include "core/exit_codes.hpp"
#include "exec/runner.hpp"
#include "pipeline/ceiling_cache.hpp"
#include "report/selftest_text.hpp"

namespace sb::cli {

int selftest_cmd(int argc, char** argv) {
  CLI::App app{"Measure the client's own ceiling on this machine: SSE events/s per worker thread, requests/s, "
               "clock cost, timer overshoot and dispatch lag, against the in-process simulator over loopback"};
  app.name("servebench selftest");
  std::vector<int> threads{resolved_threads(ClientOptions{})};
  double seconds = 1.0;
  app.add_option("--client-threads", threads, "worker thread counts to measure (default: the CPUs this process may use)")
      ->check(CLI::Range(1, kMaxClientThreads));
  app.add_option("--seconds", seconds, "closed-loop measurement per thread count (default 1)")
      ->check(CLI::Range(0.05, 600.0));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? to_int(ExitCode::ok) : to_int(ExitCode::config_error);
  }
  bool pinned = false;
  const std::string path = ceiling_cache_path(pinned);
  std::vector<ClientCeiling> rows;
  for (const int n : threads) {
    pipeline::SelftestParams p;
    p.threads = n;
    p.throughput_s = seconds;
    p.dispatch_s = seconds / 2;
    rows.push_back(probe_ceiling(p));
    if (!path.empty()) pipeline::write_ceiling_cache(path, pipeline::ceiling_key(n), rows.back());
  }
  std::fputs(report::format_selftest_table(rows).c_str(), stdout);
  return to_int(ExitCode::ok);
}

}  // namespace sb::cli
