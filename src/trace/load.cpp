#include "trace/load.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <filesystem>

#include "core/error.hpp"
#include "trace/detect.hpp"
#include "trace/gunzip.hpp"
#include "trace/torch_trace.hpp"

namespace sb::trace {

std::string read_trace_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{}: cannot read", path));
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

void apply_sim_sidecar(std::string_view json_text, std::string_view source, KernelTrace& trace) {
  const auto doc = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw UserError(fmt::format("{}: not a JSON object", source));
  const auto simulated = doc.find("simulated");
  if (simulated == doc.end() || !simulated->is_boolean()) {
    throw UserError(fmt::format("{}: missing boolean \"simulated\"", source));
  }
  trace.simulated = simulated->get<bool>();
  const auto offset = doc.find("unix_minus_trace_ns");
  if (offset != doc.end() && offset->is_number_integer()) trace.unix_offset_ns = offset->get<std::int64_t>();
  if (doc.value("truncated", false)) {
    trace.warnings.push_back(fmt::format("{}: the simulator stopped recording early (row limit)", source));
  }
}

KernelTrace load_trace_file(const std::string& path) {
  std::string text = read_trace_file(path);
  if (is_gzip(text)) text = gunzip(text, path);
  KernelTrace trace = parse_trace_text(detect_trace_text(std::string_view(text).substr(0, 4096)), text, path);
  const std::string sidecar = path + ".servebench.json";
  std::error_code ec;
  if (std::filesystem::is_regular_file(sidecar, ec)) apply_sim_sidecar(read_trace_file(sidecar), sidecar, trace);
  return trace;
}

KernelTrace load_trace(const std::string& path) {
  const DetectedTrace detected = detect_trace_format(path);
  KernelTrace merged;
  for (const std::string& file : detected.files) {
    KernelTrace part = load_trace_file(file);
    if (merged.files.empty()) {
      merged = std::move(part);
      continue;
    }
    merged.events.insert(merged.events.end(), std::make_move_iterator(part.events.begin()),
                         std::make_move_iterator(part.events.end()));
    merged.files.insert(merged.files.end(), part.files.begin(), part.files.end());
    merged.warnings.insert(merged.warnings.end(), part.warnings.begin(), part.warnings.end());
    merged.simulated = merged.simulated || part.simulated;
  }
  std::stable_sort(merged.events.begin(), merged.events.end(),
                   [](const KernelEvent& a, const KernelEvent& b) { return a.start_ns < b.start_ns; });
  return merged;
}

KernelStats load_kernel_stats_file(const std::string& path) { return parse_kernel_stats(read_trace_file(path), path); }

}  // namespace sb::trace
