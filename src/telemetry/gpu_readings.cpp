#include "telemetry/gpu_readings.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace sb::telemetry {

namespace {

using nlohmann::json;

std::string_view trim_blank(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A number at the start of `s` ("96", "689.49", "1700Mhz"); nullopt for "[N/A]", "N/A", "".
std::optional<double> leading_number(std::string_view s) {
  s = trim_blank(s);
  if (!s.empty() && s.front() == '(') s.remove_prefix(1);  // rocm-smi clocks: "(1700Mhz)"
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end == s.data()) return std::nullopt;
  return v;
}

std::vector<std::string_view> split_csv_line(std::string_view line) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto comma = line.find(',');
    out.push_back(trim_blank(line.substr(0, comma)));
    if (comma == std::string_view::npos) return out;
    line.remove_prefix(comma + 1);
  }
}

[[noreturn]] void bad_output(std::string_view tool, const std::string& why) {
  throw UserError(fmt::format("{} output: {}", tool, why));
}

json parse_json_after_warnings(std::string_view tool, std::string_view text, char open) {
  const auto start = text.find(open);
  if (start == std::string_view::npos) bad_output(tool, fmt::format("no JSON ('{}' expected)", open));
  json j = json::parse(text.substr(start), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) bad_output(tool, "malformed JSON");
  return j;
}

std::optional<double> json_number(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) return leading_number(j.get_ref<const std::string&>());
  if (j.is_object()) {
    const auto v = j.find("value");
    if (v != j.end()) return json_number(*v);
  }
  return std::nullopt;
}

std::optional<double> field(const json& obj, std::initializer_list<const char*> path) {
  const json* at = &obj;
  for (const char* key : path) {
    if (!at->is_object()) return std::nullopt;
    const auto it = at->find(key);
    if (it == at->end()) return std::nullopt;
    at = &*it;
  }
  return json_number(*at);
}

std::optional<double> first_field(const json& obj, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto v = field(obj, {k})) return v;
  return std::nullopt;
}

// A GPU index as the tools print it: a small whole number (fuzzing found 4e21 cast to int).
std::optional<int> gpu_index(std::optional<double> v) {
  constexpr double kMaxIndex = 1 << 16;
  if (!v || !(*v >= 0 && *v < kMaxIndex) || *v != static_cast<double>(static_cast<int>(*v))) return std::nullopt;
  return static_cast<int>(*v);
}

void derive_memory_pct(GpuReading& r) {
  if (!r.memory_used_pct && r.memory_used_mib && r.memory_total_mib && *r.memory_total_mib > 0)
    r.memory_used_pct = 100.0 * *r.memory_used_mib / *r.memory_total_mib;
}

GpuReading amd_smi_gpu(const json& g, int position) {
  GpuReading r;
  const std::optional<int> own =
      g.contains("gpu") && g["gpu"].is_number() ? gpu_index(g["gpu"].get<double>()) : std::nullopt;
  r.index = own.value_or(position);
  r.utilization_pct = field(g, {"usage", "gfx_activity"});
  r.power_w = field(g, {"power", "socket_power"});
  if (!r.power_w) r.power_w = field(g, {"power", "average_socket_power"});
  r.memory_used_mib = field(g, {"mem_usage", "used_vram"});  // amd-smi's "MB" are MiB
  r.memory_total_mib = field(g, {"mem_usage", "total_vram"});
  r.sm_clock_mhz = field(g, {"clock", "gfx_0", "clk"});
  r.memory_clock_mhz = field(g, {"clock", "mem_0", "clk"});
  derive_memory_pct(r);
  return r;
}

}  // namespace

std::vector<std::string> gpu_tool_command(GpuTool tool) {
  switch (tool) {
    case GpuTool::nvidia_smi:
      return {"nvidia-smi",
              "--query-gpu=index,name,utilization.gpu,memory.used,memory.total,power.draw,clocks.sm,clocks.mem",
              "--format=csv,noheader,nounits"};
    case GpuTool::rocm_smi:
      return {"rocm-smi",     "--showuse",     "--showmemuse", "--showpower",
              "--showclocks", "--showmeminfo", "vram",         "--json"};
    case GpuTool::amd_smi:
      return {"amd-smi", "metric", "--json"};
    case GpuTool::off:
    case GpuTool::automatic:
      break;
  }
  return {};
}

