// Workloads that measure what they claim (issue 10, deliverables 6 and 7), end to end: each stage
// sends its own prompts (the server sees none twice) unless --reuse-prompts; outputs cut short of
// max_tokens and streams without token text are warned with their counts; closed-loop stages print
// no client-queue block, open-loop stages print latency from the intended send time.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "e2e/run_capture_server.hpp"
#include "e2e/run_process.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

// Prompts the server received per stage, from the x-request-id suffix "-s<stage>" (the preflight
// and warm-up requests have none and are left out).
std::map<int, std::vector<std::string>> prompts_by_stage(const CaptureServer& server) {
  std::map<int, std::vector<std::string>> out;
  for (const CapturedRequest& q : server.requests()) {
    if (q.method != "POST") continue;
    const std::string id = q.header("x-request-id");
    const std::size_t s = id.rfind("-s");
    if (s == std::string::npos || id.find("preflight") != std::string::npos) continue;
    out[std::stoi(id.substr(s + 2))].push_back(Json::parse(q.body)["prompt"].get<std::string>());
  }
  return out;
}

std::vector<std::string> stage_selections(const Json& doc) {
  std::vector<std::string> out;
  for (const Json& s : doc["stages"]) out.push_back(s["servebench"]["prompt_selection"].get<std::string>());
  return out;
}

std::vector<std::string> words_run(const CaptureServer& server, bool reuse) {
  std::vector<std::string> args = {"--port", std::to_string(server.port()), "--num-prompts", "6",
                                   "--random-input-len", "8", "--random-output-len", "3", "--concurrency", "1",
                                   "2", "4", "--output-json", "o.json", "--disable-tqdm"};
  if (reuse) args.push_back("--reuse-prompts");
  return args;
}

