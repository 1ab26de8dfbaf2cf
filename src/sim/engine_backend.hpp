#pragma once
// sim::Backend over the continuous-batching Engine, for the HTTP front end: forwards the request
// flow, renders /metrics, and while profiling (POST /start_profile … /stop_profile) writes the
// simulated kernels of every step to --kernel-trace FILE in the chosen profiler's format, plus a
// FILE.servebench.json sidecar that marks the trace as simulated and gives its wall-clock offset.
// Each profile gets its own file, so a second /start_profile never overwrites the first: the first
// goes to FILE, the next ones to FILE.1, FILE.2, … (each with its own .servebench.json sidecar).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/backend.hpp"
#include "sim/engine.hpp"
#include "sim/kernel_trace.hpp"

namespace sb::sim {

struct KernelTraceOptions {
  std::string path;  // empty: profiling endpoints answer "nothing to profile"
  TraceFormat format = TraceFormat::rocprofv3;
  // Every step writes ~5 rows per layer: a long profile at a high --time-scale reaches gigabytes.
  // Recording stops at this many rows (the sidecar then says "truncated": true).
  std::uint64_t max_rows = 1'000'000;
};

class EngineBackend final : public Backend, private StepObserver {
 public:
  EngineBackend(const EngineConfig& config, KernelTraceOptions trace);
  ~EngineBackend() override;

  void submit(const SimRequest& r, Nanos now) override { engine_.submit(r, now); }
  void cancel(std::uint64_t id, Nanos now) override { engine_.cancel(id, now); }
  std::optional<Nanos> advance(Nanos now, std::vector<TokenEvent>& out) override { return engine_.advance(now, out); }
  void render_metrics(std::string& out, const std::string& model_name) const override;
  bool start_profile(Nanos now) override;
  double time_scale() const override { return engine_.config().time_scale; }
  bool stop_profile(Nanos now) override;

  // The file the current (or, when idle, the last) profile writes; empty before the first one.
  const std::string& profile_path() const { return profile_path_; }

  const Engine& engine() const { return engine_; }

 private:
  void on_step(Nanos start_ns, Nanos end_ns, const StepShape& shape, const StepCost& cost) override;
  void flush_rows();
  void write_sidecar() const;

  Engine engine_;
  KernelTraceOptions trace_;
  std::string profile_path_;     // trace_.path, or trace_.path + ".N" for the (N+1)-th profile
  std::uint64_t profiles_ = 0;   // profiles started so far
  std::FILE* file_ = nullptr;
  std::optional<KernelTraceFormatter> formatter_;
  std::vector<KernelEvent> kernels_;
  std::string rows_;
  std::int64_t offset_ns_ = 0;  // trace timestamp = steady ns + offset
  // Unix ns = trace timestamp + this, taken when the recording starts and kept: see start_profile.
  std::int64_t unix_minus_trace_ns_ = 0;
  std::uint64_t rows_written_ = 0;
  bool truncated_ = false;
};

}  // namespace sb::sim
