#include "trace/align.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "core/error.hpp"
#include "results/result_reader.hpp"

namespace sb::trace {
namespace {

[[noreturn]] void bad(std::string_view source, const std::string& what) {
  throw UserError(fmt::format("{}: {}", source, what));
}

// Whole seconds and the fraction apart: s * 1e9 would land near 1e18, where a double's step is 128 ns.
std::int64_t unix_s_to_ns(double s) {
  const double whole = std::floor(s);
  return static_cast<std::int64_t>(whole) * 1'000'000'000 + std::llround((s - whole) * 1e9);
}

std::string load_label(const std::string& mode, double value) {
  const std::string v = std::isinf(value) ? "inf" : fmt::format("{:g}", value);
  return (mode == "concurrency" ? "c=" : "rate=") + v;
}

// Union of [start, end) intervals already clipped to one stage, for one device.
std::int64_t union_ns(std::vector<std::pair<std::int64_t, std::int64_t>>& spans) {
  std::sort(spans.begin(), spans.end());
  std::int64_t total = 0, cur_start = 0, cur_end = std::numeric_limits<std::int64_t>::min();
  for (const auto& [s, e] : spans) {
    if (s > cur_end) {
      if (cur_end > cur_start) total += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  if (cur_end > cur_start) total += cur_end - cur_start;
  return total;
}

std::size_t category_slot(KernelCategory c) {
  return static_cast<std::size_t>(std::find(kAllCategories.begin(), kAllCategories.end(), c) - kAllCategories.begin());
}

// Categories and group labels come from regexes and demangled-name surgery: computed once per distinct
// name, not once per event and stage (a minute of CPU on a 200k-event trace otherwise).
struct EventKeys {
  std::vector<std::uint32_t> name_of_event;
  std::vector<std::uint32_t> label_of_name;
  std::vector<KernelCategory> category_of_name;
  std::vector<std::string> labels;
};

EventKeys key_events(const KernelTrace& trace, GroupBy by) {
  EventKeys k;
  std::unordered_map<std::string, std::uint32_t> name_ids, label_ids;
  k.name_of_event.reserve(trace.events.size());
  for (const auto& e : trace.events) {
    std::string key = e.name;
    key += static_cast<char>('0' + static_cast<int>(e.kind));  // a memcpy record and a kernel may share a name
    const auto [it, fresh] = name_ids.try_emplace(std::move(key), static_cast<std::uint32_t>(k.label_of_name.size()));
    if (fresh) {
      const auto [lit, new_label] =
          label_ids.try_emplace(group_label(e, by), static_cast<std::uint32_t>(k.labels.size()));
      if (new_label) k.labels.push_back(lit->first);
      k.label_of_name.push_back(lit->second);
      k.category_of_name.push_back(categorize(e));
    }
    k.name_of_event.push_back(it->second);
  }
  return k;
}

double busy_percent(std::map<int, std::vector<std::pair<std::int64_t, std::int64_t>>>& spans, const StageWindow& w,
                    std::size_t devices) {
  double busy_sum = 0;
  for (auto& [dev, list] : spans) busy_sum += static_cast<double>(union_ns(list));
  const double window = static_cast<double>(w.end_unix_ns - w.start_unix_ns);
  return devices == 0 ? 0 : busy_sum * 100.0 / (window * static_cast<double>(devices));
}

StageKernels fill_stage(const KernelTrace& trace, const EventKeys& keys, const StageWindow& w, std::int64_t offset_ns,
                        std::size_t devices) {
  StageKernels sk;
  sk.stage = w;
  std::map<int, std::vector<std::pair<std::int64_t, std::int64_t>>> spans;
  std::vector<GroupInStage> groups(keys.labels.size());
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const auto& e = trace.events[i];
    const std::int64_t s = e.start_ns + offset_ns, end = e.end_ns + offset_ns;
    if (end > w.start_unix_ns && s < w.end_unix_ns)
      spans[e.device].emplace_back(std::max(s, w.start_unix_ns), std::min(end, w.end_unix_ns));
    if (s < w.start_unix_ns || s >= w.end_unix_ns) continue;
    const std::uint32_t name = keys.name_of_event[i];
    ++sk.events;
    sk.gpu_ns += e.duration_ns();
    sk.category_ns[category_slot(keys.category_of_name[name])] += e.duration_ns();
    auto& g = groups[keys.label_of_name[name]];
    if (g.calls == 0) g.category = keys.category_of_name[name];
    ++g.calls;
    g.total_ns += e.duration_ns();
  }
  sk.busy_percent = busy_percent(spans, w, devices);
  for (std::size_t l = 0; l < groups.size(); ++l) {
    if (groups[l].calls == 0) continue;
    groups[l].label = keys.labels[l];
    sk.groups.push_back(std::move(groups[l]));
  }
  std::sort(sk.groups.begin(), sk.groups.end(), [](const GroupInStage& a, const GroupInStage& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.label < b.label;
  });
  return sk;
}

}  // namespace

SweepStages sweep_stages(const results::Run& run) {
  SweepStages out;
  out.load_mode = to_string(run.load_mode);
  for (std::size_t i = 0; i < run.stages.size(); ++i) {
    const results::Stage& s = run.stages[i];
    if (!s.start_unix_s || !s.end_unix_s)
      bad(run.source, fmt::format("stages[{}] has no wall-clock window (start_unix_s, end_unix_s)", i));
    StageWindow w;
    w.stage_index = s.stage_index;
    w.load_value = s.load_value;
    w.load_label = load_label(out.load_mode, s.load_value);
    w.start_unix_ns = unix_s_to_ns(*s.start_unix_s);
    w.end_unix_ns = unix_s_to_ns(*s.end_unix_s);
    if (w.end_unix_ns <= w.start_unix_ns) bad(run.source, fmt::format("stages[{}] ends before it starts", i));
    out.stages.push_back(std::move(w));
  }
  for (std::size_t i = 0; run.knee_stage_index && i < out.stages.size(); ++i)
    if (out.stages[i].stage_index == *run.knee_stage_index) {
      out.knee = i;
      break;
    }
  out.clocks_at_start = run.clocks_at_start;
  return out;
}

SweepStages parse_sweep_stages(std::string_view json_text, std::string_view source) {
  return sweep_stages(results::parse_sweep_windows(json_text, std::string(source)));
}

std::optional<std::int64_t> host_clock_offset(std::string_view clock_domain, const HostClocks& clocks) {
  // nsys's CSV exports count from the session start, which no host clock knows: only flags place them.
  if (clock_domain == kClockBoottime) return clocks.realtime_ns - clocks.boottime_ns;
  return std::nullopt;
}

std::optional<UnixOffset> resolve_offset(const KernelTrace& trace, const ClockOverride& clock,
                                         const std::optional<HostClocks>& run_clocks) {
  if (clock.offset_ns) return UnixOffset{*clock.offset_ns, OffsetSource::flag};
  if (clock.start_unix_s) {
    if (trace.events.empty()) return std::nullopt;
    std::int64_t first = trace.events.front().start_ns;
    for (const auto& e : trace.events) first = std::min(first, e.start_ns);
    return UnixOffset{unix_s_to_ns(*clock.start_unix_s) - first, OffsetSource::flag};
  }
  if (trace.unix_offset_ns) return UnixOffset{*trace.unix_offset_ns, OffsetSource::trace};
  if (run_clocks) {
    if (const auto off = host_clock_offset(trace.clock_domain, *run_clocks))
      return UnixOffset{*off, OffsetSource::run_clocks};
  }
  return std::nullopt;
}

std::optional<std::int64_t> resolve_unix_offset(const KernelTrace& trace, const ClockOverride& clock) {
  const std::optional<UnixOffset> off = resolve_offset(trace, clock, std::nullopt);
  if (!off) return std::nullopt;
  return off->ns;
}

std::string group_label(const KernelEvent& event, GroupBy by) {
  switch (by) {
    case GroupBy::name:
      return normalize_kernel_name(event.name);
    case GroupBy::category:
      return std::string(category_name(categorize(event)));
    case GroupBy::base:
      break;
  }
  return event.kind == OpKind::kernel ? kernel_base_name(event.name) : normalize_kernel_name(event.name);
}

double StageKernels::category_percent(KernelCategory c) const {
  return gpu_ns > 0 ? static_cast<double>(category_ns[category_slot(c)]) * 100.0 / static_cast<double>(gpu_ns) : 0;
}

Alignment align_to_stages(const KernelTrace& trace, const std::vector<StageWindow>& stages, std::int64_t unix_offset_ns,
                          GroupBy by) {
  Alignment out;
  out.unix_offset_ns = unix_offset_ns;
  std::set<int> device_set;
  for (const auto& e : trace.events) device_set.insert(e.device);
  out.devices = static_cast<int>(device_set.size());
  const EventKeys keys = key_events(trace, by);
  std::int64_t inside = 0;
  for (const auto& w : stages) {
    out.stages.push_back(fill_stage(trace, keys, w, unix_offset_ns, device_set.size()));
    inside += out.stages.back().events;
  }
  out.outside_events = static_cast<std::int64_t>(trace.events.size()) - inside;
  return out;
}

}  // namespace sb::trace
