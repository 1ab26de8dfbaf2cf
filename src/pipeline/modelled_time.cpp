#include "pipeline/modelled_time.hpp"

#include <cmath>

namespace sb::pipeline {

namespace {

Nanos stretch(Nanos t, double k) { return static_cast<Nanos>(std::llround(static_cast<double>(t) * k)); }

// -1 and 0 mark "never happened" / "not scheduled" in a record: they stay as they are.
Nanos stretch_stamp(Nanos t, double k) { return t > 0 ? stretch(t, k) : t; }

void stretch_window(std::optional<HistogramWindow>& w, double k) {
  if (!w) return;
  w->mean_ms *= k;
  w->p50_ms *= k;
  w->p99_ms *= k;
}

}  // namespace

void to_wall_offsets(std::vector<Nanos>& offsets, double time_factor) {
  if (time_factor == 1) return;
  for (Nanos& t : offsets) t = stretch(t, 1 / time_factor);
}

Nanos to_wall_ns(Nanos modelled_ns, double time_factor) {
  return time_factor == 1 ? modelled_ns : stretch(modelled_ns, 1 / time_factor);
}

void to_modelled(RequestRecord& r, double time_factor) {
  if (time_factor == 1) return;
  const double k = time_factor;
  r.intended_ns = stretch_stamp(r.intended_ns, k);
  r.sent_ns = stretch_stamp(r.sent_ns, k);
  r.first_byte_ns = stretch_stamp(r.first_byte_ns, k);
  r.done_ns = stretch_stamp(r.done_ns, k);
  r.slot_free_ns = stretch_stamp(r.slot_free_ns, k);
  r.token_ns.scale(k);
  // `sim --dialect llama.cpp` reports its timings on the wall clock too.
  if (r.server.prefill_ms > 0) r.server.prefill_ms = static_cast<float>(r.server.prefill_ms * k);
  if (r.server.decode_ms > 0) r.server.decode_ms = static_cast<float>(r.server.decode_ms * k);
}

void to_modelled(StageOutput& out, double time_factor) {
  if (time_factor == 1) return;
  for (RequestRecord& r : out.records) to_modelled(r, time_factor);
  out.end_ns = stretch_stamp(out.end_ns, time_factor);
  out.issue_end_ns = stretch_stamp(out.issue_end_ns, time_factor);
}

void to_modelled(ServerStageMetrics& m, double time_factor) {
  if (time_factor == 1) return;
  stretch_window(m.queue_time, time_factor);
  stretch_window(m.ttft, time_factor);
  stretch_window(m.prefill_time, time_factor);
}

}  // namespace sb::pipeline
