#pragma once
// The words for a run against `servebench sim --time-scale K` (the server advertises K in
// /v1/models): whether the figures are the modelled GPU's or the wall clock, and what that costs.
#include <string>

namespace sb::report {

// One line for the console before the first stage. `time_factor` is what the run applied: K
// (modelled times) or 1 (--wall-clock-times).
std::string format_time_scale_note(double server_time_scale, double time_factor);

// The same for a report page, starting with the run's label.
std::string format_time_scale_page_note(const std::string& label, double server_time_scale, double time_factor);

}  // namespace sb::report
