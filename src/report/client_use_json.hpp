#pragma once
// JSON of the client's ceiling (sweep `environment.client_ceiling`, the selftest cache) and of a
// stage's use of it (`servebench.client_use`, `client_limit`); docs/results-format.md.
#include <nlohmann/json.hpp>
#include <optional>

#include "metrics/client_use.hpp"

namespace sb::report {

const char* to_string(ClientLimit l) noexcept;      // "cpu" | "concurrency_limit" | "none"
const char* to_string(CeilingSource s) noexcept;    // "probe" | "cache" | "file"

nlohmann::ordered_json ceiling_json(const ClientCeiling& c);
// The inverse, for the cache file; nullopt when a field is missing or not a number.
std::optional<ClientCeiling> ceiling_from_json(const nlohmann::json& j);

nlohmann::ordered_json client_use_json(const ClientUse& u);

}  // namespace sb::report
