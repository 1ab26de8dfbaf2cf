// `servebench run`: options -> RunConfig -> run_pipeline -> exit code (docs/exit-codes.md).
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/run_options.hpp"
#include "cli/run_pipeline.hpp"
#include "core/exit_codes.hpp"

namespace sb::cli {

int run_cmd(int argc, char** argv) {
  ParseInput in;
  in.args.assign(argv + 1, argv + argc);
  const std::optional<RunConfig> cfg = parse_run_options(in);
  if (!cfg) return to_int(ExitCode::ok);  // --help
  return to_int(run_pipeline(*cfg, PipelineIo{}).code);
}

}  // namespace sb::cli
