#include "cli/config_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <toml++/toml.h>

#include "core/error.hpp"

namespace sb::cli {

namespace {

// One TOML scalar as the text a user would type after the flag.
std::optional<std::string> scalar_text(const toml::node& n) {
  if (auto s = n.as_string()) return s->get();
  if (auto i = n.as_integer()) return std::to_string(i->get());
  if (auto f = n.as_floating_point()) return fmt::format("{}", f->get());
  if (auto b = n.as_boolean()) return b->get() ? "true" : "false";
  return std::nullopt;
}

ConfigEntry entry_for(const std::string& path, std::string_view key, const toml::node& node) {
  ConfigEntry e;
  e.key = canonical_flag_name(std::string(key));
  e.where = fmt::format("{}:{} ({})", path, node.source().begin.line, key);
  if (auto arr = node.as_array()) {
    for (const toml::node& item : *arr) {
      auto text = scalar_text(item);
      if (!text) throw UserError(e.where + ": array elements must be strings, numbers or booleans");
      e.values.push_back(std::move(*text));
    }
    return e;
  }
  auto text = scalar_text(node);
  if (!text) throw UserError(e.where + ": expected a string, number, boolean or array");
  e.values.push_back(std::move(*text));
  return e;
}

}  // namespace

std::string canonical_flag_name(std::string name) {
  while (!name.empty() && name.front() == '-') name.erase(0, 1);
  for (char& c : name)
    if (c == '_') c = '-';
  return name;
}

ConfigFile load_config_file(const std::string& path) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    if (!std::filesystem::exists(path)) throw UserError(fmt::format("--config: {}: no such file", path));
    throw UserError(fmt::format("{}:{}:{}: {}", path, where.line, where.column, e.description()));
  }
  ConfigFile cfg;
  cfg.path = path;
  for (auto&& [key, node] : table) cfg.entries.push_back(entry_for(path, key.str(), node));
  return cfg;
}

std::optional<std::string> find_config_file(const std::optional<std::string>& explicit_path,
                                            const std::string& dir) {
  if (explicit_path) return explicit_path;
  std::filesystem::path candidate = std::filesystem::path(dir) / "servebench.toml";
  std::error_code ec;
  if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
  return std::nullopt;
}

}  // namespace sb::cli
