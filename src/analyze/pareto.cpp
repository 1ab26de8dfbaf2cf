#include "analyze/pareto.hpp"

namespace sb::analyze {

std::vector<ParetoPoint> pareto_points(const std::vector<const results::Run*>& runs, const std::vector<int>& gpus) {
  std::vector<ParetoPoint> out;
  for (std::size_t c = 0; c < runs.size(); ++c) {
    if (runs[c] == nullptr) continue;
    const double gpu_count = c < gpus.size() && gpus[c] > 0 ? gpus[c] : 1;
    for (std::size_t s = 0; s < runs[c]->stages.size(); ++s) {
      const results::Stage& st = runs[c]->stages[s];
      const auto& tpot = st.stats(results::Metric::tpot);
      if (st.completed == 0 || !tpot || !tpot->mean || !(*tpot->mean > 0)) continue;
      out.push_back({c, s, 1000.0 / *tpot->mean, st.output_throughput / gpu_count, false, std::nullopt});
    }
  }
  mark_dominated(out);
  return out;
}

void mark_dominated(std::vector<ParetoPoint>& points) {
  for (auto& p : points) {
    p.dominated = false;
    p.dominated_by.reset();
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = 0; j < points.size(); ++j) {
      const ParetoPoint &p = points[i], &q = points[j];
      const bool no_worse = q.tok_s_per_user >= p.tok_s_per_user && q.tok_s_per_gpu >= p.tok_s_per_gpu;
      const bool better = q.tok_s_per_user > p.tok_s_per_user || q.tok_s_per_gpu > p.tok_s_per_gpu;
      if (i != j && no_worse && better) {
        points[i].dominated = true;
        points[i].dominated_by = j;
        break;
      }
    }
  }
}

}  // namespace sb::analyze
