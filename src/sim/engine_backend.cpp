#include "sim/engine_backend.hpp"

#include <ctime>
#include <fmt/format.h>
#include <unistd.h>

#include "core/host_clocks.hpp"
#include "sim/prom_render.hpp"

namespace sb::sim {
namespace {

constexpr std::size_t kFlushBytes = 1 << 16;

}  // namespace

EngineBackend::EngineBackend(const EngineConfig& config, KernelTraceOptions trace)
    : engine_(config), trace_(std::move(trace)) {}

EngineBackend::~EngineBackend() {
  if (file_ != nullptr) {
    flush_rows();
    std::fclose(file_);
  }
}

void EngineBackend::render_metrics(std::string& out, const std::string& model_name) const {
  render_engine_metrics(engine_, model_name, out);
}

bool EngineBackend::start_profile(Nanos now) {
  if (trace_.path.empty()) return false;
  if (file_ != nullptr) return true;  // already recording
  const std::string path = profiles_ == 0 ? trace_.path : fmt::format("{}.{}", trace_.path, profiles_);
  file_ = std::fopen(path.c_str(), "w");
  // The flags layer checked the path at startup; failing now (disk gone) must not kill the server.
  if (file_ == nullptr) return false;
  profile_path_ = path;
  ++profiles_;
  // rocprof stamps CLOCK_BOOTTIME; steady_clock is CLOCK_MONOTONIC, so shift by their difference.
  // nsys stamps ns since its session started: the session starts now.
  // (Each difference from bracketed reads: a preempted pair would misplace the trace, host_clocks.hpp.)
  offset_ns_ = trace_.format == TraceFormat::nsys ? -now : HostClocks::offset_ns(CLOCK_BOOTTIME, CLOCK_MONOTONIC);
  // The wall-clock anchor is read once, here, like `run`'s (its stage windows are steady times
  // plus one anchor taken at its start). Read again at the stop, it would carry any step of the
  // wall clock made meanwhile (a VM's time sync: 1.5 ms steps seen in CI) that neither the trace
  // timestamps nor the run's windows see.
  unix_minus_trace_ns_ = HostClocks::offset_ns(CLOCK_REALTIME, CLOCK_MONOTONIC) - offset_ns_;
  rows_written_ = 0;
  truncated_ = false;
  const auto& gpu = engine_.config().hardware.gpu;
  formatter_.emplace(trace_.format, TraceDevice{gpu.device_name + " (simulated)", gpu.amd, static_cast<int>(getpid())},
                     offset_ns_);
  rows_ = formatter_->header();
  write_sidecar();
  engine_.set_step_observer(this);
  return true;
}

bool EngineBackend::stop_profile(Nanos) {
  if (file_ == nullptr) return false;
  engine_.set_step_observer(nullptr);
  flush_rows();
  std::fclose(file_);
  file_ = nullptr;
  write_sidecar();  // again, now with the row count
  return true;
}

void EngineBackend::on_step(Nanos start_ns, Nanos end_ns, const StepShape& shape, const StepCost& cost) {
  kernels_.clear();
  plan_step_kernels(engine_.cost_model(), shape, cost, {start_ns, end_ns, engine_.config().time_scale}, kernels_);
  if (rows_written_ + kernels_.size() > trace_.max_rows) {
    truncated_ = true;
    engine_.set_step_observer(nullptr);
    flush_rows();
    return;
  }
  formatter_->append_rows(kernels_, rows_);
  rows_written_ += kernels_.size();
  if (rows_.size() >= kFlushBytes) flush_rows();
}

void EngineBackend::flush_rows() {
  if (file_ != nullptr && !rows_.empty()) std::fwrite(rows_.data(), 1, rows_.size(), file_);
  rows_.clear();
}

void EngineBackend::write_sidecar() const {
  // CSV profiler formats have no comment syntax, so the "simulated" mark and the wall-clock
  // anchor (Unix ns = trace timestamp + unix_minus_trace_ns) go into a sidecar file.
  const std::string path = profile_path_ + ".servebench.json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return;
  const auto& hw = engine_.config().hardware;
  const std::string text = fmt::format(
      "{{\"simulated\": true, \"generator\": \"servebench sim\", \"format\": \"{}\", \"clock_domain\": \"{}\", "
      "\"unix_minus_trace_ns\": {}, \"model\": \"{}\", \"gpu\": \"{}\", \"tensor_parallel\": {}, \"time_scale\": {}, "
      "\"rows\": {}, \"truncated\": {}}}\n",
      trace_format_name(trace_.format), trace_.format == TraceFormat::nsys ? "nsys_session_ns" : "CLOCK_BOOTTIME_ns",
      unix_minus_trace_ns_, hw.model.name, hw.gpu.name, hw.tensor_parallel, engine_.config().time_scale, rows_written_,
      truncated_);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

}  // namespace sb::sim
