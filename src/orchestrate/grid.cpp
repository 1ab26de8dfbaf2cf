#include "orchestrate/grid.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>

#include "core/error.hpp"

namespace sb::orchestrate {

namespace {

std::string toml_scalar_text(const toml::node& n) {
  if (auto s = n.as_string()) return s->get();
  if (auto i = n.as_integer()) return std::to_string(i->get());
  if (auto f = n.as_floating_point()) return fmt::format("{}", f->get());
  if (auto b = n.as_boolean()) return b->get() ? "true" : "false";
  return {};
}

bool toml_is_scalar(const toml::node& n) {
  return n.is_string() || n.is_integer() || n.is_floating_point() || n.is_boolean();
}

// toml++ keeps a table's keys sorted; the file's order is the source position.
template <typename Entry>
void sort_by_position(std::vector<Entry>& entries) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    const auto& pa = a.second->source().begin;
    const auto& pb = b.second->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
}

using TomlEntry = std::pair<std::string, const toml::node*>;

std::vector<TomlEntry> entries_in_file_order(const toml::table& t) {
  std::vector<TomlEntry> out;
  for (auto&& [key, node] : t) out.emplace_back(std::string(key.str()), &node);
  sort_by_position(out);
  return out;
}

Configuration configuration_of(const std::string& name, const toml::table& table, const std::string& source) {
  Configuration c{name, {}};
  for (const auto& [key, node] : entries_in_file_order(table)) {
    const std::string where =
        fmt::format("{}:{} ([{}] {})", source, node->source().begin.line, one_line(name), one_line(key));
    if (!toml_is_scalar(*node)) throw UserError(where + ": expected a string, number or boolean");
    if (const std::string p = key_problem(key); !p.empty()) throw UserError(where + ": " + p);
    c.params.emplace_back(key, toml_scalar_text(*node));
  }
  return c;
}

}  // namespace

std::string key_problem(std::string_view key) {
  if (key.empty()) return "an empty key";
  for (const char c : key)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_')
      return fmt::format("'{}' is not a placeholder name (letters, digits and _ only)", one_line(key));
  if (key == "port" || key == "dir" || key == "name")
    return fmt::format("'{}' is a placeholder tune fills itself (port, dir, name)", key);
  return {};
}

GridAxis parse_grid_arg(std::string_view arg, std::string& error) {
  error.clear();
  const std::size_t eq = arg.find('=');
  if (eq == std::string_view::npos) {
    error = fmt::format("'{}' is not KEY=VALUE,VALUE,...", one_line(arg));
    return {};
  }
  GridAxis axis{std::string(arg.substr(0, eq)), {}};
  if (error = key_problem(axis.key); !error.empty()) return {};
  for (std::string_view rest = arg.substr(eq + 1);;) {
    const std::size_t comma = rest.find(',');
    std::string value(rest.substr(0, comma));
    if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end()) {
      error = fmt::format("{}: the value '{}' is listed twice", axis.key, one_line(value));
      return {};
    }
    axis.values.push_back(std::move(value));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return axis;
}

std::vector<Configuration> expand_grid(const std::vector<GridAxis>& axes) {
  if (axes.empty()) return {Configuration{"baseline", {}}};
  std::vector<Configuration> out{Configuration{}};
  for (const GridAxis& axis : axes) {
    std::vector<Configuration> next;
    for (const Configuration& c : out) {
      for (const std::string& v : axis.values) {
        Configuration d = c;
        d.params.emplace_back(axis.key, v);
        next.push_back(std::move(d));
      }
    }
    out = std::move(next);
  }
  for (Configuration& c : out)
    for (const auto& [k, v] : c.params) c.name += (c.name.empty() ? "" : ",") + k + "=" + v;
  return out;
}

std::vector<Configuration> parse_configurations_toml(std::string_view text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw UserError(fmt::format("{}:{}:{}: {}", source, where.line, where.column, one_line(e.description())));
  }
  std::vector<Configuration> out;
  for (const auto& [name, node] : entries_in_file_order(root)) {
    const toml::table* table = node->as_table();
    if (table == nullptr)
      throw UserError(fmt::format("{}:{} ({}): every top-level entry must be a [configuration] table", source,
                                  node->source().begin.line, one_line(name)));
    out.push_back(configuration_of(name, *table, source));
  }
  if (out.empty()) throw UserError(source + ": no [configuration] table");
  return out;
}

std::string config_dir_name(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 &&
        std::string_view("._=,+-").find(c) == std::string_view::npos)
      c = '_';
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

}  // namespace sb::orchestrate
