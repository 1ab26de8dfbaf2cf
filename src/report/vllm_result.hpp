#pragma once
// One stage as vLLM's `--save-result` JSON (vLLM's vllm/benchmarks/serve.py): same keys, order, units and file name, so
// existing vLLM tooling reads our files. The sweep document reuses the key block (sweep_json.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"
#include "report/run_context.hpp"

namespace sb::report {

struct VllmStageOptions {
  std::vector<std::string> metrics;      // ttft, tpot, itl, e2el, client_queue_time, ...
  std::vector<double> percentiles;       // p<P> keys, in this order
  std::string date;                      // "YYYYMMDD-HHMMSS" (vllm_date)
  // Per-request arrays (dataset order). As in vLLM's vllm/benchmarks/serve.py, `latencies` and
  // `queue_times` are written whenever records are given; the other arrays only with save_detailed.
  const std::vector<RequestRecord>* records = nullptr;
  bool save_detailed = false;
  bool include_rtfx = true;              // vLLM writes rtfx (0.0 unless ASR); the sweep omits it
};

// The metrics vLLM (vllm/benchmarks/serve.py) reports for this stage: --percentile-metrics, plus client_queue_time
// when max_concurrency is set and e2el_including_client_queue when the rate is also finite;
// canonical order; inapplicable ones dropped.
std::vector<std::string> vllm_selected_metrics(const std::vector<std::string>& requested,
                                               const StageLoad& load);

nlohmann::ordered_json vllm_stage_json(const RunContext& ctx, const StageSummary& s,
                                       const VllmStageOptions& opt);

// The metric block only (mean_/median_/std_/p<P>_X_ms), appended to `out`.
void append_metric_keys(nlohmann::ordered_json& out, const StageSummary& s,
                        const std::vector<std::string>& metrics, const std::vector<double>& percentiles);

// vLLM's date text: local time "YYYYMMDD-HHMMSS".
std::string vllm_date(std::int64_t unix_s);

// {label or backend}-{rate}qps[-concurrency<C>]-{model basename}-{date}.json, as vllm/benchmarks/serve.py names them.
std::string vllm_result_filename(const RunContext& ctx, const StageLoad& load, const std::string& date);

// Writes `doc` as Python's json.dump would; `append` adds it after a "\n" when the file is not
// empty (vLLM --append-result). Creates missing folders. Throws sb::UserError naming the path.
void write_vllm_result(const std::string& path, const nlohmann::ordered_json& doc, bool append);

}  // namespace sb::report
