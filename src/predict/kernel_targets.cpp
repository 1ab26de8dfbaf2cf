#include "predict/kernel_targets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "core/error.hpp"
#include "trace/categories.hpp"

namespace sb::predict {
namespace {

double kernel_stage_tokens(const MeasuredStage& s) {
  double tokens = 0;
  for (const PlayedRequest& r : s.replay.requests) tokens += r.max_tokens;
  return tokens;
}

struct KernelStageBusy {
  std::int64_t events = 0;
  int devices = 0;
  double busy_device_s = 0;  // Σ over devices
  std::string load_label;
};

}  // namespace

double gpu_ms_per_token(double busy_s, double output_tokens) {
  return output_tokens > 0 ? busy_s * 1e3 / output_tokens : 0.0;
}

std::vector<KernelTarget> kernel_targets(const std::vector<trace::Alignment>& traces,
                                         const std::vector<MeasuredStage>& stages, double time_factor,
                                         int tensor_parallel) {
  std::map<int, KernelStageBusy> by_stage;
  for (const trace::Alignment& a : traces)
    for (const trace::StageKernels& sk : a.stages) {
      if (sk.events == 0) continue;  // a trace of another part of the run says nothing of this stage
      KernelStageBusy& b = by_stage[sk.stage.stage_index];
      const double window_s = static_cast<double>(sk.stage.end_unix_ns - sk.stage.start_unix_ns) / 1e9;
      b.events += sk.events;
      b.devices += a.devices;
      // busy_percent is the mean over the trace's devices; back to a sum so traces add up.
      b.busy_device_s += sk.busy_percent / 100.0 * window_s * a.devices;
      b.load_label = sk.stage.load_label;
    }
  std::vector<KernelTarget> out;
  for (const MeasuredStage& s : stages) {
    const auto found = by_stage.find(s.stage_index);
    if (found == by_stage.end()) continue;
    const KernelStageBusy& b = found->second;
    // Fewer devices than ranks is one rank's trace (TP ranks run the same kernels); more is not this server.
    if (b.devices > tensor_parallel)
      throw UserError(fmt::format("--kernels: the traces hold {} devices in stage {} ({}), but the server ran "
                                  "--tensor-parallel-size {}: a trace of another server, or give --tp",
                                  b.devices, s.stage_index, b.load_label, tensor_parallel));
    KernelTarget t;
    t.stage_index = s.stage_index;
    t.events = b.events;
    t.devices = b.devices;
    t.busy_s_per_device = b.busy_device_s / b.devices;
    t.gpu_ms_per_token = gpu_ms_per_token(t.busy_s_per_device * time_factor, kernel_stage_tokens(s));
    out.push_back(t);
  }
  return out;
}

void apply_kernel_targets(const std::vector<KernelTarget>& targets, std::vector<MeasuredStage>& stages) {
  for (const KernelTarget& t : targets) {
    const auto it = std::find_if(stages.begin(), stages.end(), [&](const MeasuredStage& s) { return s.stage_index == t.stage_index; });
    if (it != stages.end()) it->measured.gpu_ms_per_token = t.gpu_ms_per_token;
  }
}

std::vector<StepPeriod> step_periods(const trace::KernelTrace& trace, std::int64_t unix_offset_ns,
                                     const std::vector<trace::StageWindow>& windows) {
  // Categories come from regexes: once per distinct name and kind, not per event (a trace holds
  // hundreds of thousands of events and a few dozen names).
  std::unordered_map<std::string, bool> copy_by_name;
  std::vector<const trace::KernelEvent*> copies;
  for (const trace::KernelEvent& e : trace.events) {
    const auto [it, fresh] = copy_by_name.try_emplace(e.name + static_cast<char>('0' + static_cast<int>(e.kind)), false);
    if (fresh) it->second = trace::categorize(e) == trace::KernelCategory::memcpy;
    if (it->second) copies.push_back(&e);
  }
  std::vector<StepPeriod> out;
  for (const trace::StageWindow& w : windows) {
    std::map<int, std::vector<std::int64_t>> starts;  // device -> copy starts inside the window
    for (const trace::KernelEvent* e : copies) {
      const std::int64_t at = e->start_ns + unix_offset_ns;
      if (at >= w.start_unix_ns && at < w.end_unix_ns) starts[e->device].push_back(at);
    }
    if (starts.empty() || starts.begin()->second.size() < 2) continue;
    std::vector<std::int64_t>& s = starts.begin()->second;
    std::sort(s.begin(), s.end());
    std::vector<double> gaps_ms;
    for (std::size_t i = 1; i < s.size(); ++i) gaps_ms.push_back(static_cast<double>(s[i] - s[i - 1]) / 1e6);
    const std::size_t mid = gaps_ms.size() / 2;
    std::nth_element(gaps_ms.begin(), gaps_ms.begin() + static_cast<std::ptrdiff_t>(mid), gaps_ms.end());
    double median = gaps_ms[mid];
    if (gaps_ms.size() % 2 == 0)
      median = (median + *std::max_element(gaps_ms.begin(), gaps_ms.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
    out.push_back({w.stage_index, static_cast<std::int64_t>(gaps_ms.size()), median});
  }
  return out;
}

void apply_step_periods(const std::vector<StepPeriod>& periods, double time_factor, std::vector<MeasuredStage>& stages) {
  for (const StepPeriod& p : periods) {
    const auto it = std::find_if(stages.begin(), stages.end(), [&](const MeasuredStage& s) { return s.stage_index == p.stage_index; });
    if (it != stages.end() && !(it->measured.step_p50_ms > 0)) it->measured.step_p50_ms = p.median_ms * time_factor;
  }
}

}  // namespace sb::predict
