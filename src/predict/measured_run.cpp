#include "predict/measured_run.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"

namespace sb::predict {
namespace {

using nlohmann::json;

double number_at(const json& line, const char* key, const std::string& where) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_number()) throw UserError(fmt::format("{}: '{}' missing or not a number", where, key));
  return it->get<double>();
}

MeasuredRequest request_of(const json& line, const std::string& where) {
  MeasuredRequest r;
  r.stage = static_cast<int>(number_at(line, "stage", where));
  r.index = static_cast<std::uint32_t>(number_at(line, "index", where));
  const auto outcome = line.find("outcome");
  r.ok = outcome != line.end() && outcome->is_string() && outcome->get<std::string>() == "ok";
  if (!r.ok) return r;
  r.intended_ms = number_at(line, "intended_ms", where);
  r.sent_ms = number_at(line, "sent_ms", where);
  r.prompt_tokens = static_cast<int>(number_at(line, "prompt_tokens", where));
  r.output_tokens = static_cast<int>(number_at(line, "output_tokens", where));
  return r;
}

}  // namespace

std::vector<MeasuredRequest> parse_measured_requests(std::string_view text, const std::string& path) {
  std::vector<MeasuredRequest> out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = fmt::format("{}:{}", path, line_no);
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) throw UserError(where + ": not a JSON object");
    out.push_back(request_of(j, where));
  }
  return out;
}

std::optional<std::string> sweep_requests_file(std::string_view sweep_text) {
  const json doc = json::parse(sweep_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  const auto it = doc.find("requests_file");
  if (it == doc.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::vector<MeasuredStage> measured_stages(const results::Run& run, const std::vector<MeasuredRequest>& requests) {
  std::map<int, std::vector<const MeasuredRequest*>> by_stage;
  for (const MeasuredRequest& r : requests)
    if (r.ok && r.prompt_tokens > 0 && r.output_tokens > 0) by_stage[r.stage].push_back(&r);
  std::vector<MeasuredStage> out;
  for (const results::Stage& s : run.stages) {
    const auto found = by_stage.find(s.stage_index);
    if (found == by_stage.end()) continue;
    std::vector<const MeasuredRequest*>& reqs = found->second;
    std::sort(reqs.begin(), reqs.end(), [](const auto* a, const auto* b) {
      return a->sent_ms != b->sent_ms ? a->sent_ms < b->sent_ms : a->index < b->index;
    });
    MeasuredStage m;
    m.stage_index = s.stage_index;
    m.load_value = s.load_value;
    m.replay.max_concurrency = s.max_concurrency;
    for (const MeasuredRequest* r : reqs)
      m.replay.requests.push_back({r->prompt_tokens, r->output_tokens, static_cast<Nanos>(std::llround(r->sent_ms * 1e6)),
                                   true, r->index});
    const std::optional<double> ttft = s.percentile(results::Metric::ttft, 50);
    const std::optional<double> tpot = s.percentile(results::Metric::tpot, 50);
    if (!ttft || !tpot || !(s.output_throughput > 0))
      throw UserError(fmt::format("{}: stage {} has no output throughput, TTFT p50 or TPOT p50 to fit to", run.source,
                                  s.stage_index));
    m.measured = {s.output_throughput, *ttft, *tpot};
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.stage_index < b.stage_index; });
  return out;
}

}  // namespace sb::predict
