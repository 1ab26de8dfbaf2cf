#pragma once
// Against `servebench sim --time-scale K` (K advertised in /v1/models), the run works in the
// modelled GPU's time, so that nobody has to multiply latencies by K or rates by 1/K by hand: the
// schedule (planned in modelled time) is sent K times faster, and every stamp of a finished request
// is stretched by K around the stage start before anything is summarised or written. The client's
// own use (events/s, CPU, dispatch lag) stays wall clock: that is the machine's, not the model's.
// K = 1 leaves everything as it is.
#include <vector>

#include "core/clock.hpp"
#include "exec/runner.hpp"
#include "metrics/request_record.hpp"
#include "metrics/telemetry_stage.hpp"

namespace sb::pipeline {

// Modelled offsets from the stage start -> the wall-clock offsets to send at.
void to_wall_offsets(std::vector<Nanos>& offsets, double time_factor);
Nanos to_wall_ns(Nanos modelled_ns, double time_factor);

// Every stamp of the record (relative to the stage start) times `time_factor`.
void to_modelled(RequestRecord& r, double time_factor);
// The records and the stage's end and issue-end times.
void to_modelled(StageOutput& out, double time_factor);
// The server's histogram windows (queue time, TTFT, prefill): the simulator measures them on the wall clock.
void to_modelled(ServerStageMetrics& m, double time_factor);

}  // namespace sb::pipeline
