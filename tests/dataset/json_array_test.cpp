#include "dataset/json_array.hpp"

#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::dataset {
namespace {

std::string json_error_of(std::string_view json) {
  try {
    split_json_array(json, "f.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonArray, SplitsElementsIgnoringBracketsAndQuotesInsideStrings) {
  const std::string json = R"( [ {"a": "x]}\"," }, [1, [2]] ,"s\\" , 7 ] )";
  auto spans = split_json_array(json, "f.json");
  ASSERT_EQ(spans.size(), 4u);
  auto text = [&](ByteSpan s) { return json.substr(s.begin, s.end - s.begin); };
  EXPECT_EQ(text(spans[0]), R"({"a": "x]}\"," })");
  EXPECT_EQ(text(spans[1]), "[1, [2]]");
  EXPECT_EQ(text(spans[2]), R"("s\\")");
  EXPECT_EQ(text(spans[3]), "7");
}

TEST(JsonArray, EmptyArrayHasNoElements) {
  EXPECT_TRUE(split_json_array(" [ \n ] \n", "f.json").empty());
}

TEST(JsonArray, ErrorsNameFileAndLine) {
  EXPECT_EQ(json_error_of("\n{\"a\": 1}"), "f.json:2: expected a JSON array");
  EXPECT_EQ(json_error_of("[1,\n2,\n\"abc"), "f.json:3: unterminated string");
  EXPECT_EQ(json_error_of("[1,\n{\"a\": [2]}"), "f.json:2: unterminated JSON array (file cut short?)");
  EXPECT_EQ(json_error_of("[1]\n\nx"), "f.json:3: unexpected content after the JSON array");
  EXPECT_EQ(json_error_of("[1,,2]"), "f.json:1: empty array element");
  EXPECT_EQ(json_error_of("[1}\n]"), "f.json:1: unbalanced '}'");
}

}  // namespace
}  // namespace sb::dataset
