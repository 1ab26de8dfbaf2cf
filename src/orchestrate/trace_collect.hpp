#pragma once
// After a configuration's server stopped: the profiler files it left under its folder, and what
// they hold. The seeds' experience is that a profiler often "ran" and left nothing useful: rocprof
// without the video/render group writes a header and no rows, and a server that daemonises (or a
// wrapper that does not follow the real server process) leaves the files empty. Saying so beats a
// comparison that silently has no kernel rows.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/server_outcome.hpp"

namespace sb::orchestrate {

struct CollectedTraces {
  std::vector<std::filesystem::path> traces;       // recognised profiler files with kernel rows (sorted)
  std::vector<std::filesystem::path> empty;        // zero-byte files (not ours)
  std::vector<std::filesystem::path> header_only;  // recognised, without a single kernel row
  TraceOutcome outcome = TraceOutcome::not_asked;
};

// Looks through `dir` (3 levels deep, as rocprofv3 nests <host>/<pid>_kernel_trace.csv), skipping
// the files named in `ours` (tune's own outputs) and simulator sidecars (*.servebench.json).
// `profiling_asked`: a wrapper or --server-profile was given, so finding nothing is `missing`.
CollectedTraces collect_traces(const std::filesystem::path& dir, const std::set<std::string>& ours,
                               bool profiling_asked);

}  // namespace sb::orchestrate
