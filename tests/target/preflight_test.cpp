// Preflight decisions on /v1/models replies, and a real refused connection on loopback.
#include "target/preflight.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "net/endpoint.hpp"

namespace sb {
namespace {

PreflightInput input(std::optional<std::string> model) {
  PreflightInput in;
  in.endpoint = parse_base_url("http://127.0.0.1:8000");
  in.model = std::move(model);
  return in;
}

HttpReply reply(int status, std::string body, std::string reason = "OK") {
  HttpReply r;
  r.status = status;
  r.reason = std::move(reason);
  r.body = std::move(body);
  return r;
}

std::string pf_error_of(const PreflightInput& in, const HttpReply& r) {
  try {
    check_models_reply(in, r);
  } catch (const UserError& e) {
    EXPECT_EQ(e.code(), ExitCode::unreachable);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

const char* kTwoModels = R"({"data":[{"id":"llama","root":"/models/llama-3"},{"id":"lora-x","root":"llama"}]})";

TEST(Preflight, FirstServedIdWhenNoModelGiven) {
  auto r = check_models_reply(input(std::nullopt), reply(200, kTwoModels));
  EXPECT_EQ(r.model_id, "llama");
  EXPECT_EQ(r.model_root, "/models/llama-3");
  EXPECT_EQ(r.served_ids, (std::vector<std::string>{"llama", "lora-x"}));
}

TEST(Preflight, GivenModelMustBeServed) {
  EXPECT_EQ(check_models_reply(input("lora-x"), reply(200, kTwoModels)).model_id, "lora-x");
  std::string msg = pf_error_of(input("mistral"), reply(200, kTwoModels));
  EXPECT_NE(msg.find("'mistral' is not served"), std::string::npos) << msg;
  EXPECT_NE(msg.find("served: llama, lora-x"), std::string::npos) << msg;
}

TEST(Preflight, RefusedKeyIsNamedButNeverPrinted) {
  PreflightInput in = input("llama");
  in.headers = {{"Authorization", "Bearer sk-SECRET"}};
  in.api_key_source = "env OPENAI_API_KEY";
  std::string msg = pf_error_of(in, reply(401, R"({"error":"bad key sk-SECRET"})", "Unauthorized"));
  EXPECT_NE(msg.find("refused the API key"), std::string::npos) << msg;
  EXPECT_NE(msg.find("env OPENAI_API_KEY"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("sk-SECRET"), std::string::npos) << msg;
  in.api_key_source.clear();
  EXPECT_NE(pf_error_of(in, reply(403, "", "Forbidden")).find("no API key was sent"), std::string::npos);
}

TEST(Preflight, MissingModelsRouteWarnsWithModelAndFailsWithout) {
  auto r = check_models_reply(input("llama"), reply(404, "not found", "Not Found"));
  EXPECT_EQ(r.model_id, "llama");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("HTTP 404"), std::string::npos);
  EXPECT_NE(pf_error_of(input(std::nullopt), reply(404, "", "Not Found")).find("pass --model"), std::string::npos);
}

TEST(Preflight, GarbageBodyAndEmptyList) {
  EXPECT_NE(pf_error_of(input(std::nullopt), reply(200, "<html>")).find("models list"), std::string::npos);
  EXPECT_NE(pf_error_of(input(std::nullopt), reply(200, R"({"data":[]})")).find("lists no model"), std::string::npos);
}

TEST(Preflight, ConnectionRefusedNamesHostAndPort) {
  PreflightInput in = input("m");
  in.endpoint = parse_base_url("http://127.0.0.1:1");  // port 1: nothing listens there
  in.timeout_s = 5;
  try {
    preflight(in);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.code(), ExitCode::unreachable);
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sb
