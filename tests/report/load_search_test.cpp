// The knee search's console lines and its sweep-document block, on known records.
#include "report/load_search.hpp"

#include <gtest/gtest.h>

namespace sb::report {
namespace {

TEST(LoadSearchReport, EachStepSaysItsLoadAndWhy) {
  EXPECT_EQ(format_search_step(LoadMode::concurrency, {1, SearchReason::start, {}}, false), "knee search: c=1 (start)");
  EXPECT_EQ(format_search_step(LoadMode::concurrency, {16, SearchReason::doubling, {8, std::nullopt}}, false),
            "knee search: c=16 (doubling: throughput still growing at c=8)");
  EXPECT_EQ(format_search_step(LoadMode::concurrency, {12, SearchReason::bisect, {8, 16}}, false),
            "knee search: c=12 (bracket 8-16)");
  EXPECT_EQ(format_search_step(LoadMode::request_rate, {27, SearchReason::start, {}}, true),
            "knee search: rate 27 req/s (start: one over the test request's latency)");
  EXPECT_EQ(format_search_step(LoadMode::request_rate, {4, SearchReason::halving, {std::nullopt, 8}}, false),
            "knee search: rate 4 req/s (halving: rate 8 req/s already saturates)");
  EXPECT_EQ(format_search_step(LoadMode::request_rate, {336, SearchReason::bisect, {224, 448}}, false),
            "knee search: rate 336 req/s (bracket 224-448 req/s)");
}

LoadSearchRecord known_record() {
  LoadSearchRecord r;
  r.bracket = {11, 12};
  r.stages_run = 9;
  r.stopped = SearchStop::precision;
  return r;
}

TEST(LoadSearchReport, TheEndSaysWhereTheKneeIsAndWhyTheSearchStopped) {
  LoadSearchRecord r = known_record();
  EXPECT_EQ(format_search_end(r), "knee search: knee between c=11 and c=12, located to 10 % in 9 stages");
  r.bracket = {16, std::nullopt};
  r.stopped = SearchStop::budget;
  r.max_stages = 5;
  EXPECT_EQ(format_search_end(r),
            "knee search: throughput still growing at c=16 when the budget of 5 stages ran out (--max-stages)");
  r.stopped = SearchStop::failures;
  r.stages_run = 1;
  r.bracket = {};
  EXPECT_EQ(format_search_end(r), "knee search: stopped by failures after 1 stage; no stage finished");
}

TEST(LoadSearchReport, JsonBlockHasWholeConcurrenciesAndNullsForUnknownEnds) {
  LoadSearchRecord r = known_record();
  EXPECT_EQ(load_search_json(r).dump(),
            R"({"mode":"auto","load_mode":"concurrency","precision":0.1,"max_stages":12,"plateau_tolerance":0.05,)"
            R"("start":1,"bracket":[11,12],"knee":12,"stages_run":9,"stopped":"precision"})");
  r.mode = LoadMode::request_rate;
  r.start_load = 27;
  r.bracket = {448.5, std::nullopt};
  r.stopped = SearchStop::budget;
  const nlohmann::ordered_json j = load_search_json(r);
  EXPECT_EQ(j["load_mode"], "request_rate");
  EXPECT_EQ(j["bracket"].dump(), "[448.5,null]");
  EXPECT_TRUE(j["knee"].is_null());
  EXPECT_EQ(j["stopped"], "budget");
}

}  // namespace
}  // namespace sb::report
