#pragma once
// The client side of a stage, played against the simulator's Engine in virtual time: requests are
// released at their intended send times, under an optional concurrency limit (vLLM's semaphore:
// a request due while every slot is taken waits for the next one to free), and every token the
// engine produces is stamped into the RequestRecord a real run would have measured (send time,
// each token's time, completion). No sleeping and no HTTP: time jumps to the next event, so a
// stage of thousands of requests takes milliseconds of CPU.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "metrics/request_record.hpp"
#include "sim/engine.hpp"

namespace sb::predict {

struct PlayedRequest {
  int prompt_tokens = 0;
  int max_tokens = 0;
  Nanos intended_ns = 0;  // offset from the stage start; 0 for every request of a closed loop
  bool ignore_eos = true;
  std::uint64_t seed = 0;  // the engine's EOS draw when ignore_eos is false
};

struct PlayedStage {
  std::vector<PlayedRequest> requests;  // sorted by intended_ns (a schedule always is)
  std::optional<int> max_concurrency;   // nullopt: no limit
};

struct PlayedOutput {
  std::vector<RequestRecord> records;  // in request order (index = position in `requests`)
  Nanos end_ns = 0;                    // last completion: the stage's duration
  std::uint64_t engine_steps = 0;
  // The GPU's busy time over the stage (the cost model's device + all-reduce time of every step,
  // per GPU), in the played time: a kernel trace of the same steps sums to this.
  double gpu_busy_s = 0;
  // Median period between consecutive step starts, in ms of the played time (0 with < 2 steps):
  // what a kernel trace's per-step input copies measure (calibrate --kernels).
  double step_period_p50_ms = 0;
};

// Plays one stage on a fresh engine (the server is idle between a run's stages, and the simulator
// keeps no prefix cache, so a fresh engine is the same server). Throws sb::UserError when `config`
// cannot work (the model does not fit). Requests the engine refuses (longer than the model's
// context) end as HTTP 400 failures, as `servebench sim` answers them.
PlayedOutput play_stage(const sim::EngineConfig& config, const PlayedStage& stage);

}  // namespace sb::predict
