#include "analyze/tune_rank.hpp"

#include <algorithm>
#include <cmath>

namespace sb::analyze {
namespace {

ConfigStanding stand(const results::Run* run, int gpus, const std::vector<Slo>& slos) {
  ConfigStanding st;
  st.gpus = gpus > 0 ? gpus : 1;
  if (run == nullptr) return st;
  st.ran = true;
  for (std::size_t i = 0; i < run->stages.size(); ++i) {
    const results::Stage& s = run->stages[i];
    if (s.completed == 0 || !stage_meets_slos(s, slos, &st.missing)) continue;
    if (!st.stage || s.output_throughput > st.output_throughput) {
      st.stage = i;
      st.output_throughput = s.output_throughput;
      st.ttft_p99_ms = s.percentile(results::Metric::ttft, 99);
    }
  }
  return st;
}

bool tied(double a, double b, double tolerance) { return std::abs(a - b) <= tolerance * std::max(a, b); }

}  // namespace

bool stage_meets_slos(const results::Stage& s, const std::vector<Slo>& slos, std::vector<std::string>* missing) {
  bool ok = true;
  for (const auto& slo : slos) {
    const std::optional<double> v = results::metric_by_name(s, slo.metric);
    if (!v) {
      if (missing && std::find(missing->begin(), missing->end(), slo.metric) == missing->end())
        missing->push_back(slo.metric);
      ok = false;
    } else if (!(*v <= slo.limit_ms)) {
      ok = false;
    }
  }
  return ok;
}

TuneRanking rank_configs(const RankInput& in) {
  TuneRanking r;
  r.tie_tolerance = in.tie_tolerance;
  std::vector<std::size_t> meeting;
  for (std::size_t c = 0; c < in.runs.size(); ++c) {
    r.standings.push_back(stand(in.runs[c], c < in.gpus.size() ? in.gpus[c] : 1, in.slos));
    if (r.standings.back().stage) meeting.push_back(c);
  }
  const bool any_ran = std::any_of(r.standings.begin(), r.standings.end(), [](const auto& s) { return s.ran; });
  if (meeting.empty()) {
    r.reason = any_ran ? BestReason::none_meets : BestReason::none_ran;
    return r;
  }
  const auto& st = r.standings;
  const auto ttft = [&](std::size_t c) { return st[c].ttft_p99_ms.value_or(INFINITY); };
  // The highest throughput; among those within the tolerance of it, fewer GPUs, then lower TTFT p99,
  // then the order given. (Not a sort: "within the tolerance" is not transitive.)
  const auto pick = [&](std::vector<std::size_t>& from) {
    double top = 0;
    for (const std::size_t c : from) top = std::max(top, st[c].output_throughput);
    std::size_t chosen = from.size();
    for (std::size_t k = 0; k < from.size(); ++k) {
      const std::size_t c = from[k];
      if (!tied(st[c].output_throughput, top, in.tie_tolerance)) continue;
      if (chosen == from.size()) {
        chosen = k;
        continue;
      }
      const std::size_t o = from[chosen];
      if (st[c].gpus < st[o].gpus || (st[c].gpus == st[o].gpus && ttft(c) < ttft(o))) chosen = k;
    }
    const std::size_t c = from[chosen];
    from.erase(from.begin() + static_cast<std::ptrdiff_t>(chosen));
    return c;
  };
  r.best = pick(meeting);
  if (meeting.empty()) {
    r.reason = BestReason::only_one_meets;
    return r;
  }
  r.runner_up = pick(meeting);
  const std::size_t b = *r.best, n = *r.runner_up;
  if (!tied(st[b].output_throughput, st[n].output_throughput, in.tie_tolerance))
    r.reason = BestReason::highest_throughput;
  else if (st[b].gpus != st[n].gpus)
    r.reason = BestReason::tie_fewer_gpus;
  else if (ttft(b) < ttft(n))
    r.reason = BestReason::tie_lower_ttft;
  else
    r.reason = BestReason::tie_first_listed;
  return r;
}

}  // namespace sb::analyze
