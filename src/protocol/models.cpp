#include "protocol/models.hpp"

#include <simdjson.h>

#include "core/error.hpp"

namespace sb {

std::vector<ServedModel> parse_models(std::string_view body, std::string_view where) {
  simdjson::dom::parser parser;
  simdjson::dom::array data;
  simdjson::padded_string padded(body);
  if (parser.parse(padded)["data"].get_array().get(data)) {
    throw UserError(std::string(where) + ": not an OpenAI models list (expected {\"data\": [...]})",
                    ExitCode::unreachable);
  }
  std::vector<ServedModel> models;
  for (simdjson::dom::element item : data) {
    std::string_view id, root;
    if (item["id"].get_string().get(id)) continue;  // entries without a string id are not models
    if (item["root"].get_string().get(root)) root = {};
    double scale = 1;
    if (item["servebench_time_scale"].get_double().get(scale) || !(scale > 0) || scale > 1e6) scale = 1;
    models.push_back({std::string(id), std::string(root), scale});
  }
  return models;
}

}  // namespace sb
