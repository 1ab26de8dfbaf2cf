// Kineto JSON via nlohmann's DOM: a cold path that runs once per file. Files of hundreds of MB would
// want a SAX pass instead (docs/trace.md, "limits").
#include "trace/torch_trace.hpp"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "trace/json_fields.hpp"
#include "trace/rocprof_v1_json.hpp"

namespace sb::trace {
namespace {

using nlohmann::json;
using json_fields::as_int;
using json_fields::member;

// Kineto absolute-µs timestamps (pre-rebase PyTorch) are ~1.7e15; relative ones are far smaller.
constexpr double kAbsoluteUnixUs = 1e14;

std::optional<OpKind> gpu_kind(const json& cat) {
  if (!cat.is_string()) return std::nullopt;
  const auto& c = cat.get_ref<const std::string&>();
  if (c == "kernel") return OpKind::kernel;
  if (c == "gpu_memcpy") return OpKind::memcpy;
  if (c == "gpu_memset") return OpKind::memset;
  return std::nullopt;
}

// A µs value as whole ns. Integers are scaled exactly (old traces: absolute Unix µs ~1.7e15, beyond
// what a double holds at ns precision); decimals are split so the fraction keeps its 3 digits.
std::int64_t number_ns(const json& e, const char* key, std::string_view source, std::size_t index) {
  const json* v = member(e, key);
  if (v != nullptr && v->is_number_integer()) return v->get<std::int64_t>() * 1000;
  std::optional<double> us;
  if (v != nullptr && v->is_number()) us = v->get<double>();
  if (v != nullptr && v->is_string()) {
    try {
      us = std::stod(v->get_ref<const std::string&>());
    } catch (const std::exception&) {
    }
  }
  if (!us || !std::isfinite(*us)) {
    throw UserError(fmt::format("{}: traceEvents[{}]: missing or bad '{}'", source, index, key));
  }
  const double whole = std::floor(*us);
  return static_cast<std::int64_t>(whole) * 1000 + std::llround((*us - whole) * 1000.0);
}

KernelEvent to_event(const json& e, OpKind kind, std::int64_t base_ns, std::string_view source, std::size_t index) {
  KernelEvent k;
  k.kind = kind;
  const json* name = member(e, "name");
  k.name = name != nullptr && name->is_string() ? name->get<std::string>() : "unknown";
  k.start_ns = base_ns + number_ns(e, "ts", source, index);
  k.end_ns = k.start_ns + number_ns(e, "dur", source, index);
  const json* args = member(e, "args");
  const json empty = json::object();
  const json& a = args != nullptr ? *args : empty;
  k.device = static_cast<int>(as_int(member(a, "device")).value_or(as_int(member(e, "pid")).value_or(0)));
  k.stream = as_int(member(a, "stream")).value_or(as_int(member(e, "tid")).value_or(0));
  k.correlation = as_int(member(a, "correlation")).value_or(-1);
  if (kind != OpKind::kernel) k.bytes = as_int(member(a, "bytes")).value_or(-1);
  return k;
}

}  // namespace

bool is_gzip(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b;
}

bool looks_like_torch_trace(std::string_view head) {
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] != '{') return false;
  if (is_rocprof_v1_json(head)) return false;
  return head.find("\"traceEvents\"") != std::string_view::npos ||
         head.find("\"schemaVersion\"") != std::string_view::npos;
}

KernelTrace parse_torch_trace(std::string_view text, std::string_view source) {
  if (is_gzip(text)) {
    throw UserError(fmt::format("{}: gzip-compressed trace: decompress it first (gunzip -k)", source));
  }
  const json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw UserError(fmt::format("{}: not valid JSON (truncated file?)", source));
  const json* events = member(doc, "traceEvents");
  if (events == nullptr || !events->is_array()) throw UserError(fmt::format("{}: no traceEvents array", source));

  KernelTrace trace;
  trace.source_format = "torch";
  trace.files.emplace_back(source);
  const std::optional<std::int64_t> base = as_int(member(doc, "baseTimeNanoseconds"));
  trace.clock_domain = kClockUnix;
  for (std::size_t i = 0; i < events->size(); ++i) {
    const json& e = (*events)[i];
    const json* ph = member(e, "ph");
    const auto kind = gpu_kind(member(e, "cat") ? *member(e, "cat") : json());
    if (!kind || ph == nullptr || *ph != "X") continue;
    trace.events.push_back(to_event(e, *kind, base.value_or(0), source, i));
  }
  // No base: Unix µs if the values are that large, otherwise an unknown (relative) domain.
  const bool absolute = !trace.events.empty() && static_cast<double>(trace.events.front().start_ns) > kAbsoluteUnixUs * 1000.0;
  if (base || absolute) {
    trace.unix_offset_ns = 0;
  } else {
    trace.clock_domain = kClockUnknown;
  }
  return trace;
}

}  // namespace sb::trace
