#include "analyze/capacity.hpp"

#include <charconv>
#include <cmath>

#include "core/error.hpp"

namespace sb::analyze {
namespace {

std::optional<int> replicas(double target, double per_replica) {
  if (!(per_replica > 0)) return std::nullopt;
  return static_cast<int>(std::ceil(target / per_replica - 1e-9));
}

// The per-request field an SLO constrains: "ttft_p99_ms" -> ttft.
double request_field(const results::Request& r, const std::string& metric) {
  if (metric.find("ttft") != std::string::npos) return r.ttft_ms;
  if (metric.find("tpot") != std::string::npos) return r.tpot_ms;
  if (metric.find("e2el") != std::string::npos) return r.e2el_ms;
  return NAN;
}

std::optional<double> per_request_goodput(const results::Run& run, std::size_t stage,
                                          const std::vector<Slo>& slos) {
  if (run.requests.empty() || run.stages[stage].duration_s <= 0) return std::nullopt;
  int good = 0;
  for (const auto& r : run.requests) {
    if (r.stage != static_cast<int>(stage) || !r.ok) continue;
    bool meets = true;
    for (const Slo& s : slos) {
      const double v = request_field(r, s.metric);
      if (std::isnan(v)) return std::nullopt;  // an SLO on a metric without per-request values
      // TPOT is undefined for 1-token outputs (-1): vLLM counts those as meeting it.
      if (v >= 0 && v > s.limit_ms) meets = false;
    }
    good += meets;
  }
  return good / run.stages[stage].duration_s;
}

}  // namespace

std::vector<Slo> parse_slos(std::string_view text, std::string_view flag) {
  std::vector<Slo> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view term = text.substr(pos, end - pos);
    pos = end + 1;
    if (term.empty()) continue;
    const auto eq = term.find('=');
    Slo s;
    s.metric = std::string(term.substr(0, eq));
    const char* first = eq == std::string_view::npos ? nullptr : term.data() + eq + 1;
    const char* last = term.data() + term.size();
    auto [ptr, ec] = first ? std::from_chars(first, last, s.limit_ms) : std::from_chars_result{};
    if (!first || s.metric.empty() || ec != std::errc{} || ptr != last || s.limit_ms < 0)
      throw UserError(std::string(flag) + ": bad term \"" + std::string(term) +
                      "\" (expected METRIC=MS, e.g. ttft_p99_ms=500)");
    out.push_back(std::move(s));
  }
  if (out.empty()) throw UserError(std::string(flag) + ": no SLO given");
  return out;
}

ReplicaPlan plan_replicas(double target_qps, const results::Run& run, const CurveAnalysis& curve) {
  ReplicaPlan p;
  p.target_qps = target_qps;
  if (curve.knee) {
    p.knee_rps = run.stages[*curve.knee].request_throughput;
    p.replicas_at_knee = replicas(target_qps, *p.knee_rps);
  }
  if (curve.peak) {
    p.peak_rps = run.stages[*curve.peak].request_throughput;
    p.replicas_at_peak = replicas(target_qps, p.peak_rps);
  }
  return p;
}

SloAnswer highest_meeting_slo(const results::Run& run, const std::vector<Slo>& slos) {
  SloAnswer a;
  for (const Slo& s : slos) {
    if (!run.stages.empty() && !results::metric_by_name(run.stages.front(), s.metric)) a.missing.push_back(s.metric);
  }
  if (!a.missing.empty()) {
    a.goodput_source = GoodputSource::missing_metrics;
    return a;
  }
  for (std::size_t i = 0; i < run.stages.size(); ++i) {
    bool meets = run.stages[i].completed > 0;
    for (const Slo& s : slos) {
      const auto v = results::metric_by_name(run.stages[i], s.metric);
      if (!v || *v > s.limit_ms) meets = false;
    }
    if (meets) a.stage = i;
  }
  if (!a.stage) {
    a.goodput_source = GoodputSource::no_stage_meets;
    return a;
  }
  const auto& st = run.stages[*a.stage];
  a.request_throughput = st.request_throughput;
  if ((a.goodput = per_request_goodput(run, *a.stage, slos))) {
    a.goodput_source = GoodputSource::per_request_records;
  } else if ((a.goodput = st.request_goodput)) {
    a.goodput_source = GoodputSource::request_goodput;
  } else {
    a.goodput_source = GoodputSource::not_measurable;
  }
  return a;
}

}  // namespace sb::analyze
