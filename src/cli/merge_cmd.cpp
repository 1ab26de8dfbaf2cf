// servebench merge DIR|FILES... -o merged.json: the shards of one sharded run (docs/distributed.md)
// as one sweep document, then the staircase table, the warnings and the knee, as a run prints them.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/exit_codes.hpp"
#include "pipeline/shard_merge.hpp"
#include "report/shard_merge_json.hpp"
#include "report/staircase_table.hpp"

namespace sb::cli {

int merge_cmd(int argc, char** argv) {
  pipeline::MergeConfig cfg;
  CLI::App app{"Merge the shards of one sharded run (servebench run --shard I/N) into one sweep document"};
  app.add_option("inputs", cfg.inputs, "the shards' sweep documents, or the folder holding them")->required();
  app.add_option("-o,--output-json", cfg.output_json, "the merged sweep document")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? to_int(ExitCode::ok) : to_int(ExitCode::config_error);
  }
  const pipeline::MergeOutcome out = pipeline::merge_shard_files(cfg);
  std::fputs(report::format_staircase_table(out.load_mode, out.merged.stages).c_str(), stdout);
  std::fputs(report::format_merge_warnings(out.merged).c_str(), stderr);
  if (out.analysis) pipeline::print_knee(stdout, *out.analysis);
  std::fprintf(stderr, "merged %d shards (plan %s) -> wrote %s\n", out.merged.shard_count, out.merged.plan_hash.c_str(),
               cfg.output_json.c_str());
  return to_int(ExitCode::ok);
}

}  // namespace sb::cli