std::string_view gpu_tool_name(GpuTool tool) {
  switch (tool) {
    case GpuTool::nvidia_smi:
      return "nvidia-smi";
    case GpuTool::rocm_smi:
      return "rocm-smi";
    case GpuTool::amd_smi:
      return "amd-smi";
    case GpuTool::off:
    case GpuTool::automatic:
      break;
  }
  return "";
}

std::vector<GpuReading> parse_nvidia_smi(std::string_view text) {
  constexpr std::size_t kFields = 8;
  std::vector<GpuReading> out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = trim_blank(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (line.empty()) continue;
    const std::vector<std::string_view> f = split_csv_line(line);
    if (f.size() != kFields)
      bad_output("nvidia-smi", fmt::format("line {}: {} fields, expected {}", line_no, f.size(), kFields));
    GpuReading r;
    const std::optional<int> index = gpu_index(leading_number(f[0]));
    if (!index) bad_output("nvidia-smi", fmt::format("line {}: GPU index '{}' is not a number", line_no, f[0]));
    r.index = *index;
    r.name = std::string(f[1]);
    r.utilization_pct = leading_number(f[2]);
    r.memory_used_mib = leading_number(f[3]);
    r.memory_total_mib = leading_number(f[4]);
    r.power_w = leading_number(f[5]);
    r.sm_clock_mhz = leading_number(f[6]);
    r.memory_clock_mhz = leading_number(f[7]);
    derive_memory_pct(r);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<GpuReading> parse_rocm_smi(std::string_view text) {
  const json j = parse_json_after_warnings("rocm-smi", text, '{');
  if (!j.is_object()) bad_output("rocm-smi", "expected an object keyed card0, card1, …");
  std::vector<GpuReading> out;
  for (const auto& [key, card] : j.items()) {
    if (key.rfind("card", 0) != 0 || !card.is_object()) continue;  // "system" and the like
    GpuReading r;
    const std::optional<int> index = gpu_index(leading_number(std::string_view(key).substr(4)));
    if (!index) continue;
    r.index = *index;
    r.utilization_pct = first_field(card, {"GPU use (%)"});
    r.power_w = first_field(card, {"Average Graphics Package Power (W)", "Current Socket Graphics Package Power (W)"});
    const std::optional<double> used_b = first_field(card, {"VRAM Total Used Memory (B)"});
    const std::optional<double> total_b = first_field(card, {"VRAM Total Memory (B)"});
    if (used_b) r.memory_used_mib = *used_b / (1024.0 * 1024.0);
    if (total_b) r.memory_total_mib = *total_b / (1024.0 * 1024.0);
    r.memory_used_pct = first_field(card, {"GPU Memory Allocated (VRAM%)"});
    r.sm_clock_mhz = first_field(card, {"sclk clock speed:"});
    r.memory_clock_mhz = first_field(card, {"mclk clock speed:"});
    r.name =
        card.contains("Card Series") && card["Card Series"].is_string() ? card["Card Series"].get<std::string>() : "";
    derive_memory_pct(r);
    out.push_back(std::move(r));
  }
  if (out.empty()) bad_output("rocm-smi", "no card entries");
  return out;
}

std::vector<GpuReading> parse_amd_smi(std::string_view text) {
  const auto first = text.find_first_of("[{");
  if (first == std::string_view::npos) bad_output("amd-smi", "no JSON");
  const json j = parse_json_after_warnings("amd-smi", text, text[first]);
  const json* list = &j;
  if (j.is_object()) {
    const auto it = j.find("gpu_data");
    if (it == j.end()) bad_output("amd-smi", "an object without \"gpu_data\"");
    list = &*it;
  }
  if (!list->is_array()) bad_output("amd-smi", "expected a list of GPUs");
  std::vector<GpuReading> out;
  int position = 0;
  for (const json& g : *list) {
    if (g.is_object()) out.push_back(amd_smi_gpu(g, position));
    ++position;
  }
  if (out.empty()) bad_output("amd-smi", "no GPU entries");
  return out;
}

std::vector<GpuReading> parse_gpu_output(GpuTool tool, std::string_view text) {
  switch (tool) {
    case GpuTool::nvidia_smi:
      return parse_nvidia_smi(text);
    case GpuTool::rocm_smi:
      return parse_rocm_smi(text);
    case GpuTool::amd_smi:
      return parse_amd_smi(text);
    case GpuTool::off:
    case GpuTool::automatic:
      break;
  }
  return {};
}

}  // namespace sb::telemetry
