#include "trace/rocprof_v1_json.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "trace/json_fields.hpp"

namespace sb::trace {
namespace {

using json_fields::as_int;
using json_fields::member;
using nlohmann::json;

constexpr std::int64_t kCopyLane = 1;
constexpr std::int64_t kFirstGpuLane = 6;
constexpr std::int64_t kFirstBarrierLane = 6 + 512;

// Begin/end in ns: args BeginNs/EndNs, else ts/dur µs.
bool read_times(const json& e, const json& args, KernelEvent& k) {
  const auto begin = as_int(member(args, "BeginNs"));
  const auto end = as_int(member(args, "EndNs"));
  if (begin && end) {
    k.start_ns = *begin;
    k.end_ns = *end;
    return true;
  }
  const auto ts = as_int(member(e, "ts"));
  const auto dur = as_int(member(e, "dur"));
  if (!ts || !dur) return false;
  k.start_ns = *ts * 1000;
  k.end_ns = k.start_ns + *dur * 1000;
  return true;
}

KernelEvent to_event(const json& e, std::int64_t lane, std::string_view source, std::size_t index) {
  const json empty = json::object();
  const json* args_ptr = member(e, "args");
  const json& args = args_ptr != nullptr ? *args_ptr : empty;
  KernelEvent k;
  const json* name = member(e, "name");
  k.name = name != nullptr && name->is_string() ? name->get<std::string>() : "unknown";
  k.kind = lane == kCopyLane ? OpKind::memcpy : OpKind::kernel;
  if (!read_times(e, args, k) || k.end_ns < k.start_ns) {
    throw UserError(fmt::format("{}: traceEvents[{}]: missing or bad BeginNs/EndNs and ts/dur", source, index));
  }
  const auto gpu = as_int(member(args, "gpu-id"));
  const auto dev = as_int(member(args, "dev-id"));
  k.device = static_cast<int>(gpu ? *gpu : dev ? *dev : (lane >= kFirstGpuLane ? lane - kFirstGpuLane : 0));
  k.queue = as_int(member(args, "queue-id")).value_or(-1);
  k.stream = as_int(member(args, "stream-id")).value_or(k.queue);
  k.pid = as_int(member(args, "pid")).value_or(-1);
  return k;
}

}  // namespace

bool is_rocprof_v1_json(std::string_view head) {
  std::string compact;
  for (const char c : head.substr(0, 64)) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') compact += c;
  }
  return compact.starts_with("{\"traceEvents\":[{}");
}

KernelTrace parse_rocprof_v1_json(std::string_view text, std::string_view source) {
  const json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw UserError(fmt::format("{}: not valid JSON (truncated file?)", source));
  const json* events = member(doc, "traceEvents");
  if (events == nullptr || !events->is_array()) throw UserError(fmt::format("{}: no traceEvents array", source));
  KernelTrace trace;
  trace.source_format = "rocprof_v1";
  trace.clock_domain = kClockBoottime;
  trace.files.emplace_back(source);
  for (std::size_t i = 0; i < events->size(); ++i) {
    const json& e = (*events)[i];
    const json* ph = member(e, "ph");
    const auto lane = as_int(member(e, "pid"));
    if (ph == nullptr || *ph != "X" || !lane) continue;
    const bool gpu_lane = *lane >= kFirstGpuLane && *lane < kFirstBarrierLane;
    if (*lane != kCopyLane && !gpu_lane) continue;
    trace.events.push_back(to_event(e, *lane, source, i));
  }
  return trace;
}

}  // namespace sb::trace
