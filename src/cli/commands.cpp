#include "cli/commands.hpp"

#include <array>
#include <cstdio>
#include <exception>

#include "core/error.hpp"

namespace sb::cli {

std::span<const Command> commands() {
  static constexpr std::array<Command, 13> table{{
      {"run", "load test an OpenAI-compatible server (staircase of concurrency or request rates)", nullptr, run_cmd},
      {"sim", "serve a simulated continuous-batching LLM server (OpenAI-compatible)", sim_cmd},
      {"demo", "run a staircase against the embedded simulator, print the table and the knee", nullptr, demo_cmd},
      {"report", "capacity analysis of results: knee, regions, HTML report", report_cmd},
      {"compare", "baseline vs tuned: deltas, significance, CI gate (--fail-if)", compare_cmd},
      {"kernels", "rank GPU kernels from rocprof / Nsight Systems / PyTorch traces, per load stage", kernels_cmd},
      {"tokenize", "encode/decode/count text with a HuggingFace tokenizer.json", tokenize_cmd},
      {"tune", "start the server per configuration of a grid, run the staircase, profile, compare", nullptr, tune_cmd},
      {"predict", "the staircase `run` would send, played through the simulated engine in virtual time (no server)",
       predict_cmd},
      {"calibrate", "fit the simulator's cost parameters to a measured staircase; writes an engine TOML", calibrate_cmd},
      {"selftest", "the client's own ceiling on this machine (events/s per thread, clock, dispatch lag)", selftest_cmd},
      {"merge", "merge the shards of a sharded run (run --shard I/N) into one sweep document", merge_cmd},
      {"k8s-job", "write a Kubernetes Indexed Job that runs a staircase as N shards", k8s_job_cmd},
  }};
  return table;
}

int run_guarded(const Command& c, int argc, char** argv, std::stop_token stop) {
  try {
    return c.stoppable ? c.stoppable(argc, argv, std::move(stop)) : c.fn(argc, argv);
  } catch (const UserError& e) {
    std::fprintf(stderr, "servebench %s: %s\n", c.name, e.what());
    return to_int(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "servebench %s: internal error: %s\n", c.name, e.what());
    return to_int(ExitCode::internal_error);
  }
}

}  // namespace sb::cli
