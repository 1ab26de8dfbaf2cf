#include "sim/engine_toml.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace sb::sim {
namespace {

KnobValue value_of(const toml::node& n, KnobType type, const std::string& where) {
  switch (type) {
    case KnobType::integer:
      if (const auto* i = n.as_integer()) return i->get();
      throw UserError(where + ": expected an integer");
    case KnobType::number:
      if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
      if (const auto* f = n.as_floating_point()) return f->get();
      throw UserError(where + ": expected a number");
    case KnobType::boolean:
      if (const auto* b = n.as_boolean()) return b->get();
      throw UserError(where + ": expected true or false");
    case KnobType::text:
      if (const auto* s = n.as_string()) return s->get();
      throw UserError(where + ": expected a string");
  }
  throw UserError(where + ": unreadable value");
}

std::string table_list() {
  const auto tables = knob_tables();
  std::string out;
  for (std::size_t i = 0; i < tables.size(); ++i)
    out += fmt::format("{}[{}]", i == 0 ? "" : i + 1 == tables.size() ? " or " : ", ", tables[i]);
  return out;
}

// A TOML basic string: quotes and backslashes escaped (a path may hold either), control bytes as
// \uXXXX, which a basic string may not hold raw.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += '\\';
    if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\u{:04X}", u);
    else
      out += c;
  }
  return out + "\"";
}

std::string toml_value(const KnobValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return toml_string(*s);
  // fmt's {} is the shortest text that reads back as the same double, and true/false for a bool.
  return std::visit([](const auto& x) { return fmt::format("{}", x); }, v);
}

}  // namespace

KnobSettings read_engine_toml(std::string_view text, std::string_view file_name) {
  toml::table file;
  try {
    file = toml::parse(text, file_name);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw UserError(fmt::format("{}:{}:{}: {}", file_name, at.line, at.column, one_line(e.description())));
  }
  KnobSettings out;
  for (const auto& [section, node] : file) {
    const auto* table = node.as_table();
    const std::string sec(section.str());
    if (table == nullptr)
      throw UserError(
          fmt::format("{}:{}: '{}' must be a table: {}", file_name, node.source().begin.line, sec, table_list()));
    for (const auto& [key, value] : *table) {
      const std::string name(key.str());
      const std::string where = fmt::format("{}:{} ({}.{})", file_name, value.source().begin.line, sec, name);
      const EngineKnob* knob = find_knob(sec, name);
      if (knob == nullptr) throw UserError(where + ": unknown key");
      out.set(*knob, value_of(value, knob_type(*knob), where));
    }
  }
  return out;
}

std::string write_engine_toml(std::span<const EngineTomlLine> lines) {
  // A table may be opened once: the lines of each table go together, tables in the order of their
  // first line, lines in their given order.
  std::vector<std::string_view> tables;
  for (const EngineTomlLine& line : lines)
    if (std::find(tables.begin(), tables.end(), line.knob->table) == tables.end()) tables.push_back(line.knob->table);
  std::string out;
  for (const std::string_view table : tables) {
    out += fmt::format("\n[{}]\n", table);
    for (const EngineTomlLine& line : lines) {
      if (line.knob->table != table) continue;
      out += fmt::format("{} = {}", line.knob->key, toml_value(line.value));
      if (!line.comment.empty()) out += "  # " + line.comment;
      out += '\n';
    }
  }
  return out;
}

}  // namespace sb::sim
