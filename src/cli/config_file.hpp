#pragma once
// The optional TOML config file of `servebench run` (--config FILE, else ./servebench.toml).
// Keys: base_url, api_key, model, timeout_s, and any run flag name (dashes or underscores);
// default_model and timeout are read as model and timeout_s. Values become flag-style strings so
// the file and the command line share one validator.
//
// Gateway profiles: a file may hold tables, one per gateway, as users keep one key for every tool
// ([taotoken] / api_key / base_url / default_model / timeout). --profile NAME picks a table, or the
// only table when there is one; its keys replace the top-level ones. Other tables are not read.
#include <optional>
#include <string>
#include <vector>

namespace sb::cli {

struct ConfigEntry {
  std::string key;                  // canonical flag name: dashes, no leading "--" (e.g. "num-prompts")
  std::vector<std::string> values;  // scalar -> one value; array -> one per element; bool -> "true"/"false"
  std::string where;                // "FILE:LINE (key)" for error messages
  // From the chosen profile table, which other tools read too: a key servebench does not know is
  // a warning there, not an error.
  bool in_profile = false;
};

struct ConfigFile {
  std::string path;
  std::optional<std::string> profile;  // the table read, when the file has tables
  std::vector<ConfigEntry> entries;    // sorted by key; a profile's key replaces the top-level one
  // api_key (or an Authorization-like header) anywhere in the file, in a table read or not.
  bool holds_credential = false;
  // One line each, for stderr: a file holding a credential that group or others can read; a
  // table inside the profile (ignored).
  std::vector<std::string> warnings;
};

// `profile`: --profile NAME, else the file's only table. Throws sb::UserError (config_error)
// naming FILE:LINE for syntax errors and unsupported values (nested arrays, a key given under
// both of its names in one table), and listing the tables when the choice is missing or wrong.
// A UTF-8 byte order mark at the start is accepted. Checks the file's permissions.
ConfigFile load_config_file(const std::string& path, const std::optional<std::string>& profile = std::nullopt);

// The same for text already read (`path` only names it in messages): no permission check.
ConfigFile parse_config_text(std::string text, const std::string& path, const std::optional<std::string>& profile);

// "num_prompts" / "--num-prompts" -> "num-prompts".
std::string canonical_flag_name(std::string name);

// The file to read: `explicit_path` if set, else `dir`/servebench.toml when it exists.
std::optional<std::string> find_config_file(const std::optional<std::string>& explicit_path,
                                            const std::string& dir);

}  // namespace sb::cli
