#include "net/endpoint.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"

namespace sb {
namespace {

TEST(Endpoint, HttpWithPortAndNoPath) {
  const Endpoint ep = parse_base_url("http://localhost:8000");
  EXPECT_FALSE(ep.tls);
  EXPECT_EQ(ep.host, "localhost");
  EXPECT_EQ(ep.port, 8000);
  EXPECT_EQ(ep.base_path, "");
  EXPECT_EQ(ep.authority(), "localhost:8000");
  EXPECT_EQ(ep.url("/v1/models"), "http://localhost:8000/v1/models");
}

TEST(Endpoint, HttpsDefaultPortAndBasePathWithoutTrailingSlash) {
  const Endpoint ep = parse_base_url("HTTPS://gateway.example/api/v2/");
  EXPECT_TRUE(ep.tls);
  EXPECT_EQ(ep.port, 443);
  EXPECT_EQ(ep.base_path, "/api/v2");
  EXPECT_EQ(ep.authority(), "gateway.example");  // default port is not repeated in Host
  EXPECT_EQ(ep.url("/v1/completions"), "https://gateway.example/api/v2/v1/completions");
}

TEST(Endpoint, HttpDefaultPortIs80) {
  EXPECT_EQ(parse_base_url("http://h").port, 80);
  EXPECT_EQ(parse_base_url("http://h/").base_path, "");
}

TEST(Endpoint, Ipv6InBrackets) {
  const Endpoint ep = parse_base_url("http://[::1]:8080/x");
  EXPECT_EQ(ep.host, "::1");
  EXPECT_EQ(ep.port, 8080);
  EXPECT_EQ(ep.authority(), "[::1]:8080");
  EXPECT_EQ(parse_base_url("https://[fe80::2]").authority(), "[fe80::2]");
}

TEST(Endpoint, MalformedUrlsNameTheFlagAndTheProblem) {
  const auto message = [](const char* url) {
    try {
      parse_base_url(url);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("localhost:8000").find("http:// or https://"), std::string::npos);
  EXPECT_NE(message("ftp://h").find("--base-url 'ftp://h'"), std::string::npos);
  EXPECT_NE(message("http://h:0").find("port '0'"), std::string::npos);
  EXPECT_NE(message("http://h:70000").find("1..65535"), std::string::npos);
  EXPECT_NE(message("http://h:80x").find("port '80x'"), std::string::npos);
  EXPECT_NE(message("http://:80").find("no host"), std::string::npos);
  EXPECT_NE(message("http://[::1").find("']'"), std::string::npos);
  EXPECT_NE(message("http://::1:80").find("brackets"), std::string::npos);
  EXPECT_NE(message("http://u:p@h").find("credentials"), std::string::npos);
  EXPECT_NE(message("http://h/x?y=1").find("query"), std::string::npos);
}

// Every base URL shape (none, /v1, /api, /api/v1; with and without a trailing slash) against every
// --endpoint spelling: the request URL and the model list's URL, written out by hand.
struct JoinCase {
  const char* endpoint;
  const char* request_url;
};

struct BaseCase {
  std::vector<const char*> spellings;  // the same base, written as users do
  const char* models_url;              // GET /v1/models under it
  std::vector<JoinCase> joins;
};

TEST(EndpointJoin, EveryBaseAndEndpointCombinationKnownAnswers) {
  const std::vector<BaseCase> cases = {
      {{"http://h:8000", "http://h:8000/"},
       "http://h:8000/v1/models",
       {{"/v1/completions", "http://h:8000/v1/completions"},
        {"v1/completions", "http://h:8000/v1/completions"},
        {"/v1/chat/completions", "http://h:8000/v1/chat/completions"},
        {"/completions", "http://h:8000/completions"},
        {"completions", "http://h:8000/completions"},
        {"/chat/completions", "http://h:8000/chat/completions"}}},
      {{"http://h:8000/v1", "http://h:8000/v1/"},
       "http://h:8000/v1/models",
       {{"/v1/completions", "http://h:8000/v1/completions"},
        {"v1/completions", "http://h:8000/v1/completions"},
        {"/v1/chat/completions", "http://h:8000/v1/chat/completions"},
        {"/completions", "http://h:8000/v1/completions"},
        {"completions", "http://h:8000/v1/completions"},
        {"/chat/completions", "http://h:8000/v1/chat/completions"}}},
      {{"https://taotoken.net/api", "https://taotoken.net/api/"},
       "https://taotoken.net/api/v1/models",
       {{"/v1/completions", "https://taotoken.net/api/v1/completions"},
        {"v1/completions", "https://taotoken.net/api/v1/completions"},
        {"/v1/chat/completions", "https://taotoken.net/api/v1/chat/completions"},
        {"/completions", "https://taotoken.net/api/completions"},
        {"completions", "https://taotoken.net/api/completions"},
        {"/chat/completions", "https://taotoken.net/api/chat/completions"}}},
      {{"https://taotoken.net/api/v1", "https://taotoken.net/api/v1/"},
       "https://taotoken.net/api/v1/models",
       {{"/v1/completions", "https://taotoken.net/api/v1/completions"},
        {"v1/completions", "https://taotoken.net/api/v1/completions"},
        {"/v1/chat/completions", "https://taotoken.net/api/v1/chat/completions"},
        {"/completions", "https://taotoken.net/api/v1/completions"},
        {"completions", "https://taotoken.net/api/v1/completions"},
        {"/chat/completions", "https://taotoken.net/api/v1/chat/completions"}}},
  };
  for (const BaseCase& base : cases) {
    for (const char* spelling : base.spellings) {
      for (const JoinCase& join : base.joins) {
        Endpoint ep = parse_base_url(spelling);
        const std::string path = join_api_path(ep, join.endpoint);
        EXPECT_EQ(ep.url(path), join.request_url) << spelling << " + " << join.endpoint;
        EXPECT_EQ(ep.url("/v1/models"), base.models_url) << spelling << " + " << join.endpoint;
      }
    }
  }
}

TEST(EndpointJoin, OnlyATrailingV1SegmentMoves) {
  Endpoint ep = parse_base_url("http://h/v1beta");  // not the /v1 segment: the base keeps it
  EXPECT_EQ(ep.url(join_api_path(ep, "/v1/completions")), "http://h/v1beta/v1/completions");
  ep = parse_base_url("http://h/openai/v1");  // any prefix before /v1 stays on the base
  EXPECT_EQ(join_api_path(ep, "/chat/completions"), "/v1/chat/completions");
  EXPECT_EQ(ep.base_path, "/openai");
  ep = parse_base_url("http://h/v1");  // the path is the version itself
  EXPECT_EQ(join_api_path(ep, "/v1"), "/v1");
  EXPECT_EQ(ep.base_path, "");
}

}  // namespace
}  // namespace sb
