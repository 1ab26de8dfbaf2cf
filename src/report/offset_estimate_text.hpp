#pragma once
// The words and JSON of an estimated trace offset (trace/offset_estimate.hpp): the line `kernels`
// prints when it places a trace by the load timeline, and the refusal when the fit is not confident.
#include <nlohmann/json.hpp>
#include <string>

#include "trace/kernel_event.hpp"
#include "trace/offset_estimate.hpp"

namespace sb::report {

// "trace clock C placed by lining GPU activity up with the stages of SWEEP: offset N ns (±S ms); 97% of
// busy time inside stages, next-best alignment (at N2) scores 40% lower; --trace-offset-ns overrides"
std::string offset_estimate_text(const trace::OffsetEstimate& e, const trace::KernelTrace& t, const std::string& sweep);

// One line: why the estimate was not used, and the flags that place the trace instead.
std::string offset_refusal_text(const trace::OffsetEstimate& e, const trace::KernelTrace& t, const std::string& path);

nlohmann::ordered_json offset_estimate_json(const trace::OffsetEstimate& e);

}  // namespace sb::report
