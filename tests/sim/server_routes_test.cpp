#include "sim/server_routes.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_paths.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::sim {
namespace {

TEST(ServerRoutes, ModelsListsTheServedIdAndRoot) {
  const Reply r = models_reply({"sim-model", "", 8192, 1700000000});
  EXPECT_EQ(r.status, 200);
  const auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["object"], "list");
  ASSERT_EQ(j["data"].size(), 1u);
  EXPECT_EQ(j["data"][0]["id"], "sim-model");
  EXPECT_EQ(j["data"][0]["root"], "sim-model");  // root defaults to the id
  EXPECT_EQ(j["data"][0]["max_model_len"], 8192);
  EXPECT_EQ(nlohmann::json::parse(models_reply({"a", "/m/b", 1, 0}).body)["data"][0]["root"], "/m/b");
}

TEST(ServerRoutes, ApiKeyCheck) {
  EXPECT_TRUE(authorized("", ""));
  EXPECT_TRUE(authorized("anything", ""));
  EXPECT_TRUE(authorized("Bearer s3cret", "s3cret"));
  EXPECT_FALSE(authorized("Bearer s3cre", "s3cret"));
  EXPECT_FALSE(authorized("bearer s3cret", "s3cret"));
  EXPECT_FALSE(authorized("", "s3cret"));
  EXPECT_FALSE(authorized("Bearer s3cretX", "s3cret"));
}

TEST(ServerRoutes, UnknownModelIs404WithVllmMessage) {
  const Reply r = unknown_model_reply("gpt-x");
  EXPECT_EQ(r.status, 404);
  const auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["error"]["message"], "The model `gpt-x` does not exist.");
  EXPECT_EQ(j["error"]["type"], "NotFoundError");
  EXPECT_EQ(j["error"]["code"], 404);
}

// Loaded once for the suite when installed; each test fails (never dereferences null) otherwise.
class TokenizeRoutes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (sb::test_files::have_tokenizer("llama3")) tok_ = Tokenizer::load(sb::test_files::tokenizer_dir("llama3"));
  }
  static void TearDownTestSuite() { tok_.reset(); }
  void SetUp() override {
    SB_REQUIRE_TOKENIZER("llama3");
    ASSERT_NE(tok_, nullptr) << "loading " << sb::test_files::tokenizer_dir("llama3") << " failed";
  }
  static std::unique_ptr<Tokenizer> tok_;
};
std::unique_ptr<Tokenizer> TokenizeRoutes::tok_;

TEST_F(TokenizeRoutes, TokenizeKnownIds) {
  // Reference ids from the HF `tokenizers` Node binding: "Hello world" -> [9906, 1917].
  const Reply r = tokenize_reply(R"({"model":"m","prompt":"Hello world","add_special_tokens":false})", *tok_,
                                 {"m", "", 2048, 0});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"count":2,"max_model_len":2048,"tokens":[9906,1917],"token_strs":null})");
}

TEST_F(TokenizeRoutes, TokenizeChatMessagesAndDetokenize) {
  const Reply t = tokenize_reply(R"({"messages":[{"role":"user","content":"Hello world"}]})", *tok_, {"m", "", 1, 0});
  EXPECT_EQ(nlohmann::json::parse(t.body)["count"], 2);
  const Reply d = detokenize_reply(R"({"model":"m","tokens":[9906,1917]})", *tok_);
  ASSERT_EQ(d.status, 200);
  EXPECT_EQ(d.body, R"({"prompt":"Hello world"})");
}

TEST_F(TokenizeRoutes, BadBodiesAre400) {
  EXPECT_EQ(tokenize_reply("{", *tok_, {}).status, 400);
  EXPECT_EQ(tokenize_reply(R"({"prompt":5})", *tok_, {}).status, 400);
  EXPECT_EQ(detokenize_reply(R"({"tokens":"x"})", *tok_).status, 400);
  EXPECT_EQ(detokenize_reply(R"({"tokens":[1.5]})", *tok_).status, 400);
}

// `servebench sim --time-scale K` says so in its models list, so that `run` reports modelled times;
// at K = 1 the list keeps vLLM's shape exactly.
TEST(ServerRoutes, ModelsAdvertiseATimeScaleOnlyWhenScaled) {
  ModelInfo scaled{"sim-model", "", 8192, 0};
  scaled.time_scale = 20;
  const auto j = nlohmann::json::parse(models_reply(scaled).body);
  EXPECT_EQ(j["data"][0]["servebench_time_scale"], 20.0);
  const auto plain = nlohmann::json::parse(models_reply({"sim-model", "", 8192, 0}).body);
  EXPECT_FALSE(plain["data"][0].contains("servebench_time_scale"));
}

}  // namespace
}  // namespace sb::sim
