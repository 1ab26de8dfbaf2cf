// `servebench run` against `servebench sim` (fixed costs): per-stage TTFT/ITL match the configured
// costs, every stage completes --num-prompts requests, the sweep document carries the vLLM keys,
// and the per-request JSONL and vLLM files are written.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

TEST(RunE2e, ConcurrencyStaircaseMatchesFixedCosts) {
  TempDir dir("staircase");
  Sim sim({"--ttft-ms", "40", "--itl-ms", "10"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "16", "--random-input-len", "16",
                                "--random-output-len", "6", "--concurrency", "1", "4", "16", "--output-json",
                                "res/sweep.json", "--save-result", "--result-dir", "vllm", "--label", "e2e"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("============ Serving Benchmark Result ============"), std::string::npos);
  // The staircase table (columns sized to their widest cell).
  const std::size_t table = r.out.find("\nconcurrency  ");
  ASSERT_NE(table, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  out tok/s  total tok/s  TTFT p50 ms  TTFT p99 ms  TPOT p50 ms  ITL p99 ms  failed\n", table),
            std::string::npos) << r.out;
  // The knee line follows the table; its reason is printed once, not prefixed by a second "none" phrase.
  const std::size_t knee = r.out.find("\nknee: ", table);
  ASSERT_NE(knee, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("range: no knee", knee), std::string::npos) << r.out;
  const Json doc = Json::parse(slurp(dir.path / "res/sweep.json"));
  EXPECT_EQ(doc["load_mode"], "concurrency");
  EXPECT_EQ(doc["aborted"], false);
  ASSERT_EQ(doc["stages"].size(), 3u);
  const int limits[] = {1, 4, 16};
  for (int i = 0; i < 3; ++i) {
    const Json& s = doc["stages"][i];
    SCOPED_TRACE("stage " + std::to_string(i));
    EXPECT_EQ(s["max_concurrency"], limits[i]);
    EXPECT_EQ(s["completed"], 16);
    EXPECT_EQ(s["failed"], 0);
    EXPECT_EQ(s["total_output_tokens"], 16 * 6);
    // Fixed costs: first token after 40 ms, then one every 10 ms (loopback adds well under 5 ms).
    EXPECT_GE(s["median_ttft_ms"].get<double>(), 39.5);
    // Upper bounds leave room for a loaded 2-core CI machine (scheduling delay adds, never subtracts).
    EXPECT_LE(s["median_ttft_ms"].get<double>(), sb::test_timing::upper_bound(55.0));
    EXPECT_GE(s["median_itl_ms"].get<double>(), 9.0);
    EXPECT_LE(s["median_itl_ms"].get<double>(), sb::test_timing::upper_bound(14.0));
    EXPECT_GE(s["median_tpot_ms"].get<double>(), 7.5);
    EXPECT_LE(s["median_tpot_ms"].get<double>(), sb::test_timing::upper_bound(12.5));
    EXPECT_GE(s["median_e2el_ms"].get<double>(), 78.0);
    EXPECT_LE(s["median_e2el_ms"].get<double>(), sb::test_timing::upper_bound(106.0));
    for (const char* key : {"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
                            "request_rate", "burstiness", "duration", "request_throughput", "request_goodput",
                            "output_throughput", "total_token_throughput", "max_output_tokens_per_s",
                            "max_concurrent_requests", "p99_ttft_ms", "std_itl_ms", "p90_e2el_ms"})
      EXPECT_TRUE(s.contains(key)) << key;
    EXPECT_EQ(s["request_rate"], "inf");
    EXPECT_EQ(s["servebench"]["token_count_source"], "usage");
  }
  // Per-request JSONL: one line per request of every stage.
  const std::string jsonl = slurp(dir.path / "res/sweep.requests.jsonl");
  EXPECT_EQ(std::count(jsonl.begin(), jsonl.end(), '\n'), 48);
  EXPECT_EQ(doc["requests_file"], "sweep.requests.jsonl");
  // --save-result: one vLLM file per stage.
  int vllm_files = 0;
  for (const auto& e : fs::directory_iterator(dir.path / "vllm")) {
    EXPECT_EQ(e.path().filename().string().rfind("e2e-infqps-concurrency", 0), 0u) << e.path();
    ++vllm_files;
  }
  EXPECT_EQ(vllm_files, 3);
}

TEST(RunE2e, RateStagesChatBackendAndUsageInLastChunk) {
  TempDir dir("rate");
  Sim sim({"--ttft-ms", "5", "--itl-ms", "2", "--usage-in-last-chunk"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--backend", "openai-chat", "--base-url", "http://127.0.0.1:" + sim.port_text(),
                                "--num-prompts", "20", "--random-output-len", "4", "--random-input-len", "8",
                                "--request-rate", "50", "200", "--output-json", "rate.json", "--seed", "3"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(slurp(dir.path / "rate.json"));
  EXPECT_EQ(doc["load_mode"], "request_rate");
  ASSERT_EQ(doc["stages"].size(), 2u);
  EXPECT_EQ(doc["stages"][0]["request_rate"], 50.0);
  // The normalised schedule puts the last arrival at N / rate = 0.4 s.
  EXPECT_GE(doc["stages"][0]["duration"].get<double>(), 0.4);
  EXPECT_LT(doc["stages"][0]["duration"].get<double>(), sb::test_timing::upper_bound(0.8));
  for (const Json& s : doc["stages"]) {
    EXPECT_EQ(s["completed"], 20);
    EXPECT_EQ(s["total_output_tokens"], 80);
    EXPECT_TRUE(s["servebench"]["open_loop"].get<bool>());
    EXPECT_FALSE(s["servebench"]["schedule_lag_ms"].is_null());
  }
  const std::string jsonl = slurp(dir.path / "rate.requests.jsonl");
  EXPECT_NE(jsonl.find("\"token_source\": \"usage_in_choice\""), std::string::npos);
}

}  // namespace
}  // namespace sb::e2e
