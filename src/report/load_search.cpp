#include "report/load_search.hpp"

#include <fmt/format.h>

#include <cmath>

namespace sb::report {
namespace {

std::string search_load_label(LoadMode mode, double load) {
  return mode == LoadMode::concurrency ? fmt::format("c={:g}", load) : fmt::format("rate {:g} req/s", load);
}

// "8-16" in concurrency mode, "216-432 req/s" in rate mode.
std::string search_bracket_text(LoadMode mode, double lo, double hi) {
  return mode == LoadMode::concurrency ? fmt::format("{:g}-{:g}", lo, hi) : fmt::format("{:g}-{:g} req/s", lo, hi);
}

// Concurrency values are whole numbers and read as such (12, not 12.0); rates as numbers.
nlohmann::ordered_json search_load_json(LoadMode mode, double v) {
  if (mode == LoadMode::concurrency) return static_cast<long long>(std::llround(v));
  return v;
}

nlohmann::ordered_json search_optional_json(LoadMode mode, const std::optional<double>& v) {
  return v ? search_load_json(mode, *v) : nlohmann::ordered_json(nullptr);
}

// "1 stage", "9 stages".
std::string search_stage_count(int n) { return fmt::format("{} stage{}", n, n == 1 ? "" : "s"); }

}  // namespace

std::string format_search_step(LoadMode mode, const SearchStep& step, bool start_from_latency) {
  const std::string load = search_load_label(mode, step.load);
  const LoadBracket& b = step.bracket;
  std::string why;
  switch (step.reason) {
    case SearchReason::start:
      why = start_from_latency ? "start: one over the test request's latency" : "start";
      break;
    case SearchReason::doubling:
      why = b.lo ? "doubling: throughput still growing at " + search_load_label(mode, *b.lo) : "doubling";
      break;
    case SearchReason::halving:
      why = b.hi ? "halving: " + search_load_label(mode, *b.hi) + " already saturates" : "halving";
      break;
    case SearchReason::bisect:
      why = b.lo && b.hi ? "bracket " + search_bracket_text(mode, *b.lo, *b.hi) : "bracket";
      break;
  }
  return fmt::format("knee search: {} ({})", load, why);
}

std::string format_search_end(const LoadSearchRecord& r) {
  const LoadBracket& b = r.bracket;
  std::string where;
  if (b.lo && b.hi) {
    where = fmt::format("knee between {} and {}", search_load_label(r.mode, *b.lo), search_load_label(r.mode, *b.hi));
  } else if (b.hi) {
    where = fmt::format("saturated already at {}, the lowest load run", search_load_label(r.mode, *b.hi));
  } else if (b.lo) {
    where = fmt::format("throughput still growing at {}", search_load_label(r.mode, *b.lo));
  } else {
    where = "no stage finished";
  }
  switch (r.stopped) {
    case SearchStop::precision:
      return fmt::format("knee search: {}, located to {:g} % in {}", where, r.precision * 100,
                         search_stage_count(r.stages_run));
    case SearchStop::budget:
      return fmt::format("knee search: {} when the budget of {} stages ran out (--max-stages)", where, r.max_stages);
    case SearchStop::failures:
      return fmt::format("knee search: stopped by failures after {}; {}", search_stage_count(r.stages_run), where);
    case SearchStop::aborted:
      return fmt::format("knee search: interrupted after {}; {}", search_stage_count(r.stages_run), where);
    case SearchStop::none: break;
  }
  return fmt::format("knee search: {} after {}", where, search_stage_count(r.stages_run));
}

nlohmann::ordered_json load_search_json(const LoadSearchRecord& r) {
  nlohmann::ordered_json j;
  j["mode"] = "auto";
  j["load_mode"] = to_string(r.mode);
  j["precision"] = r.precision;
  j["max_stages"] = r.max_stages;
  j["plateau_tolerance"] = r.plateau_tolerance;
  j["start"] = search_load_json(r.mode, r.start_load);
  j["bracket"] = nlohmann::ordered_json::array(
      {search_optional_json(r.mode, r.bracket.lo), search_optional_json(r.mode, r.bracket.hi)});
  j["knee"] = search_optional_json(r.mode, r.bracket.hi);
  j["stages_run"] = r.stages_run;
  j["stopped"] = to_string(r.stopped);
  return j;
}

}  // namespace sb::report
