#pragma once
// The client's ceiling a run records (docs/selftest.md): from the cache when it holds this machine's
// and binary's entry of the day, else measured now against the simulator started in-process on a
// free loopback port (well under a second), and cached. SB_SELFTEST_CACHE=FILE pins the file (CI,
// tests): its entry is used whatever its key and age; the cache is otherwise
// $XDG_CACHE_HOME/servebench/selftest.json or ~/.cache/servebench/selftest.json.
#include <cstdio>
#include <optional>
#include <string>

#include "metrics/client_use.hpp"
#include "pipeline/selftest.hpp"

namespace sb::cli {

// "" when neither SB_SELFTEST_CACHE, XDG_CACHE_HOME nor HOME is set.
std::string ceiling_cache_path(bool& pinned);

// Starts the zero-delay simulator, measures, stops it. `p.endpoint` is filled in.
ClientCeiling probe_ceiling(pipeline::SelftestParams p);

// The ceiling for a run with `threads` workers; a failed probe is a warning on `err`, never the
// end of the run (nullopt).
std::optional<ClientCeiling> ceiling_for_run(int threads, std::FILE* err);

}  // namespace sb::cli
