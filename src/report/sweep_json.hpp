#pragma once
// The sweep document of docs/results-format.md §1-2 (`--output-json`): the whole run in one file,
// rewritten after every stage (atomically) so a crash or Ctrl-C keeps the finished stages. The only
// writer of the document: the final write carries the analysis too.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/load_search.hpp"
#include "metrics/stage_summary.hpp"
#include "report/run_context.hpp"

namespace sb::report {

struct SweepMeta {
  std::int64_t created_unix_s = 0;         // when the document is written
  bool aborted = false;                    // run stopped by Ctrl-C
  std::optional<std::string> requests_file;  // per-request JSONL, relative to the document's folder
  nlohmann::ordered_json analysis{};       // the run's analysis (report/analysis_json.hpp); null = none yet
  nlohmann::ordered_json repeats{};        // --repeats > 1: the spread per stage (report/repeat_text.hpp); null = not written
  std::optional<LoadSearchRecord> load_search{};  // --concurrency/--request-rate auto: how stages were chosen
};

nlohmann::ordered_json sweep_json(const RunContext& ctx, const std::vector<StageSummary>& stages,
                                  const SweepMeta& meta);

// One stage: vLLM's keys (all four latency metrics, percentiles 50/90/95/99 and the requested
// ones, ascending), then the `servebench` object.
nlohmann::ordered_json sweep_stage_json(const RunContext& ctx, const StageSummary& s);

// Writes `doc` (indented, NaN/Infinity as null) to `path` with report/atomic_file (temp + fsync +
// rename), so readers never see half a file. Throws sb::UserError (write_failed) naming the path.
void write_sweep_json(const std::string& path, const nlohmann::ordered_json& doc);

// ISO-8601 UTC text, e.g. "2026-11-30T03:15:00Z".
std::string iso8601_utc(std::int64_t unix_s);

}  // namespace sb::report
