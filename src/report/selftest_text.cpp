#include "report/selftest_text.hpp"

#include <fmt/format.h>

#include <iterator>

#include "report/client_use_json.hpp"

namespace sb::report {

namespace {

// 1234567 -> "1.23 M", 45678 -> "45.7 k".
std::string si(double v) {
  if (v >= 1e6) return fmt::format("{:.3g} M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.3g} k", v / 1e3);
  return fmt::format("{:.3g}", v);
}

}  // namespace

std::string format_selftest_table(const std::vector<ClientCeiling>& rows) {
  std::string out = fmt::format("{:>7} {:>16} {:>12} {:>10} {:>11} {:>14} {:>16}\n", "threads", "events/CPU-s/thr",
                                "events/s", "req/s", "clock (ns)", "timer p99 (us)", "dispatch p99 (ms)");
  for (const ClientCeiling& c : rows)
    fmt::format_to(std::back_inserter(out), "{:>7} {:>16.0f} {:>12.0f} {:>10.0f} {:>11.1f} {:>14.1f} {:>16.3f}\n",
                   c.threads, c.events_per_cpu_s, c.events_per_s, c.requests_per_s, c.timestamp_overhead_ns,
                   c.timer_overshoot_p99_us, c.dispatch_lag_p99_ms);
  out += "events/CPU-s/thr: SSE token events one worker thread parses per second of its own CPU (the ceiling a run\n"
         "compares each stage with); events/s and req/s: wall clock, with the simulator on the same machine.\n";
  return out;
}

std::string format_ceiling_note(const ClientCeiling& c, double probe_s, const std::string& cache_path) {
  const std::string where = cache_path.empty() ? "not cached" : "cached for a day in " + cache_path;
  if (c.source == CeilingSource::probe)
    return fmt::format("client ceiling: {} events/s per thread (probed in {:.2f} s; {}; --no-selftest skips it)",
                       si(c.events_per_cpu_s), probe_s, where);
  return fmt::format("client ceiling: {} events/s per thread ({} {})", si(c.events_per_cpu_s), to_string(c.source),
                     cache_path);
}

std::string format_ceiling_failure(const std::string& why) {
  return "warning: the client's ceiling could not be measured (" + why + "); stages are not compared with it";
}

std::string format_client_use(const StageSummary& s) {
  std::string out;
  if (s.client_use) {
    const ClientUse& u = *s.client_use;
    fmt::format_to(std::back_inserter(out), "Client: {} thread{}, {} events/s, busiest thread {:.0f}% busy", u.threads,
                   u.threads == 1 ? "" : "s", si(u.events_per_s), 100 * u.busiest_thread_busy);
    if (u.ceiling_fraction) fmt::format_to(std::back_inserter(out), ", {:.0f}% of its ceiling", 100 * *u.ceiling_fraction);
    out += '\n';
  }
  if (s.client_limit == ClientLimit::cpu)
    out += "WARNING: client CPU: the client was near its own ceiling or could not keep the schedule; the numbers "
           "may measure the client, not the server (more --client-threads, or a bigger client machine).\n";
  else if (s.client_limit == ClientLimit::concurrency_limit)
    out += "NOTE: client concurrency limit: requests waited for a --max-concurrency slot past their intended "
           "times; the offered rate was not sent (latencies from the intended time include the wait).\n";
  return out;
}

}  // namespace sb::report
