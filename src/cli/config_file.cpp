#include "cli/config_file.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
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

// api_key, or a header whose name carries credentials (net/secrets.hpp's list).
bool holds_credential(const ConfigFile& cfg) {
  for (const ConfigEntry& e : cfg.entries) {
    if (e.key == "api-key") return true;
    if (e.key != "header") continue;
    for (const std::string& h : e.values) {
      std::string name = h.substr(0, h.find_first_of(":="));
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (name.find("authorization") != std::string::npos || name.find("api-key") != std::string::npos)
        return true;
    }
  }
  return false;
}

void warn_if_readable(ConfigFile& cfg) {
  struct stat st {};
  if (::stat(cfg.path.c_str(), &st) != 0 || (st.st_mode & (S_IRGRP | S_IROTH)) == 0) return;
  if (!holds_credential(cfg)) return;
  cfg.warnings.push_back(fmt::format("{} holds an API key and can be read by {} (mode {:04o}): chmod 600 {}",
                                     cfg.path, (st.st_mode & S_IROTH) ? "everyone" : "its group",
                                     st.st_mode & 07777, cfg.path));
}

}  // namespace

std::string canonical_flag_name(std::string name) {
  while (!name.empty() && name.front() == '-') name.erase(0, 1);
  for (char& c : name)
    if (c == '_') c = '-';
  return name;
}

ConfigFile load_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) throw UserError(fmt::format("--config: {}: no such file", path));
    throw UserError(fmt::format("--config: {}: cannot read: {}", path, std::strerror(errno)));
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A byte order mark (Windows editors write one) is not TOML; the line numbers stay the same.
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  toml::table table;
  try {
    table = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    if (!std::filesystem::exists(path)) throw UserError(fmt::format("--config: {}: no such file", path));
    throw UserError(fmt::format("{}:{}:{}: {}", path, where.line, where.column, e.description()));
  }
  ConfigFile cfg;
  cfg.path = path;
  for (auto&& [key, node] : table) cfg.entries.push_back(entry_for(path, key.str(), node));
  warn_if_readable(cfg);
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
