#pragma once
// The client's own ceiling on this machine (servebench selftest) and each stage's use of it: how
// close the load generator itself came to being the bottleneck, and, when a stage could not keep its
// schedule, whose limit it hit: the client's CPU, or the --max-concurrency slots (docs/selftest.md).
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"

namespace sb {

// Where a run's ceiling came from.
enum class CeilingSource { probe, cache, file };

// What one client worker thread manages on this machine against the in-process simulator over
// loopback (zero-delay streams, so the client is the busy side).
struct ClientCeiling {
  int threads = 0;                       // worker threads it was measured with
  double events_per_cpu_s = 0;           // SSE token events per second of one worker thread's CPU
  double events_per_s = 0;               // wall-clock events/s with `threads` workers (the simulator shares the cores)
  double requests_per_s = 0;             // wall-clock completed requests/s, same measurement
  double timestamp_overhead_ns = 0;      // mean cost of one steady-clock read
  double timer_overshoot_p99_us = 0;     // p99 lateness of a sleep until an absolute deadline (the dispatcher's wait)
  double dispatch_lag_p99_ms = 0;        // p99 of sent − intended, open loop at dispatch_rate
  double dispatch_rate = 0;              // req/s of that measurement
  double measured_unix_s = 0;
  CeilingSource source = CeilingSource::probe;
};

// CPU of the client's threads over one stage, from the kernel's per-thread accounting.
struct ClientThreadTimes {
  int threads = 0;                 // worker threads used
  Nanos wall_ns = 0;               // the stage, t0 to last completion
  Nanos worker_cpu_ns = 0;         // Σ on-CPU time of the workers
  Nanos busiest_worker_ns = 0;     // max over workers of on-CPU + runnable-but-waiting time
  Nanos dispatcher_cpu_ns = 0;     // the dispatching (caller's) thread
};

// Above this share of a worker thread (busy) or of the ceiling, a stage is flagged as client-bound.
inline constexpr double kClientBusyLimit = 0.7;

// Token events over the stage's duration, and the threads' times as fractions.
ClientUse client_use(const std::vector<RequestRecord>& records, const ClientThreadTimes& t,
                     const std::optional<ClientCeiling>& ceiling);

// The client's dispatch lag of one open-loop record: sent − max(intended, slot_free).
inline Nanos dispatch_lag_ns(const RequestRecord& r) noexcept {
  return r.sent_ns - (r.slot_free_ns > r.intended_ns ? r.slot_free_ns : r.intended_ns);
}

// Sets s.client_use and s.client_limit: `cpu` when the busiest worker or the events/s passed
// kClientBusyLimit, or the dispatch lag p99 is above the lag threshold (summarize's); else
// `concurrency_limit` when the schedule lag p99 is above it only because slots were full.
// client_saturated then means exactly "the client's CPU".
void apply_client_use(StageSummary& s, const ClientUse& use);

}  // namespace sb
