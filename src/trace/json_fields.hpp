#pragma once
// Lenient field access for profiler JSON (nlohmann DOM): Chrome-trace writers disagree on whether
// pid/tid/ts and args values are numbers or strings (rocprof v1 writes strings), so both are accepted.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace sb::trace::json_fields {

inline const nlohmann::json* member(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

// An integer given as a JSON integer, a float (truncated) or a decimal string; nullopt otherwise.
inline std::optional<std::int64_t> as_int(const nlohmann::json* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) return v->get<std::int64_t>();
  if (v->is_number_float()) return static_cast<std::int64_t>(v->get<double>());
  if (!v->is_string()) return std::nullopt;
  const auto& s = v->get_ref<const std::string&>();
  std::size_t used = 0;
  try {
    const long long value = std::stoll(s, &used);
    if (used == s.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace sb::trace::json_fields
