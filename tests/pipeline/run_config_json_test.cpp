#include "pipeline/run_config_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace sb::pipeline {
namespace {

RunConfig secret_config() {
  RunConfig c;
  c.backend = "openai-chat";
  c.base_url = "https://gateway.example/api";
  c.client.path = "/v1/chat/completions";
  c.api_key = "sk-SECRET-123";
  c.api_key_source = "config file";
  c.client.headers = {{"X-Api-Token", "tok-SECRET-456"}};
  c.load.concurrency = {1, 4};
  c.load.request_rates = {std::numeric_limits<double>::infinity()};
  c.goodput_slo_ms = {{"ttft", 500}};
  c.request.extra_body_json = R"({"top_k":3})";
  return c;
}

TEST(RunConfigJson, SecretsNeverAppear) {
  const std::string text = redacted_config_json(secret_config(), "llama");
  EXPECT_EQ(text.find("SECRET"), std::string::npos) << text;
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["headers"]["X-Api-Token"], "<redacted>");
  EXPECT_EQ(j["headers"]["Authorization"], "<redacted>");
}

TEST(RunConfigJson, DocumentedKeysInOrder) {
  auto j = nlohmann::ordered_json::parse(redacted_config_json(secret_config(), "llama"));
  std::vector<std::string> keys;
  for (auto& [k, v] : j.items()) keys.push_back(k);
  const std::vector<std::string> first{"backend", "base_url", "endpoint", "model", "served_model_name",
                                       "tokenizer", "dataset", "load", "ignore_eos", "sampling", "extra_body",
                                       "headers"};
  ASSERT_GE(keys.size(), first.size());
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + first.size()), first);
  EXPECT_EQ(j["load"]["mode"], "concurrency");
  EXPECT_EQ(j["load"]["values"], nlohmann::ordered_json::parse("[1,4]"));
  EXPECT_EQ(j["load"]["request_rate"], "inf");
  EXPECT_EQ(j["goodput"]["ttft"], 500.0);
  EXPECT_TRUE(j["goodput"]["tpot"].is_null());
  EXPECT_EQ(j["extra_body"]["top_k"], 3);
  EXPECT_EQ(j["served_model_name"], "llama");
}

}  // namespace
}  // namespace sb::pipeline
