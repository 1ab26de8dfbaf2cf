// `servebench run`: options -> RunConfig -> pipeline::run -> exit code (docs/exit-codes.md).
#include <string>
#include <vector>

#include "cli/ceiling_probe.hpp"
#include "cli/commands.hpp"
#include "pipeline/run_analysis.hpp"
#include "cli/run_options.hpp"
#include "pipeline/run_pipeline.hpp"
#include "core/exit_codes.hpp"

namespace sb::cli {

int run_cmd(int argc, char** argv, std::stop_token stop) {
  ParseInput in;
  in.args.assign(argv + 1, argv + argc);
  std::optional<RunConfig> cfg = parse_run_options(in);
  if (!cfg) return to_int(ExitCode::ok);  // --help
  if (cfg->selftest && !stop.stop_requested()) cfg->client_ceiling = ceiling_for_run(resolved_threads(cfg->client), stderr);
  const pipeline::RunResult result = pipeline::run(*cfg, pipeline::RunIo{}, std::move(stop));
  // The knee line, as the sweep's `analysis` field has it; an aborted run has none.
  if (result.analysis) pipeline::print_knee(stdout, *result.analysis);
  return to_int(result.code);
}

}  // namespace sb::cli
