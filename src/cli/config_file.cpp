#include "cli/config_file.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <iterator>
#include <map>
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

// The names the seed documents' gateway blocks use ([taotoken] / default_model / timeout), read as ours.
std::string config_key_name(std::string_view key) {
  std::string name = canonical_flag_name(std::string(key));
  if (name == "default-model") return "model";
  if (name == "timeout") return "timeout-s";
  return name;
}

ConfigEntry entry_for(const std::string& path, std::string_view key, const toml::node& node) {
  ConfigEntry e;
  e.key = config_key_name(key);
  // A quoted TOML key may hold any character: shown escaped, so messages stay one line.
  e.where = fmt::format("{}:{} ({})", path, node.source().begin.line, one_line(key));
  if (e.key.empty()) throw UserError(e.where + ": not a setting name");
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

std::size_t line_of(const toml::node& node) { return node.source().begin.line; }

// `table`'s keys into `out`, replacing what is there (a profile's keys beat the top level's);
// tables inside it are skipped (the caller decides what they mean). One setting under both of its
// names in one table (model and default_model) is an error: which one was meant is not clear.
void add_entries(const std::string& path, const toml::table& table, bool in_profile,
                 std::map<std::string, ConfigEntry>& out) {
  std::map<std::string, std::pair<std::size_t, std::string>> seen;  // key -> line, where
  for (auto&& [key, node] : table) {
    if (node.is_table()) continue;
    ConfigEntry e = entry_for(path, key.str(), node);
    e.in_profile = in_profile;
    const std::size_t line = line_of(node);
    if (auto it = seen.find(e.key); it != seen.end()) {
      const bool this_later = line >= it->second.first;
      throw UserError(fmt::format("{}: the same setting as {}; keep one", this_later ? e.where : it->second.second,
                                  this_later ? it->second.second : e.where));
    }
    seen[e.key] = {line, e.where};
    out[e.key] = std::move(e);
  }
}

std::string table_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "[" : ", [") + n + "]";
  return out;
}

struct ChosenProfile {
  std::string name;
  const toml::table* table = nullptr;  // nullptr: a file without tables
};

// The table --profile names, else the only one.
ChosenProfile chosen_profile(const std::string& path, const toml::table& root, const std::optional<std::string>& wanted) {
  std::vector<std::string> names;
  for (auto&& [key, node] : root)
    if (node.is_table()) names.emplace_back(key.str());
  if (wanted) {
    if (const toml::table* t = root[*wanted].as_table()) return {*wanted, t};
    throw UserError(fmt::format("--profile {}: {} has no table [{}] ({})", *wanted, path, *wanted,
                                names.empty() ? "it has no tables" : "its tables: " + table_list(names)));
  }
  if (names.empty()) return {};
  if (names.size() > 1)
    throw UserError(fmt::format("{} has {} profiles ({}): choose one with --profile NAME", path, names.size(),
                                table_list(names)));
  return {names.front(), root[names.front()].as_table()};
}

// api_key, or a header whose name carries credentials (net/secrets.hpp's list), in `table`.
bool table_holds_credential(const toml::table& table) {
  for (auto&& [key, node] : table) {
    const std::string name = config_key_name(key.str());
    if (name == "api-key") return true;
    if (name != "header") continue;
    std::vector<std::string> headers;
    if (auto arr = node.as_array()) {
      for (const toml::node& item : *arr)
        if (auto text = scalar_text(item)) headers.push_back(*text);
    } else if (auto text = scalar_text(node)) {
      headers.push_back(*text);
    }
    for (const std::string& h : headers) {
      std::string header_name = h.substr(0, h.find_first_of(":="));
      for (char& c : header_name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (header_name.find("authorization") != std::string::npos || header_name.find("api-key") != std::string::npos)
        return true;
    }
  }
  return false;
}

// Every table is looked at, read or not: the file holds the key either way.
bool file_holds_credential(const toml::table& root) {
  if (table_holds_credential(root)) return true;
  for (auto&& [key, node] : root)
    if (auto t = node.as_table(); t && table_holds_credential(*t)) return true;
  return false;
}

void warn_if_readable(ConfigFile& cfg) {
  struct stat st {};
  if (!cfg.holds_credential || ::stat(cfg.path.c_str(), &st) != 0 || (st.st_mode & (S_IRGRP | S_IROTH)) == 0) return;
  cfg.warnings.push_back(fmt::format("{} holds an API key and can be read by {} (mode {:04o}): chmod 600 {}",
                                     cfg.path, (st.st_mode & S_IROTH) ? "everyone" : "its group",
                                     st.st_mode & 07777, cfg.path));
}

}  // namespace

std::string canonical_flag_name(std::string name) {
  // Underscores first, so the result is canonical too ("_us" -> "us", as "--us" is; config_toml_fuzz).
  for (char& c : name)
    if (c == '_') c = '-';
  while (!name.empty() && name.front() == '-') name.erase(0, 1);
  return name;
}

namespace {

ConfigFile parse_config_text_as_is(std::string text, const std::string& path,
                                   const std::optional<std::string>& profile) {
  // A byte order mark (Windows editors write one) is not TOML; the line numbers stay the same.
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw UserError(fmt::format("{}:{}:{}: {}", path, where.line, where.column, one_line(e.description())));
  }
  ConfigFile cfg;
  cfg.path = path;
  cfg.holds_credential = file_holds_credential(root);
  std::map<std::string, ConfigEntry> entries;
  add_entries(path, root, false, entries);
  if (const ChosenProfile chosen = chosen_profile(path, root, profile); chosen.table) {
    cfg.profile = chosen.name;
    add_entries(path, *chosen.table, true, entries);
    for (auto&& [key, node] : *chosen.table) {
      if (node.is_table())
        cfg.warnings.push_back(fmt::format("{}:{} ({}): a table inside profile [{}], ignored", path, line_of(node),
                                           key.str(), *cfg.profile));
    }
  }
  for (auto& [key, e] : entries) cfg.entries.push_back(std::move(e));
  return cfg;
}

}  // namespace

// Table names, keys and --profile come from the user and may hold any character (a TOML basic
// string can spell a line break): every message is made one line here (config_toml_fuzz).
ConfigFile parse_config_text(std::string text, const std::string& path, const std::optional<std::string>& profile) {
  try {
    ConfigFile cfg = parse_config_text_as_is(std::move(text), path, profile);
    for (std::string& w : cfg.warnings) w = one_line(w);
    return cfg;
  } catch (const UserError& e) {
    throw UserError(one_line(e.what()), e.code());
  }
}

ConfigFile load_config_file(const std::string& path, const std::optional<std::string>& profile) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) throw UserError(fmt::format("--config: {}: no such file", path));
    throw UserError(fmt::format("--config: {}: cannot read: {}", path, std::strerror(errno)));
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ConfigFile cfg = parse_config_text(std::move(text), path, profile);
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
