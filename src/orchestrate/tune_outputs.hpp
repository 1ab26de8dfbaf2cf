#pragma once
// What `servebench tune` writes across its configurations once the loop is done (docs/tune.md "What tune writes across configurations"):
// reads each configuration's sweep document and profiler files, analyses them together
// (analyze/tune_analysis), prints the summary, and writes summary.json, summary.csv and report.html
// into the output folder. The loop (orchestrate/tune_loop) calls it once at the end.
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "analyze/capacity.hpp"
#include "core/exit_codes.hpp"

namespace sb::orchestrate {

struct TunedConfig {
  std::string name;                                         // "baseline" / "max_num_seqs=128,..." / the TOML table name
  std::vector<std::pair<std::string, std::string>> params;  // the grid values, in order
  std::filesystem::path sweep_json;                         // empty when the configuration failed
  std::vector<std::filesystem::path> kernel_traces;         // profiler files found for it (may be empty)
  std::string failure;                                      // empty when it ran; else one line
};

struct TuneOutputsRequest {
  std::vector<TunedConfig> configs;  // [0] is the baseline
  std::filesystem::path output_dir;
  std::vector<analyze::Slo> slos;    // from --slo
  int gpus_per_config = 1;           // for tokens/s per GPU
};

// The file names it writes in output_dir.
inline constexpr const char* kTuneSummaryJson = "summary.json";
inline constexpr const char* kTuneSummaryCsv = "summary.csv";
inline constexpr const char* kTuneReportHtml = "report.html";

// Prints the summary to `out`; warnings (an unreadable sweep or trace: the configuration counts as
// failed, the trace is left out) and errors to `err`, one line each. ok when the three files were
// written; write_failed (one line naming the file) when one could not be; config_error without
// configurations.
ExitCode write_tune_outputs(const TuneOutputsRequest& req, std::FILE* out, std::FILE* err);

}  // namespace sb::orchestrate
