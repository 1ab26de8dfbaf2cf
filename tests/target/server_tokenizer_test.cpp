// Tests for src/target/server_tokenizer.cpp: the request/reply halves on canned bytes, then the
// tokenizer against an in-test vLLM look-alike (tests/net/fake_server.hpp) that answers /tokenize
// and /detokenize with the real llama2 fixture tokenizer, and servers that cannot tokenize.
#include "target/server_tokenizer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "dataset/dataset.hpp"
#include "net/fake_server.hpp"
#include "support/test_paths.hpp"
#include "target/fake_vllm_tokenize.hpp"

namespace sb {
namespace {

using test::FakeVllm;
using test::tokenizer_options;

using Ids = std::vector<std::int32_t>;
using test::FakeConn;
using test::FakeRequest;
using test::FakeServer;

const std::string kLlama2 = sb::test_files::tokenizer_dir("llama2");

std::string count_error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UserError";
  return "";
}

// ---- sans-I/O halves ----

TEST(ServerTokenizerBodies, TokenizeBodyIsVllmShaped) {
  EXPECT_EQ(tokenize_request_body("llama", "say \"hi\"\n", false),
            R"({"model": "llama", "prompt": "say \"hi\"\n", "add_special_tokens": false})");
  EXPECT_EQ(tokenize_request_body("", "x", true), R"({"prompt": "x", "add_special_tokens": true})");
}

TEST(ServerTokenizerBodies, DetokenizeBody) {
  EXPECT_EQ(detokenize_request_body("m", {1, 22557, 1526}), R"({"model": "m", "tokens": [1, 22557, 1526]})");
  EXPECT_EQ(detokenize_request_body("", {}), R"({"tokens": []})");
}

TEST(ServerTokenizerReplies, VllmTokenizeReply) {
  const TokenizeReply r = parse_tokenize_reply(
      R"({"count": 3, "max_model_len": 4096, "tokens": [1, 22557, 1526], "token_strs": null})", "here");
  EXPECT_EQ(r.count, 3u);
  EXPECT_EQ(r.tokens, (Ids{1, 22557, 1526}));
  EXPECT_EQ(r.max_model_len, 4096);
}

TEST(ServerTokenizerReplies, CountOrTokensAloneAreEnough) {
  const TokenizeReply count_only = parse_tokenize_reply(R"({"count": 7})", "here");
  EXPECT_EQ(count_only.count, 7u);
  EXPECT_TRUE(count_only.tokens.empty());
  EXPECT_FALSE(count_only.max_model_len.has_value());
  EXPECT_EQ(parse_tokenize_reply(R"({"tokens": [5, 6]})", "here").count, 2u);
}

TEST(ServerTokenizerReplies, MalformedRepliesNameWhereAndWhat) {
  EXPECT_EQ(count_error_of([] { parse_tokenize_reply("<html>404</html>", "POST x/tokenize"); }),
            "POST x/tokenize: reply is not a JSON object");
  EXPECT_NE(count_error_of([] { parse_tokenize_reply(R"({"detail": "nope"})", "w"); }).find("neither \"count\" nor"),
            std::string::npos);
  EXPECT_EQ(count_error_of([] { parse_tokenize_reply(R"({"count": 3, "tokens": [1]})", "w"); }),
            "w: \"count\" is 3 but \"tokens\" holds 1 ids");
  EXPECT_NE(count_error_of([] { parse_tokenize_reply(R"({"tokens": [1, -2]})", "w"); }).find("non-negative"),
            std::string::npos);
}

TEST(ServerTokenizerReplies, Detokenize) {
  EXPECT_EQ(parse_detokenize_reply(R"({"prompt": "<s> Hello world"})", "w"), "<s> Hello world");
  EXPECT_EQ(count_error_of([] { parse_detokenize_reply(R"({"text": "x"})", "w"); }),
            "w: reply has no string \"prompt\"");
}

// ---- against an in-test server ----

