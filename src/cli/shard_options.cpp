#include "cli/shard_options.hpp"

#include <fmt/format.h>

#include <cmath>

namespace sb::cli {

namespace {

// --shards N / SERVEBENCH_SHARDS: the count; the index is the Indexed Job's JOB_COMPLETION_INDEX.
void read_shard_from_count(const OptionReader& r, const EnvLookup& env, RunConfig& c) {
  std::optional<int> count = r.integer("shards", 1);
  std::string count_from = "--shards";
  if (!r.has("shards")) {
    const std::optional<std::string> v = env("SERVEBENCH_SHARDS");
    if (!v) return;
    const std::optional<long long> n = parse_integer(*v);
    if (!n || *n < 1 || *n > 100000) {
      r.error("shards", fmt::format("environment variable SERVEBENCH_SHARDS='{}' is not a shard count >= 1", *v));
      return;
    }
    count = static_cast<int>(*n);
    count_from = "SERVEBENCH_SHARDS";
  }
  if (!count) return;
  const std::optional<std::string> index_text = env("JOB_COMPLETION_INDEX");
  if (!index_text) {
    if (*count > 1)
      r.error("shards", fmt::format("{} {} needs the shard index in JOB_COMPLETION_INDEX (or use --shard I/N)",
                                    count_from, *count));
    return;
  }
  const std::optional<long long> index = parse_integer(*index_text);
  if (!index || *index < 0 || *index >= *count) {
    r.error("shards", fmt::format("JOB_COMPLETION_INDEX='{}' is not a shard index in 0..{}", *index_text, *count - 1));
    return;
  }
  c.shard = ShardSpec{static_cast<int>(*index), *count};
}

}  // namespace

void read_shard(const OptionReader& r, const EnvLookup& env, RunConfig& c) {
  if (const std::optional<std::string> text = r.text("shard")) {
    if (r.has("shards")) r.error("shard", "give --shard I/N or --shards N, not both");
    if (const std::optional<ShardSpec> s = parse_shard(*text)) c.shard = *s;
    else r.error("shard", fmt::format("'{}' is not I/N with 0 <= I < N", *text));
  } else {
    read_shard_from_count(r, env, c);
  }
  if (const std::optional<double> at = r.number("start-at", 0, false)) {
    if (*at < 1e9 || *at > 1e11) r.error("start-at", fmt::format("{} is not a Unix time in seconds (e.g. $(date +%s) + 60)", *at));
    else c.start_at_unix_ns = static_cast<std::int64_t>(std::llround(*at * 1e9));
  }
  c.barrier_dir = r.text("barrier-dir").value_or("");
  c.barrier_timeout_s = r.number("barrier-timeout-s", 0, false).value_or(c.barrier_timeout_s);
}

}  // namespace sb::cli
