// `servebench run`: options -> RunConfig -> run_pipeline -> exit code (docs/exit-codes.md).
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/run_analysis.hpp"
#include "cli/run_options.hpp"
#include "cli/run_pipeline.hpp"
#include "core/exit_codes.hpp"

namespace sb::cli {

int run_cmd(int argc, char** argv) {
  ParseInput in;
  in.args.assign(argv + 1, argv + argc);
  const std::optional<RunConfig> cfg = parse_run_options(in);
  if (!cfg) return to_int(ExitCode::ok);  // --help
  const RunResult result = run_pipeline(*cfg, PipelineIo{});
  // The knee line and the sweep's `analysis` field; an aborted run keeps what it had.
  if (!cfg->output_json.empty() && !result.aborted && result.stages.size() >= 2) {
    analyze_sweep({cfg->output_json, "", true});
  }
  return to_int(result.code);
}

}  // namespace sb::cli
