#include "tokenizer/tokenize_io.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.hpp"
#include "support/test_paths.hpp"

namespace sb::tok {
namespace {

TEST(TokenizeIo, IdListParsing) {
  EXPECT_EQ(parse_id_list("1,2, 3", "--decode"), (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(parse_id_list("42", "--decode"), (std::vector<std::int32_t>{42}));
  try {
    parse_id_list("1,,2", "--decode");
    FAIL() << "expected an error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "--decode: '' is not a token id (expected e.g. 1,2,3)");
  }
  EXPECT_THROW(parse_id_list("1,x", "--decode"), UserError);
  EXPECT_THROW(parse_id_list("-4", "--decode"), UserError);
  EXPECT_THROW(parse_id_list("99999999999", "--decode"), UserError);
}

TEST(TokenizeIo, IdsToJson) {
  EXPECT_EQ(ids_to_json({}), "[]");
  EXPECT_EQ(ids_to_json({1, 22557, 1526}), "[1,22557,1526]");
}

TEST(TokenizeIo, JsonlKeepsLineOrder) {
  SB_REQUIRE_TOKENIZER("llama2");
  const auto tok = Tokenizer::load(sb::test_files::tokenizer_dir("llama2"));
  std::istringstream in("\"Hello world\"\n\"\"\r\n\"a\\nb\"\n");
  std::ostringstream out;
  EXPECT_EQ(tokenize_jsonl(*tok, in, out, true, "in.jsonl"), 3u);
  EXPECT_EQ(out.str(), "[1,22557,1526]\n[1]\n" + ids_to_json(tok->encode("a\nb", true)) + "\n");
}

TEST(TokenizeIo, JsonlBadLineNamesFileAndLine) {
  SB_REQUIRE_TOKENIZER("llama2");
  const auto tok = Tokenizer::load(sb::test_files::tokenizer_dir("llama2"));
  std::istringstream in("\"ok\"\n{\"prompt\": 1}\n");
  std::ostringstream out;
  try {
    tokenize_jsonl(*tok, in, out, true, "in.jsonl");
    FAIL() << "expected an error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("in.jsonl:2: expected one JSON string per line", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace sb::tok
