#pragma once
// Drives a sim::Backend in virtual time: no sleeping, time jumps to the next wake-up the backend
// returns. Used by the tests (thousands of requests in milliseconds) and meant for capacity
// planning; it plays the client side of a closed-loop (fixed concurrency) or open-loop run.
#include <cstdint>
#include <span>
#include <vector>

#include "sim/backend.hpp"

namespace sb::sim {

struct ClosedLoopSpec {
  int concurrency = 1;
  int num_requests = 100;
  int prompt_tokens = 128;
  int max_tokens = 128;
  bool ignore_eos = true;
};

struct TimedRequest {
  SimRequest request;
  Nanos arrival_ns = 0;
};

struct RequestTiming {
  std::uint64_t id = 0;
  Nanos arrival_ns = 0;
  Nanos first_token_ns = -1;
  Nanos finish_ns = -1;
  int output_tokens = 0;
};

struct VirtualRun {
  std::vector<RequestTiming> requests;  // indexed by request id
  std::vector<double> itl_s;            // every inter-token gap, pooled (vLLM's ITL)
  Nanos duration_ns = 0;                // first arrival to last finish

  double output_tokens_per_s() const;
  double requests_per_s() const;
  std::vector<double> ttft_s() const;
};

VirtualRun run_closed_loop(Backend& backend, const ClosedLoopSpec& spec);
// Requests must be sorted by arrival; ids must be 0..n-1.
VirtualRun run_open_loop(Backend& backend, std::span<const TimedRequest> requests);

// Linear-interpolation percentile (numpy's default) of an unsorted sample; 0 when empty.
double percentile(std::vector<double> values, double pct);

}  // namespace sb::sim
