#pragma once
// The vocabulary of `servebench tune`'s server processes (src/orchestrate/ computes these, src/report/
// words them): here, below both, because report/ may not include orchestrate/.
namespace sb {

// What the last lines of a server's log say stopped it (orchestrate/log_diagnosis.hpp).
enum class LogCause {
  cuda_oom,     // "CUDA out of memory", "CUDA error: out of memory"
  hip_oom,      // "HIP out of memory", "hipErrorOutOfMemory" (ROCm)
  port_in_use,  // "Address already in use", "[Errno 98]"
  bad_flag,     // argparse's "unrecognized arguments" / "error: argument", CLI11's "not expected"
  unknown,
};

// How one configuration of `tune` ended.
enum class ConfigOutcome {
  ran,              // the staircase ran (its sweep exists)
  spawn_failed,     // the command could not be started (not found, not executable)
  exited_at_start,  // the server exited before it was ready
  not_ready,        // still not ready when --ready-timeout-s ran out
  run_failed,       // ready, but the run refused to start (preflight: unknown model, 401, ...)
  interrupted,      // Ctrl-C of tune
};

// What the profiler left behind for one configuration (orchestrate/trace_collect.hpp).
enum class TraceOutcome {
  not_asked,    // no --profile-wrapper and no --server-profile, and nothing found
  found,        // at least one trace with kernel rows
  missing,      // profiling was asked for and no profiler file appeared
  empty,        // profiler files exist, all zero bytes
  header_only,  // profiler files exist with a header and no kernel rows
};

// The signal that ended a server's process group leader when tune stopped it (orchestrate/server_process.hpp).
enum class StopStep { already_exited, sigint, sigterm, sigkill, survived };

}  // namespace sb
