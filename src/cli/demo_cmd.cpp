// `servebench demo`: the zero-setup main job. Starts the simulator in-process on a free loopback
// port (the continuous-batching engine: llama-3-8b on an H100, run 10x faster than the modelled
// GPU so the demo takes about a minute), runs the concurrency staircase 1 2 4 … 256 through the
// same pipeline as `servebench run`, prints the table and the knee, and writes the sweep JSON and
// the HTML report under ./servebench-results/. `--quick`: a few seconds, for tests and a first look.
#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "pipeline/run_analysis.hpp"
#include "cli/run_options.hpp"
#include "pipeline/run_pipeline.hpp"
#include "cli/sim_engine_flags.hpp"
#include "core/error.hpp"
#include "sim/server.hpp"

namespace sb::cli {

namespace {

constexpr double kTimeScale = 10;  // eng measured the knee through HTTP at this speed-up

struct DemoPlan {
  std::vector<std::string> concurrency;
  int num_prompts = 0;
  int input_len = 0, output_len = 0;
};

DemoPlan demo_plan(bool quick) {
  if (quick) return {{"1", "4", "16", "64"}, 32, 128, 16};
  return {{"1", "2", "4", "8", "16", "32", "64", "128", "256"}, 512, 256, 64};
}

std::unique_ptr<sim::Server> start_simulator() {
  EngineFlags engine;
  engine.model_preset = "llama-3-8b";
  engine.gpu_preset = "h100";
  engine.time_scale = kTimeScale;
  sim::ServerOptions opt;
  opt.port = 0;
  opt.served_model_name = "llama-3-8b-sim";
  auto server = std::make_unique<sim::Server>(opt, make_engine_backend(engine));
  server->start();
  return server;
}

RunConfig demo_config(std::uint16_t port, const DemoPlan& plan, const std::string& output_json) {
  ParseInput in;
  in.args = {"--port", std::to_string(port), "--num-prompts", std::to_string(plan.num_prompts),
             "--random-input-len", std::to_string(plan.input_len), "--random-output-len",
             std::to_string(plan.output_len), "--output-json", output_json, "--label", "demo", "--concurrency"};
  in.args.insert(in.args.end(), plan.concurrency.begin(), plan.concurrency.end());
  in.env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  in.cwd = "/nonexistent";  // a ./servebench.toml meant for real servers must not leak in
  return *parse_run_options(in);
}

int usage(const std::string& arg) {
  std::printf("usage: servebench demo [--quick]\n\nRuns a concurrency staircase against an embedded simulated "
              "server (llama-3-8b on an H100,\n%gx faster than real time) and writes the sweep JSON and an HTML "
              "report under\n./servebench-results/. --quick: 4 short stages, a few seconds.\n", kTimeScale);
  return to_int(arg == "--help" || arg == "-h" ? ExitCode::ok : ExitCode::config_error);
}

}  // namespace

int demo_cmd(int argc, char** argv) {
  const bool quick = argc == 2 && std::string(argv[1]) == "--quick";
  if (argc > 1 && !quick) return usage(argv[1]);
  std::filesystem::create_directories("servebench-results");
  const std::string stem = fmt::format("servebench-results/demo-{}", static_cast<long long>(std::time(nullptr)));
  const DemoPlan plan = demo_plan(quick);
  auto server = start_simulator();
  std::fprintf(stderr, "servebench demo: simulated llama-3-8b on an H100 (%gx time scale) at http://127.0.0.1:%u\n",
               kTimeScale, static_cast<unsigned>(server->port()));
  const RunConfig cfg = demo_config(server->port(), plan, stem + ".json");
  const pipeline::RunResult result = pipeline::run_pipeline(cfg, pipeline::PipelineIo{});
  server->stop();
  if (result.stages.empty()) return to_int(result.code);
  pipeline::analyze_sweep({stem + ".json", stem + ".html", true});
  std::printf("(the simulator runs %gx faster than the modelled GPU: multiply latencies by %g, divide rates by %g)\n",
              kTimeScale, kTimeScale, kTimeScale);
  std::printf("results: %s.json\nreport:  %s.html\n", stem.c_str(), stem.c_str());
  return to_int(result.code);
}

}  // namespace sb::cli
