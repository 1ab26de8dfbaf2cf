#include "tokenizer/regex.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace sb::tok {
namespace {

std::vector<std::string> matches(const Regex& re, std::string_view text) {
  std::vector<Match> ms;
  re.find_all(text, ms);
  std::vector<std::string> out;
  for (const auto& m : ms) out.emplace_back(text.substr(m.begin, m.end - m.begin));
  return out;
}

TEST(Regex, UnicodeClassesMatchLettersInAnyScript) {
  const Regex re(R"(\p{L}+)", false);
  EXPECT_EQ(matches(re, "caf\xC3\xA9 \xE4\xBD\xA0\xE5\xA5\xBD 42"),
            (std::vector<std::string>{"caf\xC3\xA9", "\xE4\xBD\xA0\xE5\xA5\xBD"}));
}

TEST(Regex, LiteralPatternIsNotARegex) {
  const Regex re("a.b", true);
  EXPECT_EQ(matches(re, "a.b axb a.b"), (std::vector<std::string>{"a.b", "a.b"}));
}

TEST(Regex, LongWhitespaceRunWithLookaheadDoesNotFail) {
  const Regex re(R"(\s+(?!\S)|\s+)", false);
  const std::string text = std::string(100000, ' ') + "x";
  // \s+(?!\S) backtracks one space so the last space stays with "x": two matches.
  const auto m = matches(re, text);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].size(), 99999u);
  EXPECT_EQ(m[1], " ");
}

TEST(Regex, EmptyMatchesAreSkipped) {
  const Regex re("x*", false);
  EXPECT_EQ(matches(re, "axxb"), (std::vector<std::string>{"xx"}));
}

TEST(Regex, BadPatternThrowsWithOffset) {
  EXPECT_THROW(Regex("(unclosed", false), std::invalid_argument);
}

}  // namespace
}  // namespace sb::tok
