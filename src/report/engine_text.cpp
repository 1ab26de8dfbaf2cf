#include "report/engine_text.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

namespace sb::report {

namespace {

// The clue names of target/engine.hpp, in words.
std::string_view clue_words(std::string_view clue) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kWords = {{
      {"given", "given by --engine"},
      {"models.owned_by", "from owned_by in GET /v1/models"},
      {"models.meta", "from the meta object in GET /v1/models"},
      {"header.server", "from the Server header"},
      {"props", "from GET /props"},
      {"get_model_info", "from GET /get_model_info"},
      {"get_server_info", "from GET /get_server_info"},
      {"info", "from GET /info"},
      {"version", "from GET /version"},
  }};
  for (const auto& [name, words] : kWords) {
    if (name == clue) return words;
  }
  return "generic: no engine-specific answer; --engine names one";
}

}  // namespace

std::string format_engine_line(std::string_view engine, std::string_view clue, std::string_view version) {
  const std::string_view how = clue_words(clue);
  if (version.empty()) return fmt::format("engine: {} ({})", engine, how);
  return fmt::format("engine: {} ({}, version {})", engine, how, version);
}

}  // namespace sb::report
