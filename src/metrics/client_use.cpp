#include "metrics/client_use.hpp"

#include <algorithm>

namespace sb {

ClientUse client_use(const std::vector<RequestRecord>& records, const ClientThreadTimes& t,
                     const std::optional<ClientCeiling>& ceiling) {
  ClientUse u;
  u.threads = t.threads;
  std::size_t events = 0;
  for (const RequestRecord& r : records)
    if (r.was_sent) events += r.token_ns.size();
  const double wall_s = ns_to_s(t.wall_ns);
  if (wall_s > 0) {
    u.events_per_s = static_cast<double>(events) / wall_s;
    u.busiest_thread_busy = ns_to_s(t.busiest_worker_ns) / wall_s;
  }
  u.cpu_s = ns_to_s(t.worker_cpu_ns + t.dispatcher_cpu_ns);
  if (ceiling && ceiling->events_per_cpu_s > 0 && t.threads > 0)
    u.ceiling_fraction = u.events_per_s / (ceiling->events_per_cpu_s * t.threads);
  return u;
}

void apply_client_use(StageSummary& s, const ClientUse& use) {
  s.client_use = use;
  // A worker thread that is on the CPU or waiting for one most of the stage, or events/s near what
  // the client's threads manage at full CPU: the client, not the server, may be what was measured.
  const bool busy = use.busiest_thread_busy > kClientBusyLimit || use.ceiling_fraction.value_or(0) > kClientBusyLimit;
  if (busy) s.client_limit = ClientLimit::cpu;
  s.client_saturated = s.client_limit == ClientLimit::cpu;
}

}  // namespace sb
