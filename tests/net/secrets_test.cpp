// Masking credentials in server texts before they reach any output.
#include "net/secrets.hpp"

#include <gtest/gtest.h>

namespace sb {
namespace {

TEST(ScrubSecrets, MasksConfiguredSecretsAndKeyShapedTokens) {
  std::string text = "key mysecretvalue and sk-abcdefgh12 and sk-short and task-abcdefghijk, sk-x_y-z12345678";
  scrub_secrets(text, {"mysecretvalue"});
  EXPECT_EQ(text, "key sk-*** and sk-*** and sk-short and task-abcdefghijk, sk-***");
  const auto secrets = secret_header_values({{"authorization", "Bearer tok-1234"}, {"X-Api-Key", "abcd"},
                                             {"Accept", "text/plain"}});
  EXPECT_EQ(secrets, (std::vector<std::string>{"tok-1234", "abcd"}));
}

TEST(ScrubSecrets, KeyAtTheEndAndRepeatedSecretsAreAllMasked) {
  std::string text = "abcd abcd sk-0123456789";
  scrub_secrets(text, {"abcd"});
  EXPECT_EQ(text, "sk-*** sk-*** sk-***");
}

}  // namespace
}  // namespace sb
