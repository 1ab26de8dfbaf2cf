// `servebench run` with a client tokenizer against `servebench sim` counting with the same
// tokenizer: random prompts must arrive exactly as long as requested (the server's `usage`
// says so), and the sharegpt / custom loaders deliver the lengths their files imply.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "e2e/run_process.hpp"
#include "support/test_paths.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

const std::string kLlama2 = sb::test_files::tokenizer_dir("llama2");
const std::string kQwen3 = sb::test_files::tokenizer_dir("qwen3");
const std::string kData = SB_SOURCE_DIR "/tests/data/dataset";

std::vector<Json> jsonl_lines(const fs::path& p) {
  std::vector<Json> out;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(Json::parse(line));
  }
  return out;
}

// Requested (client tokenizer) and delivered (server usage) summaries must be identical.
void expect_requested_equals_delivered(const Json& stage) {
  const Json& in = stage["servebench"]["input_len"];
  for (const char* k : {"mean", "p50", "p99"}) {
    EXPECT_EQ(in["requested"][k], in["delivered"][k]) << k << ": " << in.dump();
  }
}

TEST(DatasetE2e, RandomLlama2PromptsHitRequestedLengthsOnEveryStage) {
  SB_REQUIRE_TOKENIZER("llama2");
  TempDir dir("tok_random_l2");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--tokenizer", kLlama2}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--tokenizer", kLlama2, "--dataset-name", "random",
                                "--num-prompts", "16", "--random-input-len", "64", "--random-range-ratio", "0.5",
                                "--random-output-len", "3", "--seed", "7", "--concurrency", "2", "8",
                                "--output-json", "r.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(slurp(dir.path / "r.json"));
  ASSERT_EQ(doc["stages"].size(), 2u);
  for (const Json& s : doc["stages"]) {
    EXPECT_EQ(s["completed"], 16);
    EXPECT_EQ(s["tokenizer_id"], kLlama2);
    expect_requested_equals_delivered(s);
  }
  // Per request: every server count lies in [32, 96] and the lengths really vary (range 0.5).
  std::set<int> lengths;
  for (const Json& rec : jsonl_lines(dir.path / "r.requests.jsonl")) {
    const int n = rec["prompt_tokens"];
    EXPECT_GE(n, 32);
    EXPECT_LE(n, 96);
    lengths.insert(n);
  }
  EXPECT_GT(lengths.size(), 3u);
}

TEST(DatasetE2e, RandomQwen3PromptsExactlyRequestedLength) {
  SB_REQUIRE_TOKENIZER("qwen3");
  TempDir dir("tok_random_q3");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--tokenizer", kQwen3}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--tokenizer", kQwen3, "--dataset-name", "random",
                                "--num-prompts", "10", "--random-input-len", "40", "--random-range-ratio", "0",
                                "--random-prefix-len", "5", "--random-output-len", "2", "--output-json", "q.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json s = Json::parse(slurp(dir.path / "q.json"))["stages"][0];
  expect_requested_equals_delivered(s);
  EXPECT_EQ(s["total_input_tokens"], 10 * 45);  // prefix + 40 each, as the server counts them
  for (const Json& rec : jsonl_lines(dir.path / "q.requests.jsonl")) EXPECT_EQ(rec["prompt_tokens"], 45);
}

