#include "pipeline/run_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "pipeline/shard_plan.hpp"
#include "protocol/request_id.hpp"

namespace sb::pipeline {

namespace {

void append(Problems& to, Problems from) {
  for (Problem& p : from) to.push_back(std::move(p));
}

}  // namespace

Problems validate(const RunConfig& c) {
  Problems out;
  append(out, nest_problems(validate(c.client), "client"));
  // Sent as "Authorization: Bearer KEY": a line break would start another header (never shown).
  if (c.api_key.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos)
    out.push_back({"api_key", "holds a line break or NUL (the key is not shown)"});
  const std::string want = c.client.api == Api::chat ? "chat/completions" : "completions";
  const bool chat_path = c.client.path.ends_with("chat/completions");
  if (!c.client.path.ends_with(want) || (c.client.api == Api::completions && chat_path))
    out.push_back({"client.path", fmt::format("'{}' does not end in '{}' as {{backend}} {} needs", c.client.path, want,
                                              c.backend)});
  append(out, nest_problems(validate(c.dataset), "dataset"));
  // With a known request count the rates are checked against the schedule's range too.
  append(out, nest_problems(c.dataset.num_prompts > 0 ? validate(c.load, c.dataset.num_prompts) : validate(c.load),
                            "load"));
  append(out, nest_problems(validate(c.request), "request"));
  if (c.num_warmups < 0) out.push_back({"num_warmups", fmt::format("must be >= 0, got {}", c.num_warmups)});
  static const std::vector<std::string> kMetrics{"ttft", "tpot", "itl", "e2el", "client_queue_time",
                                                 "e2el_including_client_queue"};
  for (const std::string& m : c.percentile_metrics) {
    if (std::find(kMetrics.begin(), kMetrics.end(), m) == kMetrics.end())
      out.push_back({"percentile_metrics", fmt::format("'{}' is not one of ttft, tpot, itl, e2el, client_queue_time, "
                                                       "e2el_including_client_queue", m)});
  }
  for (double p : c.metric_percentiles) {
    if (p > 100) out.push_back({"metric_percentiles", fmt::format("{} is above 100", p)});
    else if (!(p >= 0)) out.push_back({"metric_percentiles", fmt::format("{} is below 0", p)});
  }
  if (c.stage_seconds && !(*c.stage_seconds > 0 && *c.stage_seconds <= 86400))
    out.push_back({"stage_seconds", fmt::format("must be in (0, 86400] seconds, got {}", *c.stage_seconds)});
  if (c.stage_seconds && c.load.ramp.kind != RampKind::none)
    out.push_back({"stage_seconds", "cannot be combined with a ramp-up (the ramp defines the stage's length)"});
  if (!c.stage_seconds && !c.prompts_bound_stages)
    out.push_back({"stage_seconds", "is needed when stages are not bounded by the prompt count"});
  // Closed loop without a limit sends every listed request at once; cycling them until the deadline
  // would never stop sending.
  const bool unlimited_closed_loop =
      c.load.concurrency.empty() && !c.load.max_concurrency &&
      std::any_of(c.load.request_rates.begin(), c.load.request_rates.end(), [](double r) { return std::isinf(r); });
  if (c.stage_seconds && !c.prompts_bound_stages && unlimited_closed_loop)
    out.push_back({"stage_seconds", "with an unlimited rate needs --concurrency or --max-concurrency (or --num-prompts)"});
  if (c.repeats < 1 || c.repeats > 1000) out.push_back({"repeats", fmt::format("must be in [1, 1000], got {}", c.repeats)});
  if (c.max_failure_ratio && !(*c.max_failure_ratio >= 0 && *c.max_failure_ratio <= 1))
    out.push_back({"max_failure_ratio", "must be in [0, 1]"});
  append(out, validate_shard(c));  // --shard I/N (docs/distributed.md)
  return out;
}

std::string random_request_id_prefix() {
  std::random_device rd;
  return run_tagged_prefix(rd());  // the shape the simulator strips (protocol/request_id.hpp)
}

std::string default_requests_path(const RunConfig& c) {
  namespace fs = std::filesystem;
  if (!c.output_json.empty()) {
    fs::path p(c.output_json);
    return (p.parent_path() / (p.stem().string() + ".requests.jsonl")).string();
  }
  if (c.save_result) {
    fs::path dir = c.result_dir.empty() ? fs::path(".") : fs::path(c.result_dir);
    return (dir / (c.label.value_or(c.backend) + ".requests.jsonl")).string();
  }
  return "";
}

}  // namespace sb::pipeline
