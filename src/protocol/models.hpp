#pragma once
// Parses the body of GET /v1/models (sans-I/O): {"data": [{"id": ..., "root": ...}, ...]}.
#include <string>
#include <string_view>
#include <vector>

namespace sb {

struct ServedModel {
  std::string id;    // name to send in the `model` field
  std::string root;  // model the id was derived from (vLLM: the path/HF id; tokenizer source); "" if absent
  double time_scale = 1;  // servebench sim's `servebench_time_scale`: it runs this many times faster than the GPU it models
};

// Throws sb::UserError (unreachable) naming `where` when the body is not a models list.
std::vector<ServedModel> parse_models(std::string_view body, std::string_view where);

}  // namespace sb