TEST(WorkloadE2e, EveryStageSendsPromptsTheServerHasNotSeen) {
  TempDir dir("wl_unique");
  CaptureServer server("m");
  ASSERT_NE(server.port(), 0);
  RunResult r = run_servebench(words_run(server, false), dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto stages = prompts_by_stage(server);
  ASSERT_EQ(stages.size(), 3u);
  std::set<std::string> all;
  for (const auto& [stage, prompts] : stages) {
    EXPECT_EQ(prompts.size(), 6u) << stage;
    for (const std::string& p : prompts) EXPECT_TRUE(all.insert(p).second) << "stage " << stage << " re-sent: " << p;
  }
  // The random dataset draws each stage afresh (no tokenizer here: word prompts).
  const Json doc = Json::parse(slurp(dir.path / "o.json"));
  EXPECT_EQ(stage_selections(doc), (std::vector<std::string>{"disjoint", "disjoint", "disjoint"}));
  EXPECT_EQ(doc["prompt_selection"], "disjoint");
}

TEST(WorkloadE2e, PastTheFileStagesGetAUniquePrefixAtTheStart) {
  TempDir dir("wl_prefix");
  {
    std::ofstream f(dir.path / "rows.jsonl");
    for (int i = 0; i < 5; ++i) f << "{\"prompt\": \"shared system text, question " << i << "\"}\n";
  }
  CaptureServer server("m");
  ASSERT_NE(server.port(), 0);
  // 5 rows, 3 a stage: stage 0 rows 0-2 verbatim; stage 1 and 2 wrap round with a prefix.
  RunResult r = run_servebench({"--port", std::to_string(server.port()), "--dataset-name", "custom",
                                "--dataset-path", "rows.jsonl", "--num-prompts", "3", "--custom-output-len", "3",
                                "--concurrency", "1", "2", "4", "--output-json", "o.json", "--disable-tqdm"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto stages = prompts_by_stage(server);
  ASSERT_EQ(stages.size(), 3u);
  // Stage 0 sends the rows as they are (they share "shared system text" among themselves, as the
  // file does); later stages lead with a prefix no other request has, then the row verbatim.
  std::set<std::string> sent, heads;
  for (const auto& [stage, prompts] : stages) {
    for (const std::string& p : prompts) {
      EXPECT_TRUE(sent.insert(p).second) << "sent twice: " << p;
      if (stage == 0) continue;
      EXPECT_EQ(p.rfind("[" + std::to_string(stage) + ".", 0), 0u) << p;
      const std::size_t end = p.find("] ");
      ASSERT_NE(end, std::string::npos) << p;
      EXPECT_TRUE(heads.insert(p.substr(0, end + 2)).second) << "shared head: " << p;
      EXPECT_EQ(p.compare(end + 2, 29, "shared system text, question "), 0) << p;
    }
  }
  EXPECT_EQ(heads.size(), 6u);
  const Json doc = Json::parse(slurp(dir.path / "o.json"));
  EXPECT_EQ(stage_selections(doc), (std::vector<std::string>{"disjoint", "unique_prefix", "unique_prefix"}));
  EXPECT_EQ(doc["prompt_selection"], "mixed");
}

TEST(WorkloadE2e, ReusePromptsSendsTheSamePromptsEveryStage) {
  TempDir dir("wl_reuse");
  CaptureServer server("m");
  ASSERT_NE(server.port(), 0);
  RunResult r = run_servebench(words_run(server, true), dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  auto stages = prompts_by_stage(server);
  ASSERT_EQ(stages.size(), 3u);
  for (auto& [stage, prompts] : stages) std::sort(prompts.begin(), prompts.end());
  EXPECT_EQ(stages.at(1), stages.at(0));
  EXPECT_EQ(stages.at(2), stages.at(0));
  const Json doc = Json::parse(slurp(dir.path / "o.json"));
  EXPECT_EQ(stage_selections(doc), (std::vector<std::string>{"reused", "reused", "reused"}));
  EXPECT_EQ(doc["prompt_selection"], "reused");
}

TEST(WorkloadE2e, FileDatasetStagesTakeDisjointRowsOfTheFile) {
  TempDir dir("wl_custom");
  std::set<std::string> rows;
  {
    std::ofstream f(dir.path / "rows.jsonl");
    for (int i = 0; i < 12; ++i) {
      rows.insert("question " + std::to_string(i) + " about something");
      f << "{\"prompt\": \"question " << i << " about something\"}\n";
    }
  }
  CaptureServer server("m");
  ASSERT_NE(server.port(), 0);
  RunResult r = run_servebench({"--port", std::to_string(server.port()), "--dataset-name", "custom",
                                "--dataset-path", "rows.jsonl", "--num-prompts", "4", "--custom-output-len", "3",
                                "--concurrency", "1", "2", "4", "--output-json", "o.json", "--disable-tqdm"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  std::set<std::string> sent;
  for (const auto& [stage, prompts] : prompts_by_stage(server)) {
    for (const std::string& p : prompts) {
      EXPECT_EQ(rows.count(p), 1u) << "not a row of the file, verbatim: " << p;
      EXPECT_TRUE(sent.insert(p).second) << "stage " << stage << " re-sent: " << p;
    }
  }
  EXPECT_EQ(sent, rows);  // 3 stages x 4 = the 12 rows, each once
  const Json doc = Json::parse(slurp(dir.path / "o.json"));
  EXPECT_EQ(stage_selections(doc), (std::vector<std::string>{"disjoint", "disjoint", "disjoint"}));
}

// A server whose context is full: 2 token events, then finish "length", usage 23 of the 64 asked.
std::string cut_stream(const CapturedRequest&) {
  std::string body;
  body += "data: {\"choices\":[{\"text\":\"a\",\"index\":0,\"finish_reason\":null}]}\n\n";
  body += "data: {\"choices\":[{\"text\":\"b\",\"index\":0,\"finish_reason\":\"length\"}]}\n\n";
  body += "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":23}}\n\n";
  return body + "data: [DONE]\n\n";
}

TEST(WorkloadE2e, OutputsCutShortAreWarnedWithTheFinishReasons) {
  TempDir dir("wl_short");
  CaptureServer server("m", cut_stream);
  ASSERT_NE(server.port(), 0);
  RunResult r = run_servebench({"--port", std::to_string(server.port()), "--num-prompts", "5", "--random-input-len",
                                "8", "--random-output-len", "64", "--output-json", "o.json", "--disable-tqdm"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  // 5 x 23 = 115 of 5 x 64 = 320 tokens: 64.1 % short.
  EXPECT_NE(r.out.find("WARNING: outputs fell 64.1% short of the requested length (115 of 320 tokens; 5 requests "
                       "short; finish reasons: length 5)"),
            std::string::npos)
      << r.out;
  const Json check = Json::parse(slurp(dir.path / "o.json"))["stages"][0]["servebench"]["output_check"];
  EXPECT_EQ(check["delivered_tokens"], 115);
  EXPECT_EQ(check["requested_tokens"], 320);
  EXPECT_EQ(check["finish_reasons"]["length"], 5);
  EXPECT_EQ(check["short_of_requested"], true);
}

// One event with no text and usage 1: a "success" that measured no token.
std::string textless_stream(const CapturedRequest&) {
  return "data: {\"choices\":[{\"text\":\"\",\"index\":0,\"finish_reason\":\"stop\"}]}\n\n"
         "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1}}\n\n"
         "data: [DONE]\n\n";
}

TEST(WorkloadE2e, StreamsWithoutTokenTextAreFlaggedNotMeasured) {
  TempDir dir("wl_notext");
  CaptureServer server("m", textless_stream);
  ASSERT_NE(server.port(), 0);
  RunResult r = run_servebench({"--port", std::to_string(server.port()), "--num-prompts", "4", "--random-input-len",
                                "8", "--random-output-len", "1", "--output-json", "o.json", "--disable-tqdm"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("WARNING: 4 successful requests streamed no token text (TPOT from 0 requests, ITL from 0 "
                       "gaps: a 0.00 there is no measurement)"),
            std::string::npos)
      << r.out;
  const Json sb = Json::parse(slurp(dir.path / "o.json"))["stages"][0]["servebench"];
  EXPECT_EQ(sb["output_check"]["without_text"], 4);
  EXPECT_EQ(sb["latency_samples"]["tpot"], 0);
  EXPECT_EQ(sb["latency_samples"]["itl"], 0);
}

TEST(WorkloadE2e, SimStoppingEarlyIsCountedAsStopFinishes) {
  TempDir dir("wl_eos");
  {
    std::ofstream f(dir.path / "rows.jsonl");  // custom rows: no ignore_eos, so the sim's EOS applies
    for (int i = 0; i < 8; ++i) f << "{\"prompt\": \"tell me about " << i << "\"}\n";
  }
  Sim sim({"--ttft-ms", "2", "--itl-ms", "0.5", "--eos-prob", "0.3", "--seed", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--dataset-name", "custom", "--dataset-path", "rows.jsonl",
                                "--num-prompts", "8", "--custom-output-len", "32", "--output-json", "o.json",
                                "--disable-tqdm"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json check = Json::parse(slurp(dir.path / "o.json"))["stages"][0]["servebench"]["output_check"];
  // P(32 tokens with EOS 0.3 per token) is ~1e-5: practically every request stops early.
  ASSERT_TRUE(check["finish_reasons"].contains("stop")) << check.dump();
  const int stops = check["finish_reasons"]["stop"];
  EXPECT_GE(stops, 7);
  EXPECT_LT(check["delivered_tokens"].get<int>(), 8 * 32);
  EXPECT_NE(r.out.find("WARNING: outputs fell"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("finish reasons: "), std::string::npos);
  EXPECT_NE(r.out.find("stop " + std::to_string(stops)), std::string::npos) << r.out;
}

TEST(WorkloadE2e, ClosedLoopHasNoClientQueueBlockOpenLoopShowsIntendedTimeLatency) {
  TempDir dir("wl_queue");
  Sim sim({"--ttft-ms", "5", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult closed = run_servebench({"--port", sim.port_text(), "--num-prompts", "8", "--random-input-len", "8",
                                     "--random-output-len", "4", "--concurrency", "1", "--output-json", "c.json",
                                     "--disable-tqdm"},
                                    dir.path);
  ASSERT_EQ(closed.code, 0) << closed.err;
  EXPECT_EQ(closed.out.find("Client Queue"), std::string::npos) << closed.out;
  EXPECT_EQ(closed.out.find("intended send time"), std::string::npos);
  // The JSON keeps vLLM's key for compatibility.
  EXPECT_TRUE(Json::parse(slurp(dir.path / "c.json"))["stages"][0].contains("mean_client_queue_time_ms"));

  RunResult open = run_servebench({"--port", sim.port_text(), "--num-prompts", "8", "--random-input-len", "8",
                                   "--random-output-len", "4", "--request-rate", "100", "--output-json", "o.json",
                                   "--disable-tqdm"},
                                  dir.path);
  ASSERT_EQ(open.code, 0) << open.err;
  const std::size_t block = open.out.find("Latency from the intended send time");
  ASSERT_NE(block, std::string::npos) << open.out;
  const Json sb = Json::parse(slurp(dir.path / "o.json"))["stages"][0]["servebench"];
  // The printed TTFT mean is the JSON's ttft_from_intended_ms mean.
  char expect[64];
  std::snprintf(expect, sizeof expect, "TTFT  mean %.2f ms", sb["ttft_from_intended_ms"]["mean"].get<double>());
  EXPECT_NE(open.out.find(expect, block), std::string::npos) << open.out;
}

}  // namespace
}  // namespace sb::e2e
