#pragma once
// Paths of the shared profiler fixtures (../shared/fixtures, see its README for REAL vs AUTHORED; only
// beside a developer checkout and in CI, so tests reading them start with SB_REQUIRE_SHARED_FIXTURES())
// and of this module's own data (tests/data/trace, always there; authored/ holds the project-written
// samples that stand in for the shared ones in a user's clone).
#include <string>
#include <string_view>

#include "support/test_paths.hpp"
#include "trace/load.hpp"

namespace sb::trace::trace_fixtures {

inline std::string fixture(std::string_view rel) { return sb::test_files::shared_fixture(rel); }
inline std::string test_data(std::string_view rel) {
  return sb::test_files::source_path("tests/data/trace/" + std::string(rel));
}
inline std::string fixture_text(std::string_view rel) { return read_trace_file(fixture(rel)); }

inline constexpr std::string_view kV1Dir = "rocprof_v1/vllm_decode_mi300x/";
inline constexpr std::string_view kV1Real = "rocprof_v1/real_hip_vector_add/";
inline constexpr std::string_view kV3Dir = "rocprofv3/vllm_decode_mi300x/mi300x-node01/";
inline constexpr std::string_view kV3Real = "rocprofv3/real_sdk_docs_2024/";
inline constexpr std::string_view kNsysDir = "nsys/vllm_decode_h100_tp2/";
inline constexpr std::string_view kTorchFile = "torch_profiler/vllm_h100_tp2_rank0/rank0.1763647392501.pt.trace.json";

// tests/data/trace/authored/ (README.md there has the scenario and the hand-computed answers).
inline std::string authored(std::string_view rel) { return test_data("authored/" + std::string(rel)); }
inline std::string authored_text(std::string_view rel) { return read_trace_file(authored(rel)); }

inline constexpr std::string_view kOwnV1Dir = "rocprof_v1/decode_step/";
inline constexpr std::string_view kOwnV1Hip = "rocprof_v1/hip_saxpy/";
inline constexpr std::string_view kOwnV3Run = "rocprofv3/decode_step";
inline constexpr std::string_view kOwnV3Dir = "rocprofv3/decode_step/sbtest-node7/";
inline constexpr std::string_view kOwnV3Old = "rocprofv3/layout_2024/";
inline constexpr std::string_view kOwnNsysDir = "nsys/decode_step/";
inline constexpr std::string_view kOwnTorchDir = "torch/decode_step_rank1";
inline constexpr std::string_view kOwnTorchFile = "torch/decode_step_rank1/rank1.1760000100000.pt.trace.json";

inline std::string own_text(std::string_view dir, std::string_view file) {
  return authored_text(std::string(dir) + std::string(file));
}

}  // namespace sb::trace::trace_fixtures
