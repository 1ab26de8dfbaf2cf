#include "protocol/models.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb {
namespace {

TEST(Models, VllmModelsListWithRoot) {
  auto models = parse_models(
      R"({"object":"list","data":[{"id":"llama","object":"model","created":1,"owned_by":"vllm",)"
      R"("root":"/models/Meta-Llama-3-8B","parent":null,"max_model_len":8192},{"id":"lora-a","root":"llama"}]})",
      "http://h/v1/models");
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].id, "llama");
  EXPECT_EQ(models[0].root, "/models/Meta-Llama-3-8B");
  EXPECT_EQ(models[1].id, "lora-a");
}

TEST(Models, OpenAiListWithoutRoot) {
  auto models = parse_models(R"({"data":[{"id":"gpt-4o-mini","object":"model"}]})", "x");
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].root, "");
}

TEST(Models, NotAModelsListNamesTheUrl) {
  try {
    parse_models("<html>404</html>", "http://h:1/v1/models");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("http://h:1/v1/models"), std::string::npos);
    EXPECT_EQ(e.code(), ExitCode::unreachable);
  }
  EXPECT_THROW(parse_models(R"({"data":{}})", "x"), UserError);
}

// Ours, from servebench sim --time-scale K: read when a positive number, else 1 (a real server).
TEST(ParseModels, ReadsTheSimulatorsTimeScale) {
  const auto models = parse_models(
      R"({"data":[{"id":"a","servebench_time_scale":20},{"id":"b"},{"id":"c","servebench_time_scale":-3},)"
      R"({"id":"d","servebench_time_scale":"10"},{"id":"e","servebench_time_scale":0.5}]})",
      "x");
  ASSERT_EQ(models.size(), 5u);
  EXPECT_EQ(models[0].time_scale, 20);
  EXPECT_EQ(models[1].time_scale, 1);
  EXPECT_EQ(models[2].time_scale, 1);
  EXPECT_EQ(models[3].time_scale, 1);
  EXPECT_EQ(models[4].time_scale, 0.5);
}

}  // namespace
}  // namespace sb