TEST(ServerTokenizer, ProbeFindsVllmTokenizeAndItsSpecials) {
  SB_REQUIRE_TOKENIZER("llama2");
  FakeVllm vllm;
  FakeServer server([&](FakeConn& c, const FakeRequest& r) { return vllm.handle(c, r); });
  ServerTokenizerProbe probe = probe_server_tokenizer_detailed(tokenizer_options(server.port()));
  ASSERT_NE(probe.tokenizer, nullptr) << probe.unavailable_reason;
  const ServerTokenizer& tok = *probe.tokenizer;
  EXPECT_EQ(tok.num_special_tokens_to_add(), 1u);  // llama2 adds <s>
  EXPECT_EQ(tok.max_model_len(), 4096);
  EXPECT_EQ(tok.name(), "server:llama2-test");
  EXPECT_EQ(tok.vocab_size(), 0u);
  EXPECT_EQ(tok.encode("Hello world", true), (Ids{1, 22557, 1526}));
  EXPECT_EQ(tok.encode("Hello world", false), (Ids{22557, 1526}));
  EXPECT_EQ(tok.count("Hello world", true), 3u);
  EXPECT_EQ(tok.decode({1, 22557, 1526}), "<s> Hello world");
  EXPECT_EQ(vllm.calls_with_auth.load(), server.requests());  // headers go with every call
}

TEST(ServerTokenizer, SameIdsAsTheLocalTokenizer) {
  SB_REQUIRE_TOKENIZER("llama2");
  FakeVllm vllm;
  FakeServer server([&](FakeConn& c, const FakeRequest& r) { return vllm.handle(c, r); });
  auto tok = probe_server_tokenizer(tokenizer_options(server.port()).endpoint, {}, "", 5);
  ASSERT_NE(tok, nullptr);
  for (const char* text : {"", "  two  spaces", "caf\xc3\xa9 \xe4\xbd\xa0\xe5\xa5\xbd", "tab\there \"q\" \\ end\n"}) {
    EXPECT_EQ(tok->encode(text, true), vllm.tok->encode(text, true)) << text;
    EXPECT_EQ(tok->count(text, false), vllm.tok->count(text, false)) << text;
  }
}

