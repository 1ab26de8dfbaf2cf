#include "tokenizer/tokenize_io.hpp"

#include <simdjson.h>

#include <charconv>
#include <istream>
#include <ostream>

#include "core/error.hpp"

namespace sb::tok {

std::vector<std::int32_t> parse_id_list(std::string_view text, std::string_view flag) {
  std::vector<std::int32_t> ids;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    std::string_view item = text.substr(pos, comma - pos);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    std::int32_t id = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || id < 0) {
      throw UserError(std::string(flag) + ": '" + std::string(item) + "' is not a token id (expected e.g. 1,2,3)");
    }
    ids.push_back(id);
    pos = comma + 1;
  }
  return ids;
}

std::string ids_to_json(const std::vector<std::int32_t>& ids) {
  std::string out = "[";
  char buf[16];
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) out.push_back(',');
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, ids[i]);
    out.append(buf, end);
  }
  out.push_back(']');
  return out;
}

std::size_t tokenize_jsonl(const Tokenizer& tok, std::istream& in, std::ostream& out, bool add_special_tokens,
                           std::string_view source) {
  simdjson::dom::parser parser;
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view text;
    const auto err = parser.parse(line).get_string().get(text);
    if (err != simdjson::SUCCESS) {
      throw UserError(std::string(source) + ":" + std::to_string(n) + ": expected one JSON string per line (" +
                      simdjson::error_message(err) + ")");
    }
    out << ids_to_json(tok.encode(text, add_special_tokens)) << '\n';
  }
  return n;
}

}  // namespace sb::tok
