#pragma once
// Capacity planning over one run: replicas needed for a target load, and the highest tested level
// that meets every SLO (with goodput there).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/knee.hpp"
#include "results/model.hpp"

namespace sb::analyze {

// One `--slo` term, e.g. "ttft_p99_ms=500": the stage metric `ttft_p99_ms` must be <= 500 ms.
struct Slo {
  std::string metric;     // as typed (looked up with results::Stage::value)
  double limit_ms = 0;
};

// Parses "ttft_p99_ms=500,tpot_p50_ms=50". Throws sb::UserError naming `flag` on bad input.
std::vector<Slo> parse_slos(std::string_view text, std::string_view flag = "--slo");

struct ReplicaPlan {
  double target_qps = 0;
  std::optional<double> knee_rps;      // throughput per replica at the knee
  std::optional<int> replicas_at_knee;
  double peak_rps = 0;                 // best plateau operating point (highest throughput)
  std::optional<int> replicas_at_peak;
};

ReplicaPlan plan_replicas(double target_qps, const results::Run& run, const CurveAnalysis& curve);

// Where the goodput at the SLO stage comes from, or why there is none (report/analysis_text.hpp words it).
enum class GoodputSource {
  missing_metrics,      // an SLO names a metric the results lack (SloAnswer::missing)
  no_stage_meets,       // no tested stage meets every SLO
  per_request_records,  // counted over the per-request records
  request_goodput,      // the run's own request_goodput (its --goodput SLOs)
  not_measurable,       // no per-request data and no request_goodput
};

struct SloAnswer {
  std::optional<std::size_t> stage;    // highest stage meeting every SLO (index into run.stages)
  std::vector<std::string> missing;    // SLO metrics absent from the results
  double request_throughput = 0;
  std::optional<double> goodput;       // req/s meeting the per-request SLOs, when measurable
  GoodputSource goodput_source = GoodputSource::not_measurable;
};

SloAnswer highest_meeting_slo(const results::Run& run, const std::vector<Slo>& slos);

}  // namespace sb::analyze
