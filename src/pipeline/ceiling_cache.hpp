#pragma once
// The selftest's cache: one small JSON file of ceilings, each under its key (host, CPU model, this
// binary, client threads), valid for a day, so the probe before a run costs nothing most of the
// time. A file the user pinned (SB_SELFTEST_CACHE, for CI and tests) is used whatever its key and age.
#include <optional>
#include <string>

#include "metrics/client_use.hpp"

namespace sb::pipeline {

struct CeilingKey {
  std::string hostname, cpu_model, build;  // build: version + this executable's size and mtime
  int threads = 0;
  bool operator==(const CeilingKey&) const = default;
};

inline constexpr double kCeilingMaxAgeS = 24 * 3600.0;

// This machine's and this binary's key.
CeilingKey ceiling_key(int threads);

// The entry for `key` in the file at `path`, fresh at `now_unix_s` (source = cache); with `pinned`,
// the entry for key.threads, else the first, whatever its key and age (source = file). nullopt:
// no file, unreadable, or no such entry.
std::optional<ClientCeiling> read_ceiling_cache(const std::string& path, const CeilingKey& key, double now_unix_s,
                                                bool pinned);

// Adds or replaces the entry of `key` (creating the folder); entries of other keys stay. Returns
// false when the file could not be written (the run goes on without a cache).
bool write_ceiling_cache(const std::string& path, const CeilingKey& key, const ClientCeiling& c);

}  // namespace sb::pipeline