TEST(ServerTokenizer, CountManyRunsCallsConcurrentlyInOrder) {
  SB_REQUIRE_TOKENIZER("llama2");
  FakeVllm vllm;
  vllm.delay_ms = 5;
  FakeServer server([&](FakeConn& c, const FakeRequest& r) { return vllm.handle(c, r); });
  ServerTokenizer tok(tokenizer_options(server.port()));
  std::vector<std::string> texts;
  for (int i = 0; i < 40; ++i) texts.push_back("prompt number " + std::to_string(i) + std::string(i, 'x'));
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  const std::vector<std::size_t> counts = tok.count_many(views, true);
  ASSERT_EQ(counts.size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(counts[i], vllm.tok->count(texts[i], true)) << i;
  EXPECT_GT(server.max_concurrent(), 1);
  EXPECT_LE(server.max_concurrent(), 8);
  EXPECT_TRUE(tok.count_many({}).empty());
}

TEST(ServerTokenizer, CountManyReportsTheFirstFailingText) {
  SB_REQUIRE_TOKENIZER("llama2");
  FakeVllm vllm;
  FakeServer server([&](FakeConn& c, const FakeRequest& r) { return vllm.handle(c, r); });
  ServerTokenizer tok(tokenizer_options(server.port()));
  const std::vector<std::string_view> texts = {"a", "b", "boom-2", "c", "boom-4", "d"};
  const std::string msg = count_error_of([&] { tok.count_many(texts); });
  EXPECT_NE(msg.find("server tokenizer: POST http://127.0.0.1:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/tokenize answered HTTP 500 Internal Server Error"), std::string::npos) << msg;
  EXPECT_NE(msg.find("boom-2"), std::string::npos) << msg;
}

TEST(ServerTokenizer, RandomDatasetRefusesItWithAUserError) {
  SB_REQUIRE_TOKENIZER("llama2");
  FakeVllm vllm;
  FakeServer server([&](FakeConn& c, const FakeRequest& r) { return vllm.handle(c, r); });
  ServerTokenizer tok(tokenizer_options(server.port()));
  DatasetConfig cfg;
  cfg.num_prompts = 2;
  cfg.random_input_len = 8;
  cfg.random_output_len = 4;
  EXPECT_NE(count_error_of([&] { load_dataset(cfg, &tok); }).find("empty vocabulary"), std::string::npos);
}

TEST(ServerTokenizerProbe, NoTokenizeMeansNull) {
  for (int status : {404, 405}) {
    FakeServer server([&](FakeConn& c, const FakeRequest&) {
      return c.send(test::json_response(status, "Nope", R"({"detail":"Not Found"})"));
    });
    const ServerTokenizerProbe probe = probe_server_tokenizer_detailed(tokenizer_options(server.port()));
    EXPECT_EQ(probe.tokenizer, nullptr);
    EXPECT_NE(probe.unavailable_reason.find("has no POST http://127.0.0.1:" + std::to_string(server.port()) +
                                            "/tokenize (HTTP " + std::to_string(status) + ")"),
              std::string::npos)
        << probe.unavailable_reason;
    EXPECT_EQ(probe_server_tokenizer(tokenizer_options(server.port()).endpoint, {}, "m", 5), nullptr);
  }
}

TEST(ServerTokenizerProbe, RefusedConnectionMeansNull) {
  const ServerTokenizerProbe probe = probe_server_tokenizer_detailed(tokenizer_options(FakeServer::closed_port()));
  EXPECT_EQ(probe.tokenizer, nullptr);
  EXPECT_NE(probe.unavailable_reason.find("connection refused"), std::string::npos) << probe.unavailable_reason;
}

TEST(ServerTokenizerProbe, OtherStatusesAndBodiesMeanNullWithTheReason) {
  FakeServer unauthorized([](FakeConn& c, const FakeRequest&) {
    return c.send(test::json_response(401, "Unauthorized", R"({"error":"bad key"})"));
  });
  ServerTokenizerProbe probe = probe_server_tokenizer_detailed(tokenizer_options(unauthorized.port()));
  EXPECT_EQ(probe.tokenizer, nullptr);
  EXPECT_NE(probe.unavailable_reason.find("answered HTTP 401 Unauthorized: {\"error\":\"bad key\"}"),
            std::string::npos)
      << probe.unavailable_reason;

  FakeServer html([](FakeConn& c, const FakeRequest&) {
    return c.send(test::json_response(200, "OK", "<html>gateway</html>"));
  });
  probe = probe_server_tokenizer_detailed(tokenizer_options(html.port()));
  EXPECT_EQ(probe.tokenizer, nullptr);
  EXPECT_NE(probe.unavailable_reason.find("/tokenize: reply is not a JSON object"), std::string::npos)
      << probe.unavailable_reason;
}

// llama.cpp answers a vLLM-style {"prompt"} with 200 {"tokens": []}: no length, an error naming the
// shape and the URL, and at the probe a tokenizer that is "unavailable" rather than one counting 0.
TEST(ServerTokenizer, NonEmptyTextCountedAsZeroTokensIsAnError) {
  std::atomic<int> content_bodies{0};
  FakeServer server([&](FakeConn& c, const FakeRequest& r) {
    if (r.body.find("\"content\"") != std::string::npos) ++content_bodies;
    return c.send(test::json_response(200, "OK", R"({"tokens":[]})"));
  });
  ServerTokenizerOptions opt = tokenizer_options(server.port());
  opt.engine = Engine::vllm;
  const ServerTokenizerProbe probe = probe_server_tokenizer_detailed(opt);
  EXPECT_EQ(probe.tokenizer, nullptr);
  EXPECT_NE(probe.unavailable_reason.find("POST http://127.0.0.1:" + std::to_string(server.port()) +
                                          "/tokenize (vllm shape) counted 0 tokens for a non-empty text"),
            std::string::npos)
      << probe.unavailable_reason;
  opt.engine = Engine::llamacpp;
  const std::string err = count_error_of([&] { ServerTokenizer(opt).count("hello world", true); });
  EXPECT_NE(err.find("(llama.cpp shape) counted 0 tokens for a non-empty text of 11 bytes"), std::string::npos) << err;
  EXPECT_EQ(content_bodies.load(), 1);  // the llama.cpp-shaped call sent {"content"}
  EXPECT_EQ(ServerTokenizer(opt).count("", true), 0u);  // an empty text may count 0
}

}  // namespace
}  // namespace sb
