#pragma once
// The text formats of `servebench tokenize`, kept out of the CLI file so they can be unit-tested:
// id lists ("1,2,3" in, "[1,2,3]" out) and the JSONL batch mode.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.hpp"

namespace sb::tok {

// "1, 2,3" -> {1,2,3}. Throws UserError naming `flag` and the bad item.
std::vector<std::int32_t> parse_id_list(std::string_view text, std::string_view flag);

// {1,2,3} -> "[1,2,3]"
std::string ids_to_json(const std::vector<std::int32_t>& ids);

// Reads one JSON string per line from `in`, writes one JSON array of ids per line to `out`, in
// order. A line that is not a JSON string is a UserError "<source>:<line>: ...". Returns the
// number of lines processed.
std::size_t tokenize_jsonl(const Tokenizer& tok, std::istream& in, std::ostream& out, bool add_special_tokens,
                           std::string_view source);

}  // namespace sb::tok
