#include "results/shard_input.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace sb::results {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

Nanos ms_to_ns(double ms) { return static_cast<Nanos>(std::llround(ms * 1e6)); }

template <class E, std::size_t N>
E enum_named(const std::string& text, const E (&all)[N], E fallback) {
  for (const E e : all)
    if (text == to_string(e)) return e;
  return fallback;
}

constexpr Outcome kOutcomes[] = {Outcome::ok, Outcome::connect_error, Outcome::http_error, Outcome::dropped,
                                 Outcome::malformed, Outcome::timeout, Outcome::no_tokens, Outcome::cancelled};
constexpr TokenSource kSources[] = {TokenSource::none, TokenSource::usage_chunk, TokenSource::usage_in_choice,
                                    TokenSource::usage_body, TokenSource::tokenizer, TokenSource::event_count};
constexpr FinishReason kReasons[] = {FinishReason::none, FinishReason::stop, FinishReason::length, FinishReason::other};

std::optional<double> lag_p99(const ordered_json& servebench) {
  const auto it = servebench.find("dispatch_lag_ms");
  if (it == servebench.end() || !it->is_object() || !(*it)["p99"].is_number()) return std::nullopt;
  return (*it)["p99"].get<double>();
}

// The vLLM keys give the rate and burstiness (null = inf, as the sweep writes non-finite numbers).
StageLoad plan_load_of(const ordered_json& stage, const ordered_json& shard_stage) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  StageLoad l;
  const ordered_json& rate = stage.at("request_rate");
  l.request_rate = rate.is_number() ? rate.get<double>() : kInf;
  const ordered_json& b = stage.at("burstiness");
  l.burstiness = b.is_number() ? b.get<double>() : kInf;
  const ordered_json& c = shard_stage.at("plan_max_concurrency");
  if (c.is_number()) l.max_concurrency = c.get<int>();
  return l;
}

ShardStageInput stage_input_of(const ordered_json& stage, const ordered_json& shard_stage) {
  ShardStageInput s;
  const ordered_json& own = stage.at("servebench");
  s.stage_index = own.at("stage_index").get<std::size_t>();
  const ordered_json& lv = own.at("load_value");
  s.load_value = lv.is_number() ? lv.get<double>() : std::numeric_limits<double>::infinity();
  s.plan_load = plan_load_of(stage, shard_stage);
  s.plan_requests = shard_stage.at("plan_requests").get<int>();
  s.requests = shard_stage.at("requests").get<int>();
  const ordered_json& planned = shard_stage.at("planned_start_unix_ns");
  s.planned_start_unix_ns = planned.is_number() ? planned.get<std::int64_t>() : 0;
  s.t0_unix_ns = shard_stage.at("t0_unix_ns").get<std::int64_t>();
  if (const auto it = shard_stage.find("clock_offset_ms"); it != shard_stage.end() && it->is_number())
    s.clock_offset_ms = it->get<double>();
  s.dispatch_lag_p99_ms = lag_p99(own);
  return s;
}

}  // namespace

