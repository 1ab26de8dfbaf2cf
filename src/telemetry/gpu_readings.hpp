#pragma once
// Sans-I/O parsers of the GPU tools' documented output (text in, one reading per GPU out); the
// sampler (gpu_sampler.hpp) runs the tool and stamps the readings, as none of these formats carries
// a usable timestamp. Formats: ../shared/research/profilers.md §6, samples in tests/data/telemetry/.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::telemetry {

enum class GpuTool { off, automatic, nvidia_smi, rocm_smi, amd_smi };

struct GpuReading {
  int index = 0;
  std::string name;
  std::optional<double> utilization_pct, memory_used_mib, memory_total_mib, memory_used_pct, power_w, sm_clock_mhz,
      memory_clock_mhz;
};

// The arguments each tool is run with (argv[0] included); the parsers below read exactly that.
std::vector<std::string> gpu_tool_command(GpuTool tool);
std::string_view gpu_tool_name(GpuTool tool);  // "nvidia-smi", …; "" for off/automatic

// `nvidia-smi --query-gpu=index,name,utilization.gpu,memory.used,memory.total,power.draw,clocks.sm,
// clocks.mem --format=csv,noheader,nounits`: one line per GPU; [N/A]-style values are missing.
std::vector<GpuReading> parse_nvidia_smi(std::string_view text);
// `rocm-smi --showuse --showmemuse --showpower --showclocks --showmeminfo vram --json`: an object
// keyed card0…, every value a string; warnings before the first '{' are skipped.
std::vector<GpuReading> parse_rocm_smi(std::string_view text);
// `amd-smi metric --json`: {"gpu_data": [...]} (25.x and later) or a bare list (24.x); leaves are
// {"value", "unit"} objects, plain numbers, or "N/A".
std::vector<GpuReading> parse_amd_smi(std::string_view text);

// Dispatches on the tool; throws sb::UserError "<tool> output: <why>" on output it cannot read.
std::vector<GpuReading> parse_gpu_output(GpuTool tool, std::string_view text);

}  // namespace sb::telemetry
