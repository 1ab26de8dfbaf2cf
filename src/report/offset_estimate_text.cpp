#include "report/offset_estimate_text.hpp"

#include <fmt/format.h>

namespace sb::report {
namespace {

const char* verdict_name(trace::EstimateVerdict v) {
  switch (v) {
    case trace::EstimateVerdict::confident: return "confident";
    case trace::EstimateVerdict::no_overlap: return "no_overlap";
    case trace::EstimateVerdict::weak_fit: return "weak_fit";
    case trace::EstimateVerdict::ambiguous: return "ambiguous";
  }
  return "";
}

std::string why_not(const trace::OffsetEstimate& e) {
  switch (e.verdict) {
    case trace::EstimateVerdict::no_overlap:
      return "no offset puts any of its GPU activity inside a stage";
    case trace::EstimateVerdict::weak_fit:
      return fmt::format("at the best fit only {:.0f}% of its GPU busy time falls inside stages (50% needed)",
                         100 * e.inside_fraction);
    case trace::EstimateVerdict::ambiguous:
      if (e.runner_up_offset_ns != e.offset_ns && e.margin < 0.10)
        return fmt::format("another alignment ({} ns) fits almost as well ({:.0f}% below the best; 10% needed)",
                           e.runner_up_offset_ns, 100 * e.margin);
      return fmt::format("offsets spanning {:.0f} ms fit within 1% of the best: its activity does not pin one",
                         static_cast<double>(e.spread_ns) / 1e6);
    case trace::EstimateVerdict::confident: break;
  }
  return "";
}

}  // namespace

std::string offset_estimate_text(const trace::OffsetEstimate& e, const trace::KernelTrace& t, const std::string& sweep) {
  const std::string other = e.runner_up_offset_ns == e.offset_ns
                                ? std::string("no other alignment fits")
                                : fmt::format("the next-best alignment scores {:.0f}% lower", 100 * e.margin);
  return fmt::format(
      "servebench kernels: trace clock {} placed by lining GPU activity up with the stages of {}: offset {} ns "
      "(resolution {:.0f} ms, scores within 1% over {:.0f} ms); {:.0f}% of GPU busy time inside stages, {}; "
      "an estimate: --trace-offset-ns overrides\n",
      t.clock_domain, sweep, e.offset_ns, static_cast<double>(e.bin_ns) / 1e6, static_cast<double>(e.spread_ns) / 1e6,
      100 * e.inside_fraction, other);
}

std::string offset_refusal_text(const trace::OffsetEstimate& e, const trace::KernelTrace& t, const std::string& path) {
  return fmt::format(
      "{}: cannot align a {} trace (clock {}) with --results: its Unix offset is unknown and cannot be estimated "
      "from the load timeline ({}); pass --trace-offset-ns N (Unix ns = trace ns + N) or --trace-start-unix S "
      "(first event's wall-clock time)",
      path, t.source_format, t.clock_domain, why_not(e));
}

nlohmann::ordered_json offset_estimate_json(const trace::OffsetEstimate& e) {
  return {{"offset_ns", e.offset_ns},
          {"verdict", verdict_name(e.verdict)},
          {"inside_fraction", e.inside_fraction},
          {"margin", e.margin},
          {"runner_up_offset_ns", e.runner_up_offset_ns},
          {"spread_ns", e.spread_ns},
          {"bin_ns", e.bin_ns}};
}

}  // namespace sb::report
