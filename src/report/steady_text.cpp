#include "report/steady_text.hpp"

#include <fmt/format.h>

namespace sb::report {

std::string stage_load_name(const StageLoad& load) {
  if (!load.open_loop()) return load.max_concurrency ? fmt::format("c={}", *load.max_concurrency) : "rate inf";
  std::string name = fmt::format("rate {:g}", load.request_rate);
  if (load.max_concurrency) name += fmt::format(", c<={}", *load.max_concurrency);
  return name;
}

std::string format_steady_line(const StageSummary& s) {
  if (!s.steady) return "";
  const SteadyState& st = *s.steady;
  if (st.window_s <= 0) return "Steady state: no window (the target load was never applied)\n";
  std::string held;
  if (st.held_fraction) held = fmt::format("held {:.1f} % at c={}", *st.held_fraction * 100, st.target_in_flight);
  else held = stage_load_name(s.load);  // open loop: the window is the schedule itself
  return fmt::format("Steady state: window {:.2f}-{:.2f} s ({:.2f} s), {}, {:.2f} req/s, {:.1f} tok/s, TTFT p99 {:.2f} ms\n",
                     st.window_start_s, st.window_start_s + st.window_s, st.window_s, held, st.request_throughput,
                     st.output_throughput, st.ttft.percentile_ms(99));
}

namespace {

std::string pct(double fraction) { return fmt::format("{:.0f} %", fraction * 100); }

std::string finding_text(const StageSummary& s, const analyze::SteadyFinding& f) {
  using analyze::SteadyIssue;
  const SteadyState& st = *s.steady;
  switch (f.issue) {
    case SteadyIssue::no_window:
      return "no steady-state window (fewer requests than slots, or the target concurrency was never in flight)";
    case SteadyIssue::drain_dominated:
      if (s.load.open_loop())
        return fmt::format("achieved {:.2f} req/s of the offered {:g} ({}) because of the drain tail ({:.2f} s after "
                           "the last arrival at {:.2f} s), not the server (TTFT stayed flat); use --stage-seconds for "
                           "duration-bounded stages",
                           s.request_throughput, s.load.request_rate, pct(f.value),
                           s.duration_s - st.window_start_s - st.window_s, st.window_start_s + st.window_s);
      return fmt::format("the steady window is {} of the stage ({:.2f} of {:.2f} s; mean in flight {:.1f} of {}): most "
                         "of it is ramp-up and drain; use --stage-seconds for duration-bounded stages",
                         pct(f.value), st.window_s, s.duration_s, s.in_flight_mean, st.target_in_flight);
    case SteadyIssue::not_held:
      return fmt::format("c={} in flight for only {} of the window (mean {:.1f}): the client could not keep the slots "
                         "busy", st.target_in_flight, pct(f.value), st.mean_in_flight);
    case SteadyIssue::rate_not_held:
      return fmt::format("the window completed {:.2f} req/s of the offered {:g} ({}): the server is beyond capacity "
                         "at this rate (requests queue)", st.request_throughput, s.load.request_rate, pct(f.value));
    case SteadyIssue::unstable_throughput:
    case SteadyIssue::unstable_ttft: {
      const bool thr = f.issue == SteadyIssue::unstable_throughput;
      const auto& xs = thr ? st.sub_request_throughput : st.sub_ttft_median_ms;
      return fmt::format("not stable: {} in {} consecutive sub-windows {} ({} spread, limit {}); the stage had not "
                         "settled: lengthen it (--stage-seconds) or check the server",
                         thr ? "throughput (req/s)" : "TTFT median (ms)", xs.size(),
                         fmt::format("{:.2f}", fmt::join(xs, " ")), pct(f.value), pct(f.limit));
    }
    case SteadyIssue::littles_law:
      return fmt::format("Little's law off: throughput x mean latency = {:.2f} in flight, measured {:.2f} (ratio {:.2f}): "
                         "requests lost in accounting, or a window too short for the latency",
                         st.littles_law_ratio * st.mean_in_flight, st.mean_in_flight, f.value);
  }
  return "";
}

}  // namespace

std::string format_steady_warnings(const StageSummary& s, const std::vector<analyze::SteadyFinding>& findings) {
  std::string out;
  if (!s.steady) return out;
  for (const analyze::SteadyFinding& f : findings)
    out += fmt::format("warning: {}: {}\n", stage_load_name(s.load), finding_text(s, f));
  return out;
}

std::string format_steady_summary(const StageSummary& s) {
  return format_steady_line(s) + format_steady_warnings(s, analyze::steady_findings(s));
}

}  // namespace sb::report
