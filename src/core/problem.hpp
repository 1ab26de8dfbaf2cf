#pragma once
// A problem with one field of a layer's parameter struct, as that layer's validate() reports it.
// The layer knows the field, not where its value came from: the caller names it (cli/ maps fields
// to flags through its flag table; a library caller shows the field). Each validate() returns every
// problem at once, in field order.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace sb {

struct Problem {
  std::string field;    // the struct member, as spelled there: "num_prompts", "ramp.start_rps"
  std::string message;  // what is wrong; "{field}" names another field of the same struct
};

using Problems = std::vector<Problem>;

// The problems of a member struct, as fields of the enclosing one: "ramp." + "start_rps", and the
// same inside the message's braces.
inline Problems nest_problems(Problems problems, std::string_view member) {
  const std::string prefix = std::string(member) + ".";
  for (Problem& p : problems) {
    p.field = prefix + p.field;
    for (std::size_t at = p.message.find('{'); at != std::string::npos; at = p.message.find('{', at + 1))
      p.message.insert(at + 1, prefix);
  }
  return problems;
}

// The message with each "{field}" replaced by name_of(field).
template <class NameOf>
std::string render_problem(const std::string& message, NameOf&& name_of) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t open = message.find('{'); open != std::string::npos; open = message.find('{', from)) {
    const std::size_t close = message.find('}', open);
    if (close == std::string::npos) break;
    out += message.substr(from, open - from);
    out += name_of(message.substr(open + 1, close - open - 1));
    from = close + 1;
  }
  return out + message.substr(from);
}

// "field: message" per problem, one line each, fields shown as they are named in the struct.
inline std::string describe_problems(const Problems& problems) {
  std::string text;
  for (const Problem& p : problems) {
    if (!text.empty()) text += "\n";
    text += p.field + ": " + render_problem(p.message, [](const std::string& f) { return f; });
  }
  return text;
}

// For library entry points whose callers may skip validate(): throws sb::UserError (config_error)
// listing every problem.
inline void throw_if_problems(const Problems& problems) {
  if (!problems.empty()) throw UserError(describe_problems(problems), ExitCode::config_error);
}

}  // namespace sb
