#include "analyze/config_kernels.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "trace/placement.hpp"
#include "trace/rank.hpp"

namespace sb::analyze {
namespace {

std::vector<KernelSummary> summaries(const trace::KernelTrace& t) {
  std::vector<KernelSummary> out;
  for (const auto& r : trace::rank_kernels(t, {trace::NameKey::base, false}))
    out.push_back({r.name, r.calls, r.avg_ns, r.stddev_ns, static_cast<double>(r.total_ns)});
  return out;
}

// Events of all traces in one list; `placed` shifts each trace's events onto Unix ns first.
trace::KernelTrace merged(const std::vector<trace::KernelTrace>& traces, const std::vector<std::int64_t>* offsets) {
  trace::KernelTrace all;
  all.clock_domain = offsets ? std::string(trace::kClockUnix) : traces.front().clock_domain;
  for (std::size_t i = 0; i < traces.size(); ++i)
    for (trace::KernelEvent e : traces[i].events) {
      if (offsets) e.start_ns += (*offsets)[i], e.end_ns += (*offsets)[i];
      all.events.push_back(std::move(e));
    }
  return all;
}

}  // namespace

ConfigKernels config_kernels(const std::vector<trace::KernelTrace>& given, const results::Run& run) {
  ConfigKernels k;
  std::vector<trace::KernelTrace> traces;
  for (const auto& t : given)
    if (!t.events.empty()) traces.push_back(t);
  k.traces = given.size();
  if (traces.empty()) return k;
  k.whole = summaries(merged(traces, nullptr));
  trace::SweepStages sweep;
  try {
    sweep = trace::sweep_stages(run);
  } catch (const UserError&) {
    return k;  // no stage windows: whole-trace kernels only
  }
  std::vector<std::int64_t> offsets;
  for (const auto& t : traces) {
    const trace::Placement p = trace::place_trace(t, sweep, {});
    if (!p.offset) continue;
    offsets.push_back(p.offset->ns);
    k.sources.push_back(p.offset->source);
  }
  k.placed = offsets.size();
  if (offsets.size() != traces.size()) return k;
  const trace::KernelTrace unix_events = merged(traces, &offsets);
  for (const auto& w : sweep.stages) {
    trace::KernelTrace in_stage;
    for (const auto& e : unix_events.events)
      if (e.start_ns >= w.start_unix_ns && e.start_ns < w.end_unix_ns) in_stage.events.push_back(e);
    k.stages.push_back({w.load_value, summaries(in_stage)});
  }
  return k;
}

const std::vector<KernelSummary>& kernels_at(const ConfigKernels& k, double load_value) {
  for (const auto& s : k.stages)
    if (s.load_value == load_value) return s.kernels;
  return k.whole;
}

}  // namespace sb::analyze
