#include "net/endpoint.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sb
