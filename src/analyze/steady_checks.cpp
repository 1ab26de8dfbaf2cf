#include "analyze/steady_checks.hpp"

#include <algorithm>
#include <cmath>

namespace sb::analyze {

const char* to_string(SteadyIssue i) noexcept {
  switch (i) {
    case SteadyIssue::no_window: return "no_window";
    case SteadyIssue::unstable_throughput: return "unstable_throughput";
    case SteadyIssue::unstable_ttft: return "unstable_ttft";
    case SteadyIssue::littles_law: return "littles_law";
    case SteadyIssue::not_held: return "not_held";
    case SteadyIssue::rate_not_held: return "rate_not_held";
    case SteadyIssue::drain_dominated: return "drain_dominated";
  }
  return "unknown";
}

double spread_limit(const SteadyLimits& lim, int sub_min_completed) {
  if (sub_min_completed <= 0) return lim.spread;
  return std::max(lim.spread, 3.0 / std::sqrt(static_cast<double>(sub_min_completed)));
}

namespace {

// A prompt-bounded stage whose window is a small part of it, or whose open-loop rate only falls
// short because of the drain tail. Open loop: the server kept up when TTFT stayed flat across the
// window (queueing beyond capacity shows as a rising TTFT); completions counted in a window barely
// longer than the latency would understate the rate, so they are not the test.
void drain_check(const StageSummary& s, const SteadyState& st, const SteadyLimits& lim,
                 std::vector<SteadyFinding>& out) {
  if (st.duration_bounded) return;
  if (!s.load.open_loop()) {
    const double share = s.duration_s > 0 ? st.window_s / s.duration_s : 0;
    if (share < lim.window_share) out.push_back({SteadyIssue::drain_dominated, share, lim.window_share});
    return;
  }
  if (st.rate_fraction && *st.rate_fraction < lim.rate && st.ttft_spread <= spread_limit(lim, st.sub_min_completed))
    out.push_back({SteadyIssue::drain_dominated, *st.rate_fraction, lim.rate});
}

// Sub-windows (and the window, for Little's law) need to span a few request latencies: in a shorter
// one, completions come in lumps (a closed loop's first latency has none at all) and requests started
// near its end finish outside it, so a spread or a Little's-law gap says nothing about the server.
bool long_enough_to_judge(const SteadyState& st) {
  const double e2el_s = st.e2el.mean_ms / 1000;
  if (!(e2el_s > 0)) return true;
  const std::size_t parts = std::max<std::size_t>(1, st.sub_request_throughput.size());
  return st.window_s / static_cast<double>(parts) >= 2 * e2el_s;
}

}  // namespace

std::vector<SteadyFinding> steady_findings(const StageSummary& s, const SteadyLimits& lim) {
  std::vector<SteadyFinding> out;
  if (!s.steady || s.sent == 0) return out;
  const SteadyState& st = *s.steady;
  if (st.window_s <= 0) {
    out.push_back({SteadyIssue::no_window, 0, 0});
    return out;
  }
  drain_check(s, st, lim, out);
  if (st.held_fraction && *st.held_fraction < lim.held)
    out.push_back({SteadyIssue::not_held, *st.held_fraction, lim.held});
  // Only over a duration-bounded window: a short one is biased low by one latency (see drain_check).
  if (st.duration_bounded && st.steady_rate_fraction && *st.steady_rate_fraction < lim.rate)
    out.push_back({SteadyIssue::rate_not_held, *st.steady_rate_fraction, lim.rate});
  const bool judged = long_enough_to_judge(st);
  if (judged && st.sub_min_completed >= lim.min_sub_completed) {
    const double limit = spread_limit(lim, st.sub_min_completed);
    if (st.throughput_spread > limit) out.push_back({SteadyIssue::unstable_throughput, st.throughput_spread, limit});
    if (st.ttft_spread > limit) out.push_back({SteadyIssue::unstable_ttft, st.ttft_spread, limit});
  }
  if (judged && st.completed > 0 && std::abs(st.littles_law_ratio - 1) > lim.littles_law)
    out.push_back({SteadyIssue::littles_law, st.littles_law_ratio, lim.littles_law});
  return out;
}

}  // namespace sb::analyze
