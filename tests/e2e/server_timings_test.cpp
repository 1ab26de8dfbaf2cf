// Server-side timings end to end: `servebench sim --dialect llama.cpp` sends llama.cpp's `timings`
// with the exact simulated prefill (fixed cost: ttft + prefill per prompt token, from slot start),
// and the run's per-request JSONL, TTFT split and prompt-cache share are checked against it. At
// low load (one request at a time, loopback) the server's prefill accounts for the client's TTFT
// within 1 ms, the known answer for the llama.cpp dialect.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "e2e/run_capture_server.hpp"
#include "e2e/run_process.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

constexpr double kTtftMs = 20, kPrefillUsPerToken = 50;

std::vector<Json> timing_jsonl_lines(const fs::path& p) {
  std::vector<Json> out;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(Json::parse(line));
  return out;
}

RunResult low_load_run(const Sim& sim, const fs::path& dir, const std::string& backend) {
  return run_servebench({"--backend", backend, "--port", sim.port_text(), "--num-prompts", "8",
                         "--random-input-len", "64", "--random-output-len", "4", "--concurrency", "1",
                         "--no-preflight-request", "--output-json", "s.json", "--requests-jsonl", "r.jsonl"},
                        dir);
}

void expect_llama_cpp_split(const std::string& backend) {
  TempDir dir("server_timings_" + backend);
  Sim sim({"--dialect", "llama.cpp", "--ttft-ms", "20", "--prefill-us-per-token", "50", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const RunResult r = low_load_run(sim, dir.path, backend);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<Json> lines = timing_jsonl_lines(dir.path / "r.jsonl");
  ASSERT_EQ(lines.size(), 8u);
  for (const Json& l : lines) {
    ASSERT_EQ(l["outcome"], "ok") << l.dump();
    const int prompt = l["prompt_tokens"].get<int>();
    // The simulator's cost, exactly: slot start (= arrival, nothing queued) to the first token.
    EXPECT_NEAR(l["server_prefill_ms"].get<double>(), kTtftMs + kPrefillUsPerToken * prompt / 1e3, 1e-3) << l.dump();
    EXPECT_EQ(l["server_prefill_tokens"], prompt);
    EXPECT_EQ(l["server_decode_tokens"], l["output_tokens"]);
    EXPECT_NEAR(l["server_decode_ms"].get<double>(), 3.0, 1e-3);  // 4 tokens, 1 ms apart
    EXPECT_EQ(l["cached_prompt_tokens"], 0);
    // The server cannot have produced the first token after the client saw it.
    EXPECT_GE(l["ttft_ms"].get<double>(), l["server_prefill_ms"].get<double>() - 1e-3) << l.dump();
  }
  const Json doc = Json::parse(slurp(dir.path / "s.json"));
  const Json& stage = doc["stages"][0];
  const Json& b = stage["servebench"]["ttft_breakdown_ms"];
  ASSERT_TRUE(b.is_object()) << stage["servebench"].dump();
  EXPECT_EQ(b["source"], "per_request");
  EXPECT_EQ(b["requests"], 8);
  EXPECT_EQ(b["covered"], 1.0);
  EXPECT_TRUE(b["server_queue_mean"].is_null());  // llama.cpp reports no queue time
  EXPECT_NEAR(b["client_ttft_mean"].get<double>(), stage["mean_ttft_ms"].get<double>(), 1e-6);
  EXPECT_NEAR(b["server_prefill_mean"].get<double>() + b["rest_mean"].get<double>(), b["client_ttft_mean"].get<double>(),
              1e-9);
  // The known answer: at low load the server's own stages make up the client's TTFT within 1 ms.
  EXPECT_GE(b["rest_median"].get<double>(), -1e-3);
  EXPECT_LT(b["rest_median"].get<double>(), 1.0) << b.dump();
  const Json& cache = stage["servebench"]["prompt_cache"];
  EXPECT_EQ(cache["requests"], 8);
  EXPECT_EQ(cache["cached_tokens"], 0);
  EXPECT_EQ(cache["mostly_cached"], false);
  EXPECT_NE(r.out.find("TTFT split, mean ms (per-request server timings, 8 of the stage's requests)"),
            std::string::npos) << r.out;
}

TEST(ServerTimingsE2e, LlamaCppCompletionsTtftSplitMatchesTheSimulatedPrefill) { expect_llama_cpp_split("vllm"); }

TEST(ServerTimingsE2e, LlamaCppChatTtftSplitMatchesTheSimulatedPrefill) { expect_llama_cpp_split("openai-chat"); }

TEST(ServerTimingsE2e, VllmDialectSendsNoTimingsAndNothingIsMadeUp) {
  TempDir dir("server_timings_vllm");
  Sim sim({"--ttft-ms", "2", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const RunResult r = low_load_run(sim, dir.path, "vllm");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const Json& l : timing_jsonl_lines(dir.path / "r.jsonl")) {
    EXPECT_FALSE(l.contains("server_prefill_ms")) << l.dump();
    EXPECT_FALSE(l.contains("cached_prompt_tokens")) << l.dump();
  }
  const Json doc = Json::parse(slurp(dir.path / "s.json"));
  EXPECT_FALSE(doc["stages"][0]["servebench"].contains("ttft_breakdown_ms"));
  EXPECT_FALSE(doc["stages"][0]["servebench"].contains("prompt_cache"));
  EXPECT_EQ(r.out.find("TTFT split"), std::string::npos) << r.out;
}

// vLLM with --enable-prompt-tokens-details, serving 90 of every 100 prompt tokens from its cache.
std::string mostly_cached_stream(const CapturedRequest&) {
  return "data: {\"choices\":[{\"text\":\"a\",\"index\":0,\"finish_reason\":null}]}\n\n"
         "data: {\"choices\":[{\"text\":\"b\",\"index\":0,\"finish_reason\":\"length\"}]}\n\n"
         "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":2,"
         "\"prompt_tokens_details\":{\"cached_tokens\":90}}}\n\n"
         "data: [DONE]\n\n";
}

TEST(ServerTimingsE2e, StageMostlyServedFromThePromptCacheIsWarned) {
  TempDir dir("server_timings_cache");
  CaptureServer server("m", mostly_cached_stream);
  ASSERT_NE(server.port(), 0);
  const RunResult r = run_servebench({"--port", std::to_string(server.port()), "--num-prompts", "4",
                                      "--random-input-len", "8", "--random-output-len", "2", "--output-json", "o.json",
                                      "--requests-jsonl", "r.jsonl", "--disable-tqdm"},
                                     dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Prompt cache: 90.0% of 400 prompt tokens served from the server's cache (4 requests)\n"
                       "WARNING: this stage was mostly served from the server's prompt cache"),
            std::string::npos)
      << r.out;
  const Json cache = Json::parse(slurp(dir.path / "o.json"))["stages"][0]["servebench"]["prompt_cache"];
  EXPECT_EQ(cache["cached_tokens"], 360);
  EXPECT_EQ(cache["hit_share"], 0.9);
  EXPECT_EQ(cache["mostly_cached"], true);
  for (const Json& l : timing_jsonl_lines(dir.path / "r.jsonl")) {
    EXPECT_EQ(l["cached_prompt_tokens"], 90);
    EXPECT_FALSE(l.contains("server_prefill_ms"));  // a cached count is no timing
  }
}

}  // namespace
}  // namespace sb::e2e
