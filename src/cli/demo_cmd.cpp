// `servebench demo`: the zero-setup main job. Starts the simulator in-process on a free loopback
// port (fixed costs with a server-side concurrency limit, so the curve has a knee), runs the
// staircase 1 2 4 8 16 32 64 through the same pipeline as `servebench run`, prints the table and
// the knee, and writes the sweep JSON under ./servebench-results/. About 40 s.
#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <memory>

#include "analyze/knee.hpp"
#include "cli/commands.hpp"
#include "cli/run_options.hpp"
#include "cli/run_pipeline.hpp"
#include "core/error.hpp"
#include "sim/fixed_cost.hpp"
#include "sim/server.hpp"

namespace sb::cli {

namespace {

constexpr int kServerSlots = 16;  // the simulated server batches at most 16 requests: the knee

std::unique_ptr<sim::Server> start_simulator() {
  sim::FixedCostOptions costs;
  costs.ttft_ms = 40;
  costs.prefill_us_per_token = 20;
  costs.itl_ms = 8;
  costs.max_concurrency = kServerSlots;
  sim::ServerOptions opt;
  opt.port = 0;
  opt.served_model_name = "sim-model";
  auto server = std::make_unique<sim::Server>(opt, std::make_unique<sim::FixedCostBackend>(costs));
  server->start();
  return server;
}

RunConfig demo_config(std::uint16_t port, const std::string& output_json) {
  ParseInput in;
  in.args = {"--port", std::to_string(port), "--num-prompts", "64", "--random-input-len", "64",
             "--random-output-len", "32", "--concurrency", "1", "2", "4", "8", "16", "32", "64",
             "--output-json", output_json, "--label", "demo"};
  in.env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  in.cwd = "/nonexistent";  // a ./servebench.toml meant for real servers must not leak in
  return *parse_run_options(in);
}

void print_knee(const RunResult& r) {
  std::vector<double> load, rps, ttft;
  for (const StageSummary& s : r.stages) {
    load.push_back(static_cast<double>(s.load.max_concurrency.value_or(0)));
    rps.push_back(s.request_throughput);
    ttft.push_back(s.ttft.percentile_ms(50));
  }
  const analyze::CurveAnalysis a = analyze::analyze_curve({load, rps, ttft});
  if (a.knee) {
    std::printf("\nknee: concurrency %g (%.1f req/s): %s\n", load[*a.knee], rps[*a.knee], a.knee_reason.c_str());
  } else {
    std::printf("\nknee: none within the tested range: %s\n", a.knee_reason.c_str());
  }
  std::printf("(the simulated server runs at most %d requests at once; beyond that they queue, so TTFT grows)\n",
              kServerSlots);
}

}  // namespace

int demo_cmd(int argc, char** argv) {
  if (argc > 1) {
    std::printf("usage: servebench demo\n\nRuns a concurrency staircase against an embedded simulated server\n"
                "and writes the results under ./servebench-results/.\n");
    return to_int(std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ? ExitCode::ok
                                                                                     : ExitCode::config_error);
  }
  std::filesystem::create_directories("servebench-results");
  const std::string output =
      fmt::format("servebench-results/demo-{}.json", static_cast<long long>(std::time(nullptr)));
  auto server = start_simulator();
  std::fprintf(stderr, "servebench demo: simulated server on http://127.0.0.1:%u (fixed costs: TTFT 40 ms, "
               "ITL 8 ms, %d slots)\n", static_cast<unsigned>(server->port()), kServerSlots);
  const RunConfig cfg = demo_config(server->port(), output);
  PipelineIo io;
  const RunResult result = run_pipeline(cfg, io);
  server->stop();
  if (!result.stages.empty()) print_knee(result);
  std::printf("results: %s\n", output.c_str());
  return to_int(result.code);
}

}  // namespace sb::cli
