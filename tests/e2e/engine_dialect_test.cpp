// Each engine's dialect end to end (docs/engines.md), against tests/e2e/fake_engine.hpp: with no
// --tokenizer, a random and a sharegpt run get their prompt lengths from that engine's own
// /tokenize, read usage wherever that engine puts it, and name the engine in the sweep document.
// Then detection by each engine's own endpoint, and llama.cpp's 200 {"tokens": []} for a vLLM-shaped
// body, which must not become "0 tokens".
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "e2e/fake_engine.hpp"
#include "e2e/fault_server.hpp"
#include "e2e/run_process.hpp"
#include "net/endpoint.hpp"
#include "target/preflight.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

struct DialectCase {
  Dialect dialect;
  const char* engine;            // the sweep document's engine.name
  const char* known_from;        // engine.known_from with the engine's real /v1/models
  const char* completions_usage; // the JSONL token_source of a completions request
  const char* chat_usage;        // and of a chat request
};

const DialectCase kDialects[] = {
    {Dialect::vllm, "vllm", "models.owned_by", "usage_chunk", "usage_chunk"},
    {Dialect::sglang, "sglang", "models.owned_by", "usage_chunk", "usage_chunk"},
    // TGI's /v1/models names the model as owner: known from GET /info; usage rides the last choice.
    {Dialect::tgi, "tgi", "info", "usage_in_choice", "usage_in_choice"},
    // llama.cpp: completions end with {text: "", finish_reason, usage}; chat usage in a choices [] chunk.
    {Dialect::llamacpp, "llama.cpp", "models.owned_by", "usage_in_choice", "usage_chunk"},
};

std::vector<Json> dialect_jsonl_records(const fs::path& p) {
  std::vector<Json> out;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(Json::parse(line));
  }
  return out;
}

std::string dialect_tag(const DialectCase& c) {
  std::string s = c.engine;
  for (char& ch : s) ch = ch == '.' ? '_' : ch;
  return s;
}

class EngineDialect : public ::testing::TestWithParam<DialectCase> {};

