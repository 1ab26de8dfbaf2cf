#include "sim/virtual_clock.hpp"

#include <algorithm>
#include <cmath>

namespace sb::sim {
namespace {

class Recorder {
 public:
  explicit Recorder(VirtualRun& run) : run_(run) {}

  // Applies the events produced at virtual time t; returns how many requests finished.
  int apply(std::span<const TokenEvent> events, Nanos t) {
    int finished = 0;
    for (const TokenEvent& e : events) {
      RequestTiming& r = run_.requests[e.id];
      if (e.tokens > 0) {
        if (r.first_token_ns < 0) {
          r.first_token_ns = t;
        } else {
          run_.itl_s.push_back(static_cast<double>(t - last_token_ns_[e.id]) / 1e9);
        }
        last_token_ns_[e.id] = t;
        r.output_tokens += e.tokens;
      }
      if (e.finished) {
        r.finish_ns = t;
        ++finished;
      }
    }
    return finished;
  }
  void add(const SimRequest& req, Nanos t) {
    if (run_.requests.size() <= req.id) {
      run_.requests.resize(req.id + 1);
      last_token_ns_.resize(req.id + 1, 0);
    }
    run_.requests[req.id] = {req.id, t, -1, -1, 0};
  }

 private:
  VirtualRun& run_;
  std::vector<Nanos> last_token_ns_;
};

void finish_run(VirtualRun& run) {
  Nanos first = 0;
  Nanos last = 0;
  bool any = false;
  for (const RequestTiming& r : run.requests) {
    first = any ? std::min(first, r.arrival_ns) : r.arrival_ns;
    last = any ? std::max(last, r.finish_ns) : r.finish_ns;
    any = true;
  }
  run.duration_ns = last - first;
}

}  // namespace

double VirtualRun::output_tokens_per_s() const {
  double tokens = 0;
  for (const RequestTiming& r : requests) tokens += r.output_tokens;
  return duration_ns > 0 ? tokens / (static_cast<double>(duration_ns) / 1e9) : 0.0;
}

double VirtualRun::requests_per_s() const {
  return duration_ns > 0 ? static_cast<double>(requests.size()) / (static_cast<double>(duration_ns) / 1e9) : 0.0;
}

std::vector<double> VirtualRun::ttft_s() const {
  std::vector<double> out;
  out.reserve(requests.size());
  for (const RequestTiming& r : requests) {
    if (r.first_token_ns >= 0) out.push_back(static_cast<double>(r.first_token_ns - r.arrival_ns) / 1e9);
  }
  return out;
}

VirtualRun run_closed_loop(Backend& backend, const ClosedLoopSpec& spec) {
  VirtualRun run;
  Recorder recorder(run);
  std::vector<TokenEvent> events;
  Nanos t = 0;
  int submitted = 0;
  int done = 0;
  auto submit_one = [&] {
    const SimRequest req{static_cast<std::uint64_t>(submitted), spec.prompt_tokens, spec.max_tokens, spec.ignore_eos,
                         static_cast<std::uint64_t>(submitted) * 7919 + 1};
    recorder.add(req, t);
    backend.submit(req, t);
    ++submitted;
  };
  while (submitted < std::min(spec.concurrency, spec.num_requests)) submit_one();
  while (done < spec.num_requests) {
    events.clear();
    const auto next = backend.advance(t, events);
    const int finished = recorder.apply(events, t);
    done += finished;
    for (int i = 0; i < finished && submitted < spec.num_requests; ++i) submit_one();
    if (finished > 0) continue;  // let the replacements join at t before time moves on
    if (!next) break;
    t = *next;
  }
  finish_run(run);
  return run;
}

VirtualRun run_open_loop(Backend& backend, std::span<const TimedRequest> requests) {
  VirtualRun run;
  Recorder recorder(run);
  std::vector<TokenEvent> events;
  std::size_t next_arrival = 0;
  std::size_t done = 0;
  Nanos t = requests.empty() ? 0 : requests.front().arrival_ns;
  while (done < requests.size()) {
    while (next_arrival < requests.size() && requests[next_arrival].arrival_ns <= t) {
      recorder.add(requests[next_arrival].request, t);
      backend.submit(requests[next_arrival].request, t);
      ++next_arrival;
    }
    events.clear();
    const auto wake = backend.advance(t, events);
    done += static_cast<std::size_t>(recorder.apply(events, t));
    Nanos next = wake ? *wake : INT64_MAX;
    if (next_arrival < requests.size()) next = std::min(next, requests[next_arrival].arrival_ns);
    if (next == INT64_MAX) break;
    t = next;
  }
  finish_run(run);
  return run;
}

double percentile(std::vector<double> values, double pct) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double rank = pct / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

}  // namespace sb::sim
