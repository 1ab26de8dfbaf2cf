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
#include "load/shard.hpp"
#include "results/from_summaries.hpp"
#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"
#include "report/jsonl_sink.hpp"
#include "report/run_context.hpp"

namespace sb::pipeline {

class RunOutputs {
 public:
  // Opens (truncates) the JSONL file and writes the empty sweep document and CSV header. Throws
  // sb::UserError naming a path that cannot be written (before any stage).
  RunOutputs(const RunConfig& cfg, const report::RunContext& ctx);
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  // Thread-safe, never throws; the line waits in memory for flush_records() (below).
  void append_record(std::size_t stage, const std::string& request_id, const RequestRecord& r);
  // Writes the lines append_record() gathered (one system call): after each pass of a worker's
  // event loop (exec/runner.hpp PassCallback), and at the end of each stage.
  void flush_records();
  // After each stage: keeps the summary, rewrites the sweep document and the CSV, writes the vLLM
  // file. Never throws for a write that fails (a full disk): the failure is kept, the summaries
  // stay in memory, and the next write (next stage, finish) tries again.
  // A searched staircase (--concurrency auto) adds stages out of load order: they are kept sorted.
  void stage_done(const StageSummary& s, const std::vector<RequestRecord>& records);
  // The search's record, written into the sweep document from the next write on.
  void set_load_search(const LoadSearchRecord& r) { load_search_ = r; }
  // --shard: the shard's record, written as the document's `shard` from the next write on.
  void set_shard(const ShardRecord& r) { shard_ = r; }
  // At the end (also after Ctrl-C): final sweep document with `aborted`, and, when the run was not
  // aborted and has at least 2 stages, its analysis, which is also returned (nullopt: none). vLLM
  // files that failed are tried once more; the JSONL is closed (and its close checked).
  std::optional<AnalysedRun> finish(bool aborted);

  // Paths written in their final form, for the closing note ("wrote ..."): never one that failed.
  std::vector<std::string> written() const;
  // One line per output that is missing or incomplete after finish(): the file, the system's
  // reason, and for the JSONL how many lines were lost. Empty when nothing was lost.
  std::vector<std::string> lost() const;

 private:
  struct PendingFile {  // a vLLM file whose write failed, kept to try again at the end
    std::string path;
    nlohmann::ordered_json doc;
  };

  void write_sweep(bool aborted, nlohmann::ordered_json analysis = nullptr);
  results::RunInfo run_info(bool aborted) const;
  void write_csv();
  void note_written(const std::string& path);
  // Runs `write`; a sb::UserError is kept as the path's failure instead of thrown once started.
  template <class Write>
  bool guarded(const std::string& path, Write&& write);
  std::string vllm_file_path(const StageSummary& s, const std::string& date);
  void write_vllm_file(const StageSummary& s, const std::vector<RequestRecord>& records);

  const RunConfig& cfg_;
  const report::RunContext& ctx_;
  std::vector<StageSummary> stages_;
  std::optional<LoadSearchRecord> load_search_;
  std::optional<ShardRecord> shard_;
  std::unique_ptr<report::JsonlSink> jsonl_;
  std::vector<std::string> written_;
  std::vector<std::string> used_names_;          // vLLM file names of this run, to keep them unique
  std::vector<std::pair<std::string, std::string>> failed_;  // path, why: failed at the last try
  std::vector<PendingFile> pending_;
  bool started_ = false;                         // past the constructor: failures are kept, not thrown
};

}  // namespace sb::pipeline