TEST_P(EngineDialect, RandomRunCountsWithTheEnginesTokenize) {
  const DialectCase& c = GetParam();
  TempDir dir("dialect_random_" + dialect_tag(c));
  FakeEngine engine(c.dialect);
  ASSERT_NE(engine.port(), 0);
  RunResult r = run_servebench({"--port", engine.port_text(), "--num-prompts", "6", "--random-input-len", "12",
                                "--random-output-len", "3", "--concurrency", "2", "--output-json", "r.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(std::string("engine: ") + c.engine + " ("), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("approximate"), std::string::npos) << r.err;
  const Json doc = Json::parse(slurp(dir.path / "r.json"));
  EXPECT_EQ(doc["engine"]["name"], c.engine);
  EXPECT_EQ(doc["engine"]["known_from"], c.known_from);
  const Json& s = doc["stages"][0];
  // Requested (counted by the engine's /tokenize before sending) = delivered (the engine's usage).
  EXPECT_EQ(s["servebench"]["input_len"]["requested"]["mean"], 12.0) << s["servebench"]["input_len"].dump();
  EXPECT_EQ(s["servebench"]["input_len"]["delivered"]["mean"], 12.0) << s["servebench"]["input_len"].dump();
  EXPECT_EQ(s["total_output_tokens"], 6 * 3);
  EXPECT_EQ(s["servebench"]["token_count_source"], "usage");
  const std::vector<Json> records = dialect_jsonl_records(dir.path / "r.requests.jsonl");
  ASSERT_EQ(records.size(), 6u);
  for (const Json& rec : records) {
    EXPECT_EQ(rec["token_source"], c.completions_usage) << rec.dump();
    EXPECT_EQ(rec["prompt_tokens"], 12) << rec.dump();
  }
  EXPECT_GT(engine.tokenize_calls(), 0);
  EXPECT_EQ(engine.foreign_tokenize_calls(), 0);
}

TEST_P(EngineDialect, ShareGptChatRunCountsWithTheEnginesTokenize) {
  const DialectCase& c = GetParam();
  TempDir dir("dialect_sharegpt_" + dialect_tag(c));
  FakeEngine engine(c.dialect);
  ASSERT_NE(engine.port(), 0);
  const std::string file = std::string(SB_SOURCE_DIR) + "/tests/data/dataset/sharegpt_small.json";
  RunResult r = run_servebench({"--port", engine.port_text(), "--backend", "openai-chat", "--dataset-name", "sharegpt",
                                "--dataset-path", file, "--sharegpt-output-len", "3", "--num-prompts", "4",
                                "--no-preflight-request", "--output-json", "s.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(slurp(dir.path / "s.json"));
  EXPECT_EQ(doc["engine"]["name"], c.engine);
  const Json& s = doc["stages"][0];
  // Of the file's two-turn rows only "Quote \"this\"\nplease" has 4 tokens (3 words + BOS) and passes
  // vLLM's minimum of 4: every request is that row, counted 4 by /tokenize and by the engine's usage.
  EXPECT_EQ(s["servebench"]["input_len"]["requested"]["mean"], 4.0) << s["servebench"]["input_len"].dump();
  EXPECT_EQ(s["servebench"]["input_len"]["delivered"]["mean"], 4.0) << s["servebench"]["input_len"].dump();
  EXPECT_EQ(s["total_input_tokens"], engine.prompt_tokens_received());
  EXPECT_EQ(s["total_output_tokens"], 4 * 3);
  for (const Json& rec : dialect_jsonl_records(dir.path / "s.requests.jsonl")) {
    EXPECT_EQ(rec["token_source"], c.chat_usage) << rec.dump();
    EXPECT_EQ(rec["output_tokens"], 3) << rec.dump();
  }
  EXPECT_EQ(engine.foreign_tokenize_calls(), 0);
}

INSTANTIATE_TEST_SUITE_P(Dialects, EngineDialect, ::testing::ValuesIn(kDialects),
                         [](const ::testing::TestParamInfo<DialectCase>& info) { return dialect_tag(info.param); });

PreflightResult dialect_preflight_at(int port, std::optional<Engine> given = std::nullopt) {
  PreflightInput in;
  in.endpoint = parse_base_url("http://127.0.0.1:" + std::to_string(port));
  in.timeout_s = 5;
  in.engine = given;
  return preflight(in);
}

// With a /v1/models that names no owner and no Server header, each engine's own endpoint tells.
TEST(EngineDetection, EachEnginesOwnEndpointDecides) {
  const std::pair<Dialect, EngineGuess> expected[] = {
      {Dialect::llamacpp, {Engine::llamacpp, EngineClue::props, "b6500-fake"}},
      {Dialect::sglang, {Engine::sglang, EngineClue::get_model_info, ""}},
      {Dialect::tgi, {Engine::tgi, EngineClue::info, "3.3.6"}},
      {Dialect::vllm, {Engine::vllm, EngineClue::version, "0.11.0"}},
  };
  for (const auto& [dialect, want] : expected) {
    FakeEngine engine(dialect, {.anonymous_models = true});
    const EngineGuess got = dialect_preflight_at(engine.port()).engine;
    EXPECT_EQ(got.engine, want.engine) << engine_name(want.engine);
    EXPECT_EQ(got.clue, want.clue) << engine_name(want.engine);
    EXPECT_EQ(got.version, want.version) << engine_name(want.engine);
  }
}

TEST(EngineDetection, UnknownServerIsGenericAndGivenEngineIsNotProbed) {
  FaultServer plain(Fault::none);  // /v1/models only; 404 for everything else
  const PreflightResult r = dialect_preflight_at(plain.port());
  EXPECT_EQ(r.model_id, "m1");
  EXPECT_EQ(r.engine.engine, Engine::openai);
  EXPECT_EQ(r.engine.clue, EngineClue::none);
  FakeEngine llama(Dialect::llamacpp);
  const EngineGuess given = dialect_preflight_at(llama.port(), Engine::tgi).engine;
  EXPECT_EQ(given.engine, Engine::tgi);
  EXPECT_EQ(given.clue, EngineClue::given);
}

// llama.cpp answers vLLM's {"prompt"} with 200 {"tokens": []}. Told the server is vLLM, the run must
// not count every prompt as 0 tokens (once: exit 2, "all rows were filtered out"): the probe's 0 is
// an error, lengths become approximate and the run says why.
TEST(EngineDialectTrap, LlamaCppEmptyTokensForAVllmBodyIsNoLength) {
  TempDir dir("dialect_trap");
  FakeEngine engine(Dialect::llamacpp);
  const std::string file = std::string(SB_SOURCE_DIR) + "/tests/data/dataset/sharegpt_small.json";
  RunResult r = run_servebench({"--port", engine.port_text(), "--engine", "vllm", "--dataset-name", "sharegpt",
                                "--dataset-path", file, "--sharegpt-output-len", "2", "--num-prompts", "3",
                                "--no-preflight-request", "--output-json", "t.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("(vllm shape) counted 0 tokens for a non-empty text"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("warning: no --tokenizer and the server cannot tokenize"), std::string::npos) << r.err;
  EXPECT_GE(engine.foreign_tokenize_calls(), 1);
  const Json doc = Json::parse(slurp(dir.path / "t.json"));
  EXPECT_EQ(doc["engine"]["name"], "vllm");
  EXPECT_EQ(doc["engine"]["known_from"], "given");
  EXPECT_EQ(doc["stages"][0]["completed"], 3);
  EXPECT_GT(doc["stages"][0]["servebench"]["input_len"]["requested"]["mean"].get<double>(), 0.0);
}

// llama-server refuses a prompt beyond its slot's context with HTTP 400 before any streaming.
TEST(EngineDialectTrap, LlamaCppContextOverflowIsAnHttpError) {
  TempDir dir("dialect_ctx");
  FakeEngine engine(Dialect::llamacpp, {.n_ctx = 64});
  RunResult r = run_servebench({"--port", engine.port_text(), "--num-prompts", "2", "--random-input-len", "80",
                                "--random-output-len", "2", "--no-preflight-request", "--max-failure-ratio", "1",
                                "--output-json", "c.json"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const Json s = Json::parse(slurp(dir.path / "c.json"))["stages"][0];
  EXPECT_EQ(s["failed"], 2);
  EXPECT_EQ(s["servebench"]["errors"]["http_error"]["http_statuses"]["400"], 2) << s["servebench"]["errors"].dump();
}

}  // namespace
}  // namespace sb::e2e
