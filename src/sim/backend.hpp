#pragma once
// How the simulator produces tokens, independent of HTTP and of the time source: the front end
// (real time) or a test (virtual time) submits requests and calls advance(now) at the returned
// wake-up times. Implementations: FixedCostBackend (deterministic TTFT/ITL, sim/fixed_cost.*) and
// EngineBackend (continuous-batching scheduler + GPU cost model, sim/engine.*).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"

namespace sb::sim {

struct SimRequest {
  std::uint64_t id = 0;
  int prompt_tokens = 0;
  int max_tokens = 16;
  bool ignore_eos = false;
  std::uint64_t seed = 0;       // per-request seed for EOS / output length draws
};

struct TokenEvent {
  std::uint64_t id = 0;
  int tokens = 1;               // tokens produced for this request in this step (usually 1)
  bool finished = false;        // last tokens of the request
  bool first = false;           // includes the first token (prefill done)
  // Backend time the tokens were produced, and when the request got its slot (first scheduled):
  // the exact server-side timings a dialect that reports them (llama.cpp `timings`) sends.
  Nanos at_ns = -1;
  Nanos started_ns = -1;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void submit(const SimRequest& r, Nanos now) = 0;
  virtual void cancel(std::uint64_t id, Nanos now) = 0;   // client disconnected
  // Moves the model forward to `now`, appending every token produced up to `now` to `out`.
  // Returns the next instant something happens, or nullopt when idle.
  virtual std::optional<Nanos> advance(Nanos now, std::vector<TokenEvent>& out) = 0;
  // Appends Prometheus text exposition lines (vLLM names) for /metrics.
  virtual void render_metrics(std::string& out, const std::string& model_name) const = 0;
  // POST /start_profile and /stop_profile: a backend that can write a kernel trace starts/stops
  // recording; returns false if it has nothing to profile (the front end then answers 404).
  virtual bool start_profile(Nanos /*now*/) { return false; }
  virtual bool stop_profile(Nanos /*now*/) { return false; }
  // How many times faster than the modelled GPU the backend runs (sim --time-scale); /v1/models
  // advertises it so that a client can report modelled times (docs/sim.md "Time scale").
  virtual double time_scale() const { return 1; }
};

}  // namespace sb::sim
