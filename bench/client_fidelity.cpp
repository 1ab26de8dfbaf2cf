// ITL fidelity: the client-measured inter-token latency vs the simulator's own send times
// (--token-log), per token pair: |client ITL - server ITL|, p50/p99/max; plus recv - send latency.
// Same machine, so both sides read the same CLOCK_MONOTONIC.
// Usage: client_fidelity [seconds=5] [streams:itl_ms ...]   (default 1000:20 4000:80, ~50k events/s)
// Each level runs twice: starts staggered over one ITL, and all at t0 (lockstep).
#include <cstdlib>
#include <unordered_map>

#include "client_bench_util.hpp"
#include "net/rlimit.hpp"

namespace {

using sb::Nanos;

// request_id -> send_ns by token index, from "send_ns request_id token_index" lines.
std::unordered_map<std::string, std::vector<Nanos>> read_token_log(const std::string& path) {
  std::unordered_map<std::string, std::vector<Nanos>> sends;
  std::ifstream in(path);
  std::string line, id;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    long long send = 0;
    std::size_t index = 0;
    char buf[128];
    if (std::sscanf(line.c_str(), "%lld %127s %zu", &send, buf, &index) != 3) continue;
    auto& v = sends[buf];
    if (v.size() <= index) v.resize(index + 1, -1);
    v[index] = send;
  }
  return sends;
}

void run_level(int streams, double itl_ms, double seconds, bool stagger) {
  using namespace sb;
  using namespace sb::bench;
  const std::string log_path = "/tmp/servebench-fidelity-" + std::to_string(getpid()) + ".log";
  Sim sim({"--cost", "fixed", "--ttft-ms", "0", "--itl-ms", std::to_string(itl_ms), "--token-log", log_path}, 0);
  pin_to_core(1);
  Runner runner(client_options(sim.port));
  const int tokens = std::max(2, static_cast<int>(seconds * 1000.0 / itl_ms));
  BenchStage stage(static_cast<std::size_t>(streams), tokens, std::nullopt);
  // Staggered starts spread the streams over one ITL period, so the simulator does not emit every
  // stream's token at the same instant (lockstep bursts measure queueing, not timestamp accuracy).
  if (stagger) {
    for (int i = 0; i < streams; ++i) {
      stage.in.requests[static_cast<std::size_t>(i)].offset_ns = static_cast<Nanos>(itl_ms * 1e6 * i / streams);
    }
  }
  const StageOutput out = runner.run_stage(stage.in, {}, {});
  sim.stop();  // flushes the token log
  const auto sends = read_token_log(log_path);
  std::remove(log_path.c_str());
  std::vector<double> diff_ms, lat_ms;
  for (const auto& r : out.records) {
    const auto it = sends.find(stage.in.requests[r.index].id);
    if (!r.ok() || it == sends.end() || it->second.size() != r.token_ns.size()) continue;
    const auto& s = it->second;
    for (std::size_t i = 0; i < s.size(); ++i) {
      lat_ms.push_back(ns_to_ms(out.t0_ns + r.token_ns[i] - s[i]));
      if (i > 0) diff_ms.push_back(std::abs(ns_to_ms((r.token_ns[i] - r.token_ns[i - 1]) - (s[i] - s[i - 1]))));
    }
  }
  const Tally t = tally(out);
  std::printf("%s ", stagger ? "staggered" : "lockstep ");
  std::printf("%6d streams itl %5.1f ms: ok %zu failed %zu, pairs %zu | |ITL diff| p50 %.3f p99 %.3f max %.3f ms"
              " | recv-send p50 %.3f p99 %.3f ms %s\n",
              streams, itl_ms, t.ok, t.failed, diff_ms.size(), percentile(diff_ms, 50), percentile(diff_ms, 99),
              diff_ms.empty() ? NAN : *std::max_element(diff_ms.begin(), diff_ms.end()), percentile(lat_ms, 50),
              percentile(lat_ms, 99), t.first_error.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  std::vector<std::pair<int, double>> levels;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const auto colon = a.find(':');
    levels.emplace_back(std::stoi(a.substr(0, colon)), colon == std::string::npos ? 20.0 : std::stod(a.substr(colon + 1)));
  }
  if (levels.empty()) levels = {{1000, 20.0}, {4000, 80.0}};
  sb::raise_nofile_limit(sb::fds_needed_for(8192));  // the sim child inherits it
  for (const auto& [streams, itl] : levels) {
    run_level(streams, itl, seconds, true);
    run_level(streams, itl, seconds, false);
  }
  return 0;
}
