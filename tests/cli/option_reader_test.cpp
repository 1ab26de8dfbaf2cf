#include "cli/option_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace sb::cli {
namespace {

TEST(OptionReader, ConversionsCollectErrorsWithTheirSource) {
  RawOptions raw{{"num-prompts", {{"12"}, "--num-prompts"}},
                 {"seed", {{"x1"}, "f.toml:3 (seed)"}},
                 {"request-rate", {{"1,2", "inf", "-3"}, "--request-rate"}},
                 {"ignore-eos", {{"maybe"}, "f.toml:4 (ignore_eos)"}}};
  std::vector<std::string> errors;
  OptionReader r(raw, errors);
  EXPECT_EQ(r.integer("num-prompts", 1), 12);
  EXPECT_FALSE(r.integer("seed", 0).has_value());
  auto rates = r.numbers("request-rate", 0, true);
  ASSERT_EQ(rates.size(), 3u);
  EXPECT_TRUE(std::isinf(rates[2]));
  EXPECT_FALSE(r.flag("ignore-eos"));
  EXPECT_FALSE(r.has("model"));
  EXPECT_EQ(r.text("model"), std::nullopt);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0], "f.toml:3 (seed): 'x1' is not an integer >= 0");
  EXPECT_EQ(errors[1], "--request-rate: '-3' is not a number >= 0 (or inf)");
  EXPECT_EQ(errors[2], "f.toml:4 (ignore_eos): 'maybe' is not true or false");
}

TEST(OptionReader, StrictNumberParsing) {
  EXPECT_EQ(parse_integer("42"), 42);
  EXPECT_FALSE(parse_integer("4x").has_value());
  EXPECT_FALSE(parse_integer("").has_value());
  EXPECT_EQ(parse_number("0.25", false), 0.25);
  EXPECT_FALSE(parse_number("inf", false).has_value());
  EXPECT_TRUE(std::isinf(*parse_number("inf", true)));
  EXPECT_FALSE(parse_number("1e999", false).has_value());
}

}  // namespace
}  // namespace sb::cli
