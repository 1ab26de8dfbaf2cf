#pragma once
// The files one `servebench run` writes, as the run progresses: the per-request JSONL (one line per
// request as it finishes), the sweep document and the --csv table (both rewritten after every
// stage), and vLLM's per-stage files with --save-result. Formatting is delegated to report/; this
// class only decides when and where.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/run_analysis.hpp"
#include "pipeline/run_config.hpp"
#include "load/load_search.hpp"
#include "results/from_summaries.hpp"
#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"
#include "report/jsonl_sink.hpp"
#include "report/run_context.hpp"

namespace sb::pipeline {

class RunOutputs {
 public:
  // Opens (truncates) the JSONL file. Throws sb::UserError naming a path that cannot be written.
  RunOutputs(const RunConfig& cfg, const report::RunContext& ctx);
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  // Thread-safe, never throws; flushed at once so a crash loses nothing.
  void append_record(std::size_t stage, const std::string& request_id, const RequestRecord& r);
  // After each stage: keeps the summary, rewrites the sweep document and the CSV, writes the vLLM file.
  // A searched staircase (--concurrency auto) adds stages out of load order: they are kept sorted.
  void stage_done(const StageSummary& s, const std::vector<RequestRecord>& records);
  // The search's record, written into the sweep document from the next write on.
  void set_load_search(const LoadSearchRecord& r) { load_search_ = r; }
  // At the end (also after Ctrl-C): final sweep document with `aborted`, and, when the run was not
  // aborted and has at least 2 stages, its analysis, which is also returned (nullopt: none).
  std::optional<AnalysedRun> finish(bool aborted);

  const std::vector<std::string>& written() const { return written_; }  // paths, for the closing note

 private:
  void write_sweep(bool aborted, nlohmann::ordered_json analysis = nullptr);
  results::RunInfo run_info(bool aborted) const;
  void write_csv();
  void note_written(const std::string& path);
  void write_vllm_file(const StageSummary& s, const std::vector<RequestRecord>& records);

  const RunConfig& cfg_;
  const report::RunContext& ctx_;
  std::vector<StageSummary> stages_;
  std::optional<LoadSearchRecord> load_search_;
  std::unique_ptr<report::JsonlSink> jsonl_;
  std::vector<std::string> written_;
};

}  // namespace sb::pipeline
