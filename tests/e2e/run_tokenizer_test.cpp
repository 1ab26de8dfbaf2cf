// `servebench run` without --tokenizer against `servebench sim --tokenizer llama2`: prompt lengths
// come from the server's /tokenize, so the random prompts the server counts are exactly the
// requested lengths. Also --csv and a ramp-up stage.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"
#include "support/test_paths.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

TEST(RunE2e, ServerTokenizerGivesExactRandomPromptLengths) {
  SB_REQUIRE_TOKENIZER("llama2");
  TempDir dir("server_tok");
  Sim sim({"--ttft-ms", "2", "--itl-ms", "1", "--tokenizer", sb::test_files::tokenizer_dir("llama2")}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "12", "--random-input-len", "48",
                                "--random-output-len", "4", "--concurrency", "4", "--output-json", "t.json",
                                "--csv", "t.csv"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("prompt lengths are counted by the server's /tokenize (server:sim-model)"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("approximate"), std::string::npos) << r.err;
  const Json doc = Json::parse(slurp(dir.path / "t.json"));
  const Json& s = doc["stages"][0];
  EXPECT_EQ(s["tokenizer_id"], "server:sim-model");
  const Json& in = s["servebench"]["input_len"];
  // Requested (the server's count of each prompt before sending) = delivered (usage) = 48.
  EXPECT_EQ(in["requested"]["mean"], 48.0) << in.dump();
  EXPECT_EQ(in["delivered"]["mean"], 48.0) << in.dump();
  EXPECT_EQ(in["delivered"]["p99"], 48.0) << in.dump();
  EXPECT_EQ(s["total_input_tokens"], 12 * 48);
  // --csv: header + one row, CRLF records.
  const std::string csv = slurp(dir.path / "t.csv");
  EXPECT_EQ(csv.rfind("stage_index,load_mode,load_value,", 0), 0u) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2) << csv;
}

TEST(RunE2e, NoTokenizeEndpointWarnsLengthsApproximate) {
  TempDir dir("no_tok");
  Sim sim({"--ttft-ms", "2", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "4", "--random-output-len", "2",
                                "--output-json", "n.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: no --tokenizer and the server cannot tokenize"), std::string::npos) << r.err;
  EXPECT_TRUE(Json::parse(slurp(dir.path / "n.json"))["stages"][0]["tokenizer_id"].is_null());
}

TEST(RunE2e, RampUpStage) {
  TempDir dir("ramp");
  Sim sim({"--ttft-ms", "2", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "30", "--random-output-len", "2",
                                "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "20", "--ramp-up-end-rps",
                                "100", "--output-json", "ramp.json", "--seed", "1"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Traffic ramp-up strategy: linear.\nWill increase RPS from 20 to 100 RPS"),
            std::string::npos) << r.out;
  const Json s = Json::parse(slurp(dir.path / "ramp.json"))["stages"][0];
  EXPECT_EQ(s["completed"], 30);
  EXPECT_EQ(s["ramp_up_strategy"], "linear");  // vLLM's keys
  EXPECT_EQ(s["ramp_up_start_rps"], 20);
  EXPECT_EQ(s["ramp_up_end_rps"], 100);
  // Mean gap of a linear ramp 20 -> 100 req/s over 30 requests is about 1/48 s: ~0.6 s in all,
  // far from the 0 s of the unpaced default (inf) and from the 1.5 s of 20 req/s throughout.
  EXPECT_GT(s["duration"].get<double>(), 0.25);
  EXPECT_LT(s["duration"].get<double>(), sb::test_timing::upper_bound(1.4));
}

}  // namespace
}  // namespace sb::e2e
