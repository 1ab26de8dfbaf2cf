#pragma once
// The Unix offset of a trace whose clock no host reading covers (recorded on another host, or on
// nsys's session clock), estimated by lining GPU activity up with the load timeline of the sweep
// (docs/kernels.md, "Traces from another host"). Sans-I/O: events and stage windows in, numbers out.
//
// Method: the trace's GPU busy time per bin (1 ms by default; summed over devices and streams) is
// fitted, for every candidate offset one bin apart, with a step model: one level inside each stage
// window, zero outside (only where the trace runs: before its first event and after its last it says
// nothing), the levels never falling as the stage's load (concurrency, rate) rises: the
// in-flight count sets how busy the GPU can be. Least squares; the score is the squared error the
// model removes against an all-idle one, so busy time falling into the idle gaps around and between
// stages, and a level change at the wrong place between two loads, both cost score.
// Confidence: how much of the busy time lands inside stages at the best offset, how far the best score
// stands above the next separate peak of the score (another alignment that fits), and how narrow the
// best peak is (a wide plateau, e.g. steady activity inside one long stage, fixes no offset).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "trace/align.hpp"
#include "trace/kernel_event.hpp"

namespace sb::trace {

struct OffsetEstimateParams {
  std::int64_t bin_ns = 1'000'000;    // resolution of the busy series and of the offset search
  std::size_t max_bins = 8'000'000;   // a longer trace gets coarser bins (memory stays ~64 MB)
  std::size_t max_candidates = 4'000'000;  // a longer search gets a coarser step (one score each)
  double min_inside = 0.5;            // at least half of the busy time must fall inside stages
  double min_margin = 0.10;           // another alignment (a separate peak) scores at most 90 % of the best
  double min_prominence = 0.05;       // a separate peak rises this share of the best score above its col
  double max_spread_of_stage = 0.25;  // offsets within 1 % of the best span at most this share of the shortest stage
};

enum class EstimateVerdict {
  confident,
  no_overlap,  // no events, no stages, or no offset puts any busy time inside a stage
  weak_fit,    // below min_inside: the trace's activity does not follow the stages
  ambiguous,   // below min_margin (another alignment fits about as well), or a plateau wider than max_spread_of_stage
};

struct OffsetEstimate {
  std::int64_t offset_ns = 0;    // Unix ns = trace ns + this
  std::int64_t bin_ns = 0;       // the resolution used
  double inside_fraction = 0;    // share of busy time inside stage windows at offset_ns (0..1)
  double margin = 0;             // 1 - runner-up peak's score / best score (0..1); 1 when there is no other peak
  std::int64_t runner_up_offset_ns = 0;
  std::int64_t spread_ns = 0;    // width of the offsets around the best scoring within 1 % of it
  EstimateVerdict verdict = EstimateVerdict::no_overlap;

  bool confident() const noexcept { return verdict == EstimateVerdict::confident; }
};

OffsetEstimate estimate_offset(const std::vector<KernelEvent>& events, const std::vector<StageWindow>& stages,
                               const OffsetEstimateParams& params = {});

}  // namespace sb::trace
