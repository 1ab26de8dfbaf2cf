#pragma once
// The configurations `tune` runs, in order, the first being the baseline (sans-I/O):
//  - `--grid KEY=V1,V2` (repeatable): the cartesian product in flag order, the first flag's key
//    varying slowest, so the first configuration takes every key's first value;
//  - or a TOML file of named configurations, one table each, in file order:
//        [baseline]
//        max_num_seqs = 256
//        [small_batches]
//        max_num_seqs = 64
//        extra = "--enable-chunked-prefill"
//  - neither: one configuration, "baseline", with no parameters.
// Each key becomes the placeholder `{KEY}` of the server command and the profiler wrapper.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sb::orchestrate {

struct GridAxis {
  std::string key;
  std::vector<std::string> values;
};

struct Configuration {
  std::string name;  // "max_num_seqs=128,block_size=16", a table name, "baseline"
  std::vector<std::pair<std::string, std::string>> params;  // in axis (or file) order
};

// "max_num_seqs=128,256": the key before the first '=', values split on ','. An empty item is an
// empty value (the word holding only its placeholder then disappears from the command). On a
// problem returns an empty key and sets `error` (one line, without the flag's name).
GridAxis parse_grid_arg(std::string_view arg, std::string& error);

// The problem with a key name, or "": letters, digits and '_' (a placeholder name), not one of
// the placeholders tune fills itself (port, dir, name).
std::string key_problem(std::string_view key);

// The cartesian product; no axes: {"baseline", {}}. Axes must have distinct keys and values.
std::vector<Configuration> expand_grid(const std::vector<GridAxis>& axes);

// The configurations of a TOML file's text. Throws sb::UserError naming `source` and the line.
std::vector<Configuration> parse_configurations_toml(std::string_view text, const std::string& source);

// The folder name of a configuration under --output-dir: its name with every character outside
// [A-Za-z0-9._=,+-] replaced by '_' ("/" cannot be in a folder name).
std::string config_dir_name(std::string_view name);

}  // namespace sb::orchestrate
