// `servebench tune`: options -> orchestrate::run_tune (the loop over configurations) -> tunesum's
// cross-configuration outputs -> exit code (docs/tune.md, docs/exit-codes.md).
#include "cli/ceiling_probe.hpp"
#include "cli/commands.hpp"
#include "cli/tune_options.hpp"
#include "core/exit_codes.hpp"
#include "orchestrate/tune_loop.hpp"
#include "orchestrate/tune_outputs.hpp"

namespace sb::cli {

int tune_cmd(int argc, char** argv, std::stop_token stop) {
  ParseInput in;
  in.args.assign(argv + 1, argv + argc);
  std::optional<TuneOptions> opt = parse_tune_options(in);
  if (!opt) return to_int(ExitCode::ok);  // --help
  pipeline::RunConfig& run = opt->params.run;
  // One probe for every configuration: the client machine does not change between them.
  if (run.selftest && !stop.stop_requested())
    run.client_ceiling = ceiling_for_run(resolved_threads(run.client), stderr);
  const orchestrate::TuneResult result = orchestrate::run_tune(opt->params, orchestrate::TuneIo{}, stop);
  const orchestrate::TuneOutputsRequest req{result.configs, opt->params.output_dir, opt->slos, opt->gpus_per_config};
  const ExitCode outputs = orchestrate::write_tune_outputs(req, stdout, stderr);
  if (result.interrupted) return to_int(ExitCode::aborted);
  // A configuration that did not start is the server's (or its flags') problem, as with run's preflight.
  if (result.failed > 0) return to_int(ExitCode::unreachable);
  if (outputs != ExitCode::ok) return to_int(outputs);
  return to_int(result.worst_run);
}

}  // namespace sb::cli