ShardInput parse_shard_doc(std::string_view text, const std::string& path) {
  ShardInput in;
  in.path = path;
  try {
    in.doc = ordered_json::parse(text);
  } catch (const json::parse_error& e) {
    throw UserError(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  const auto shard = in.doc.find("shard");
  if (in.doc.value("kind", "") != "servebench.sweep" || shard == in.doc.end() || !shard->is_object())
    throw UserError(fmt::format("{}: not a shard's sweep document (no \"shard\" object; run with --shard I/N)", path));
  try {
    in.spec = ShardSpec{shard->at("index").get<int>(), shard->at("count").get<int>()};
    in.plan_hash = shard->at("plan_hash").get<std::string>();
    if (const ordered_json& at = shard->at("start_at_unix_ns"); at.is_number()) in.start_at_unix_ns = at.get<std::int64_t>();
    const ordered_json& stages = in.doc.at("stages");
    const ordered_json& shard_stages = shard->at("stages");
    if (stages.size() != shard_stages.size())
      throw UserError(fmt::format("{}: {} stages but the shard object records {}", path, stages.size(), shard_stages.size()));
    for (std::size_t k = 0; k < stages.size(); ++k) in.stages.push_back(stage_input_of(stages[k], shard_stages[k]));
  } catch (const json::exception& e) {
    throw UserError(fmt::format("{}: malformed shard document: {}", path, e.what()));
  }
  if (!validate(in.spec).empty()) throw UserError(fmt::format("{}: shard {}/{} is not a valid shard", path, in.spec.index, in.spec.count));
  return in;
}

RequestRecord record_from_json(const json& j, std::size_t& stage) {
  RequestRecord r;
  stage = j.at("stage").get<std::size_t>();
  r.index = j.at("index").get<std::uint32_t>();
  r.outcome = enum_named(j.at("outcome").get<std::string>(), kOutcomes, Outcome::malformed);
  r.http_status = j.at("http_status").get<int>();
  r.error = j.at("error").get<std::string>();
  r.intended_ns = ms_to_ns(j.at("intended_ms").get<double>());
  r.sent_ns = ms_to_ns(j.at("sent_ms").get<double>());
  const json& fb = j.at("first_byte_ms");
  r.first_byte_ns = fb.is_null() ? -1 : ms_to_ns(fb.get<double>());
  r.done_ns = ms_to_ns(j.at("done_ms").get<double>());
  // Token times: the first at sent + TTFT, each next one ITL later (the JSONL's own construction).
  if (const json& ttft = j.at("ttft_ms"); !ttft.is_null()) {
    Nanos t = r.sent_ns + ms_to_ns(ttft.get<double>());
    r.token_ns.push_back(t);
    for (const json& gap : j.at("itl_ms")) r.token_ns.push_back(t += ms_to_ns(gap.get<double>()));
  }
  r.prompt_tokens = j.at("prompt_tokens").get<int>();
  r.dataset_prompt_tokens = r.prompt_tokens;
  r.output_tokens = j.at("output_tokens").get<int>();
  r.expected_output_tokens = j.at("expected_output_tokens").get<int>();
  r.token_source = enum_named(j.at("token_source").get<std::string>(), kSources, TokenSource::none);
  r.aborted = j.at("aborted").get<bool>();
  r.retries = j.value("retries", 0);
  r.finish_reason = enum_named(j.value("finish_reason", std::string("none")), kReasons, FinishReason::none);
  r.saw_text = j.value("saw_text", !r.token_ns.empty());
  r.cached_prompt_tokens = j.value("cached_prompt_tokens", -1);
  // Cancelled before it was sent (Ctrl-C): counts in no metric (request_record.hpp).
  r.was_sent = !(r.outcome == Outcome::cancelled && r.first_byte_ns < 0 && r.sent_ns == 0);
  return r;
}

void add_shard_records(std::string_view jsonl, const std::string& path, ShardInput& shard) {
  std::size_t line_no = 0;
  while (!jsonl.empty()) {
    const std::size_t nl = jsonl.find('\n');
    const std::string_view line = jsonl.substr(0, nl);
    jsonl = nl == std::string_view::npos ? std::string_view() : jsonl.substr(nl + 1);
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::size_t stage = 0;
    RequestRecord r;
    try {
      r = record_from_json(json::parse(line), stage);
    } catch (const json::exception& e) {
      throw UserError(fmt::format("{}:{}: malformed request record: {}", path, line_no, e.what()));
    }
    // Warm-up and preflight requests are no stage's: only records of the document's stages count.
    bool placed = false;
    for (ShardStageInput& s : shard.stages)
      if (s.stage_index == stage && !placed) {
        s.records.push_back(std::move(r));
        placed = true;
      }
    if (!placed) throw UserError(fmt::format("{}:{}: stage {} is not in the shard's sweep document", path, line_no, stage));
  }
}

}  // namespace sb::results
