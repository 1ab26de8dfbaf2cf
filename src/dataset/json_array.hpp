#pragma once
// Splits a top-level JSON array into the byte spans of its elements without parsing them, so a
// huge file (ShareGPT: ~650 MB, ~90k conversations) can be parsed element by element, in
// parallel, with small per-thread parsers instead of one parser sized to the whole document.
// Only string boundaries and bracket depth are tracked; each element is validated by its parser.
#include <cstddef>
#include <string_view>
#include <vector>

namespace sb::dataset {

struct ByteSpan {
  std::size_t begin = 0;
  std::size_t end = 0;  // one past the last byte
  bool operator==(const ByteSpan&) const = default;
};

// Throws UserError "NAME:LINE: why" when `json` is not an array or is cut short.
std::vector<ByteSpan> split_json_array(std::string_view json, std::string_view name);

}  // namespace sb::dataset
