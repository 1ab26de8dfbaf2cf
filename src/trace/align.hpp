#pragma once
// Places kernel events on the load stages of a sweep document (docs/results-format.md) by wall-clock
// time, so a kernel's duration, the GPU's busy time and the category mix can be read per load level
// (docs/kernels.md). The trace's own clock is turned into Unix ns with one offset: the sim sidecar's,
// torch's (0), or one the user gives for rocprof/nsys traces that carry none.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_clocks.hpp"
#include "results/model.hpp"
#include "trace/categories.hpp"
#include "trace/kernel_event.hpp"

namespace sb::trace {

struct StageWindow {
  int stage_index = 0;
  std::string load_label;  // "c=64" (concurrency) or "rate=8" / "rate=inf" (request rate)
  double load_value = 0;   // +inf for "inf"
  std::int64_t start_unix_ns = 0;
  std::int64_t end_unix_ns = 0;
};

struct SweepStages {
  std::string load_mode;  // "concurrency" | "request_rate"
  std::vector<StageWindow> stages;
  std::optional<std::size_t> knee;  // index into stages, when the document's analysis names one
  std::optional<HostClocks> clocks_at_start;  // the run's host clocks (sweeps of this version)
};

// The stage windows of a run of the results model (start_unix_s and end_unix_s required), in the
// run's stage order; the knee is the stage the run's own analysis named. UserError "SOURCE: what"
// when a window is missing or ends before it starts.
SweepStages sweep_stages(const results::Run& run);

// sweep_stages of results::parse_sweep_windows(json_text, source): a sweep document's windows.
SweepStages parse_sweep_stages(std::string_view json_text, std::string_view source);

// How the user pinned the trace clock (flags --trace-offset-ns / --trace-start-unix), if at all.
struct ClockOverride {
  std::optional<std::int64_t> offset_ns;  // Unix ns = trace ns + offset
  std::optional<double> start_unix_s;     // the first event's start, on wall-clock time
};

// Where the offset came from (the kernels report says so).
enum class OffsetSource { flag, trace, run_clocks, estimated };  // estimated: trace/placement.hpp

struct UnixOffset {
  std::int64_t ns = 0;
  OffsetSource source = OffsetSource::flag;
};

// The user's override first, else the trace's own offset (sidecar or torch), else the run's host
// clocks for a trace stamped with one of them (CLOCK_BOOTTIME: rocprof, rocprofv3): exact when the
// trace was recorded on the host that ran the load. nullopt: cannot align.
// `run_clocks`: SweepStages::clocks_at_start.
std::optional<UnixOffset> resolve_offset(const KernelTrace& trace, const ClockOverride& clock,
                                         const std::optional<HostClocks>& run_clocks);
std::optional<std::int64_t> resolve_unix_offset(const KernelTrace& trace, const ClockOverride& clock);

// Unix ns − `clock_domain` ns from the host clocks; nullopt for a domain the host clocks do not cover.
std::optional<std::int64_t> host_clock_offset(std::string_view clock_domain, const HostClocks& clocks);

// What grouping the per-stage rows use (the --by flag).
enum class GroupBy { name, base, category };
std::string group_label(const KernelEvent& event, GroupBy by);

struct GroupInStage {
  std::string label;
  KernelCategory category = KernelCategory::other;
  std::int64_t calls = 0;
  std::int64_t total_ns = 0;
};

struct StageKernels {
  StageWindow stage;
  std::int64_t events = 0;  // events whose start falls in [start, end)
  std::int64_t gpu_ns = 0;  // Σ durations of those events
  double busy_percent = 0;  // per device: union of intervals clipped to the stage / stage duration; mean over devices
  std::array<std::int64_t, kAllCategories.size()> category_ns{};  // kAllCategories order
  std::vector<GroupInStage> groups;                               // sorted by total desc, then label

  double category_percent(KernelCategory c) const;  // share of gpu_ns; 0 when the stage has no events
};

struct Alignment {
  std::int64_t unix_offset_ns = 0;
  std::vector<StageKernels> stages;
  std::int64_t outside_events = 0;  // events in no stage (before, between or after them)
  int devices = 0;                  // distinct devices in the trace
};

// Copies/memsets are included: they count toward busy time and the memcpy share.
Alignment align_to_stages(const KernelTrace& trace, const std::vector<StageWindow>& stages, std::int64_t unix_offset_ns,
                          GroupBy by);

}  // namespace sb::trace
