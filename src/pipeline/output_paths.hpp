#pragma once
// Every output path of a run checked before anything is sent (docs/reliability.md, "Disks"): an
// unwritable or missing folder, a name longer than the file system allows (NAME_MAX), a folder
// where a file should go, two outputs on one path. Found after stage 0, any of these lost the rest
// of the run. Missing folders are fine when they can be made (RunOutputs makes them, as vLLM makes
// --result-dir): the nearest existing one must be a writable folder.
#include <string>
#include <vector>

#include "metrics/stage_summary.hpp"

#include "core/problem.hpp"
#include "pipeline/run_config.hpp"
#include "report/run_context.hpp"

namespace sb::pipeline {

// The paths the configuration names (output_json, requests_jsonl, csv, result_dir,
// result_filename); problems by field. Leaves nothing behind (a probe file is made and removed).
Problems check_output_paths(const RunConfig& cfg);

// With --save-result, the vLLM file names of every stage, once preparation knows the model and the
// stages (a generated name holds the model's name): field "result_dir" (or "result_filename").
Problems check_result_file_names(const RunConfig& cfg, const report::RunContext& ctx,
                                 const std::vector<StageLoad>& loads);

// Whether `path` can be written as an output file: "" when it can, else why not (for a Problem).
std::string output_path_problem(const std::string& path);

}  // namespace sb::pipeline
