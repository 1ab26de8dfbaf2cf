// The run config reader (TOML, gateway profiles): any text either becomes entries or one
// sb::UserError line naming the file; every entry has a canonical flag name, at least one value
// or none for a flag, and a FILE:LINE position. Nothing else may escape (toml++ errors, bad_alloc
// from a huge value, a crash).
#include <cstdint>
#include <optional>
#include <string>

#include "cli/config_file.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The first byte picks the profile: none (the only table, or the top level), or [gw].
  const std::optional<std::string> profile = (data[0] & 1) != 0 ? std::optional<std::string>("gw") : std::nullopt;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string path = "fuzz.toml";
  try {
    const sb::cli::ConfigFile file = sb::cli::parse_config_text(std::move(text), path, profile);
    for (const auto& e : file.entries) {
      if (e.key.empty() || e.key.rfind("--", 0) == 0 || e.key.find('_') != std::string::npos) __builtin_trap();
      if (e.key != sb::cli::canonical_flag_name(e.key)) __builtin_trap();
      if (e.where.rfind(path + ":", 0) != 0) __builtin_trap();
    }
  } catch (const sb::UserError& e) {
    const std::string what = e.what();
    if (what.empty() || what.find('\n') != std::string::npos) __builtin_trap();  // one line
  }
  return 0;
}
