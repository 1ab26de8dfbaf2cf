#pragma once
// The continuous-batching engine: scheduler + KV cache + cost model, driven by explicit time.
// It never reads a clock: submit/cancel/advance take `now`, and advance returns when the running
// step ends, so the same code serves HTTP in real time (EngineBackend) and runs thousands of
// requests in milliseconds of virtual time (sim/virtual_clock.*, tests, a capacity planner).
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/backend.hpp"
#include "sim/cost_model.hpp"
#include "sim/engine_stats.hpp"
#include "sim/kv_cache.hpp"
#include "sim/scheduler.hpp"

namespace sb::sim {

struct EngineConfig {
  HardwareSetup hardware;
  SchedulerConfig scheduler;
  int block_size = 16;
  double gpu_memory_utilization = 0.9;
  std::int64_t num_gpu_blocks_override = 0;  // > 0 replaces the derived KV capacity
  int max_model_len = 0;                     // 0: the model preset's
  double time_scale = 1.0;                   // > 1 runs faster than the modelled GPU
  double eos_mean_output_tokens = 256;       // mean of the output length drawn when EOS is allowed
};

// Receives every step (the kernel-trace recorder listens here while profiling).
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void on_step(Nanos start_ns, Nanos end_ns, const StepShape& shape, const StepCost& cost) = 0;
};

class Engine {
 public:
  // Throws sb::UserError when the configuration cannot work (model does not fit, bad limits).
  explicit Engine(const EngineConfig& config);

  void submit(const SimRequest& r, Nanos now);
  void cancel(std::uint64_t id, Nanos now);
  std::optional<Nanos> advance(Nanos now, std::vector<TokenEvent>& out);

  void set_step_observer(StepObserver* observer) { observer_ = observer; }
  const EngineStats& stats() const { return stats_; }
  const CostModel& cost_model() const { return cost_; }
  const KvCache& kv_cache() const { return kv_; }
  const EngineConfig& config() const { return config_; }
  std::size_t num_running() const { return scheduler_.num_running(); }
  std::size_t num_waiting() const { return scheduler_.num_waiting(); }
  int max_model_len() const { return max_model_len_; }

 private:
  void start_step(Nanos start_ns);
  void finish_step(std::vector<TokenEvent>& out);
  bool on_token(Sequence& s, Nanos t, std::vector<TokenEvent>& out);  // true: finished and retired
  void on_finished(const Sequence& s, Nanos t, bool by_eos);
  bool admissible(const SimRequest& r) const;
  void validate() const;

  EngineConfig config_;
  CostModel cost_;
  KvCache kv_;
  Scheduler scheduler_;
  EngineStats stats_;
  StepPlan plan_;
  StepObserver* observer_ = nullptr;
  std::vector<std::uint64_t> rejected_;  // answered (finished, no tokens) on the next advance
  int max_model_len_ = 0;
  bool busy_ = false;
  Nanos step_start_ns_ = 0;
  Nanos step_end_ns_ = 0;
  Nanos idle_submit_ns_ = 0;  // latest submit while idle: the next step can't start earlier
};

}  // namespace sb::sim
