// Coordinated omission, known answer (docs/results-format.md "intended time"): at a constant 100
// req/s through one slot, a server that stalls its 50th request for 1 s holds back the 99 requests
// due during the stall. Measured from the actual send, only the stalled request is slow (its p99 is
// not); measured from the intended send, as wrk2 does, the 99 waiting ones show the stall:
// sorted, 100 near 0, then 10, 20, ... 990 ms, then the stalled 1000 ms, so p90 = 801 ms and
// p99 = 980.1 ms (numpy interpolation), plus how long the backlog took to drain.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e/fault_server.hpp"
#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

TEST(CoordinatedOmission, OneSecondStallShowsInIntendedTimePercentilesOnly) {
  static_assert(kStallOnceAt == 50);
  TempDir dir("co_stall");
  FaultServer server(Fault::stall_once);
  ASSERT_NE(server.port(), 0);
  const RunResult r = run_servebench({"--port", server.port_text(), "--no-preflight-request", "--num-prompts", "200",
                                      "--random-input-len", "4", "--random-output-len", "3", "--request-rate", "100",
                                      "--burstiness", "inf", "--max-concurrency", "1", "--output-json", "out.json"},
                                     dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json stage = Json::parse(slurp(dir.path / "out.json"))["stages"][0];
  const Json from_intended = stage["servebench"]["e2el_from_intended_ms"];
  // Uncorrected (vLLM's E2EL, from the actual send): one slow request of 200.
  EXPECT_LT(stage["p90_e2el_ms"].get<double>(), sb::test_timing::upper_bound(50));
  EXPECT_LT(stage["p99_e2el_ms"].get<double>(), sb::test_timing::upper_bound(50));
  EXPECT_GE(stage["mean_e2el_ms"].get<double>(), 1000.0 / 200);  // the stalled one is in the mean
  // From the intended time: the known answer, late only by the drain (one request at a time).
  EXPECT_GE(from_intended["p90"].get<double>(), 795);
  EXPECT_LT(from_intended["p90"].get<double>(), sb::test_timing::upper_bound(950));  // the drain is a speed
  EXPECT_GE(from_intended["p99"].get<double>(), 975);
  EXPECT_LT(from_intended["p99"].get<double>(), sb::test_timing::upper_bound(1100));
  // The measured numbers, for the record (--gtest_output=json:FILE keeps them).
  ::testing::Test::RecordProperty("e2el_p99_ms", std::to_string(stage["p99_e2el_ms"].get<double>()));
  ::testing::Test::RecordProperty("e2el_from_intended_p90_ms", std::to_string(from_intended["p90"].get<double>()));
  ::testing::Test::RecordProperty("e2el_from_intended_p99_ms", std::to_string(from_intended["p99"].get<double>()));
  // The wait was the slot's, not the client's.
  EXPECT_EQ(stage["servebench"]["client_limit"], "concurrency_limit");
  EXPECT_NE(r.out.find("Latency from the intended send time"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace sb::e2e