TEST(DatasetE2e, ShareGptFiltersAndCountsLikeTheServer) {
  SB_REQUIRE_TOKENIZER("llama2");
  TempDir dir("tok_sharegpt");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--tokenizer", kLlama2}, dir.path);
  ASSERT_NE(sim.port(), 0);
  // Of sharegpt_small.json only "d" passes the filters with llama2: "Hello there" is 3 tokens
  // with <s>, "hi" too short, "ok" answer < 4 tokens, "b" and "c" lack two turns.
  RunResult r = run_servebench({"--port", sim.port_text(), "--tokenizer", kLlama2, "--dataset-name", "sharegpt",
                                "--dataset-path", kData + "/sharegpt_small.json", "--num-prompts", "2",
                                "--output-json", "s.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("only 1 usable requests, oversampled to 2"), std::string::npos) << r.err;
  const Json s = Json::parse(slurp(dir.path / "s.json"))["stages"][0];
  expect_requested_equals_delivered(s);
  // "Quote \"this\"\nplease" -> 9 llama2 tokens with <s>; "Sure: été" -> 4 (hand-checked with
  // `servebench tokenize`), the output length the server is asked for.
  for (const Json& rec : jsonl_lines(dir.path / "s.requests.jsonl")) {
    EXPECT_EQ(rec["prompt_tokens"], 9);
    EXPECT_EQ(rec["expected_output_tokens"], 4);
    EXPECT_EQ(rec["output_tokens"], 4);
  }
  // Without --tokenizer the same lengths come from the server's POST /tokenize.
  r = run_servebench({"--port", sim.port_text(), "--dataset-name", "sharegpt", "--dataset-path",
                      kData + "/sharegpt_small.json", "--num-prompts", "2", "--output-json", "s2.json"},
                     dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("counted by the server's /tokenize"), std::string::npos) << r.err;
  const Json s2 = Json::parse(slurp(dir.path / "s2.json"))["stages"][0];
  EXPECT_EQ(s2["servebench"]["input_len"], s["servebench"]["input_len"]);
  EXPECT_EQ(s2["servebench"]["output_len"], s["servebench"]["output_len"]);
}

TEST(DatasetE2e, ShareGptWithoutAnyTokenizerSaysApproximate) {
  TempDir dir("tok_sharegpt_approx");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--dataset-name", "sharegpt", "--dataset-path",
                                kData + "/sharegpt_small.json", "--num-prompts", "2", "--sharegpt-output-len", "5",
                                "--output-json", "a.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("sharegpt: no tokenizer, token counts approximated as ceil(bytes/4)"), std::string::npos)
      << r.err;
  const Json s = Json::parse(slurp(dir.path / "a.json"))["stages"][0];
  EXPECT_TRUE(s["tokenizer_id"].is_null());
  // Only "d" passes: its 19-byte prompt counts as ceil(19/4) = 5; the others are under 4.
  EXPECT_EQ(s["servebench"]["input_len"]["requested"]["mean"], 5.0) << s["servebench"].dump();
}

// A client tokenizer that is not the server's must show up as requested != delivered.
TEST(DatasetE2e, TokenizerMismatchIsVisibleInInputLengths) {
  SB_REQUIRE_TOKENIZER("llama2");
  SB_REQUIRE_TOKENIZER("qwen3");
  TempDir dir("tok_mismatch");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--tokenizer", kLlama2}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--tokenizer", kQwen3, "--num-prompts", "6",
                                "--random-input-len", "64", "--random-range-ratio", "0", "--random-output-len", "2",
                                "--output-json", "m.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json in = Json::parse(slurp(dir.path / "m.json"))["stages"][0]["servebench"]["input_len"];
  EXPECT_EQ(in["requested"]["mean"], 64.0) << in.dump();
  EXPECT_NE(in["delivered"]["mean"], 64.0) << in.dump();
}

TEST(DatasetE2e, CustomJsonlUsesFileOutputTokensWithMinusOne) {
  SB_REQUIRE_TOKENIZER("llama2");
  TempDir dir("tok_custom");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1", "--tokenizer", kLlama2}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--tokenizer", kLlama2, "--dataset-name", "custom",
                                "--dataset-path", kData + "/custom_small.jsonl", "--custom-output-len", "-1",
                                "--num-prompts", "4", "--disable-shuffle", "--concurrency", "1",
                                "--output-json", "c.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json s = Json::parse(slurp(dir.path / "c.json"))["stages"][0];
  expect_requested_equals_delivered(s);
  EXPECT_EQ(s["total_input_tokens"], 3 + 6 + 2 + 2);  // llama2 counts of the four prompts, with <s>
  std::multiset<int> outputs;
  for (const Json& rec : jsonl_lines(dir.path / "c.requests.jsonl")) outputs.insert(rec["output_tokens"].get<int>());
  EXPECT_EQ(outputs, (std::multiset<int>{10, 20, 30, 40}));
}

}  // namespace
}  // namespace sb::e2e
