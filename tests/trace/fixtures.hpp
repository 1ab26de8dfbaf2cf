#pragma once
// Paths of the shared profiler fixtures (/work/shared/fixtures, see its README for REAL vs AUTHORED)
// and of this module's own data (tests/data/trace).
#include <string>
#include <string_view>

#include "trace/load.hpp"

namespace sb::trace::testing {

inline std::string fixture(std::string_view rel) { return std::string(SB_SHARED_DIR) + "/fixtures/" + std::string(rel); }
inline std::string test_data(std::string_view rel) {
  return std::string(SB_SOURCE_DIR) + "/tests/data/trace/" + std::string(rel);
}
inline std::string fixture_text(std::string_view rel) { return read_trace_file(fixture(rel)); }

inline constexpr std::string_view kV1Dir = "rocprof_v1/vllm_decode_mi300x/";
inline constexpr std::string_view kV1Real = "rocprof_v1/real_hip_vector_add/";
inline constexpr std::string_view kV3Dir = "rocprofv3/vllm_decode_mi300x/mi300x-node01/";
inline constexpr std::string_view kV3Real = "rocprofv3/real_sdk_docs_2024/";
inline constexpr std::string_view kNsysDir = "nsys/vllm_decode_h100_tp2/";
inline constexpr std::string_view kTorchFile = "torch_profiler/vllm_h100_tp2_rank0/rank0.1763647392501.pt.trace.json";

}  // namespace sb::trace::testing
