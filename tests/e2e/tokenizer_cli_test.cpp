// `servebench tokenize` as a user runs it: ids, count, decode, --jsonl batches, and one-line
// errors with exit code 2. Expected ids are HF's (checked with the Node binding in tools/).
#include <gtest/gtest.h>

#include <fstream>

#include "e2e/run_process.hpp"
#include "support/test_paths.hpp"

namespace sb::e2e {
namespace {

const std::string kCliLlama2 = sb::test_files::tokenizer_dir("llama2");
const std::string kCliQwen3 = sb::test_files::tokenizer_dir("qwen3");

RunResult tokenize(std::vector<std::string> args, const fs::path& dir) {
  args.insert(args.begin(), "tokenize");
  RunResult r;
  r.code = wait_exit(spawn(args, dir, "tok"), 60);
  r.out = slurp(dir / "tok.out");
  r.err = slurp(dir / "tok.err");
  return r;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

TEST(TokenizeE2e, IdsCountAndNoSpecialTokens) {
  SB_REQUIRE_TOKENIZER("llama2");
  SB_REQUIRE_TOKENIZER("qwen3");
  TempDir dir("tokcli_ids");
  RunResult r = tokenize({"--tokenizer", kCliLlama2, "--text", "Hello world"}, dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[1,22557,1526]\n");
  r = tokenize({"--tokenizer", kCliLlama2 + "/tokenizer.json", "--text", "Hello world", "--no-special-tokens", "--ids"},
               dir.path);
  EXPECT_EQ(r.out, "[22557,1526]\n") << r.err;
  r = tokenize({"--tokenizer", kCliLlama2, "--text", "Hello world", "--count"}, dir.path);
  EXPECT_EQ(r.out, "3\n") << r.err;
  // Qwen3 adds no special tokens; <|im_start|> is matched as one added token (151644).
  r = tokenize({"--tokenizer", kCliQwen3, "--text", "<|im_start|>user"}, dir.path);
  EXPECT_EQ(r.out, "[151644,872]\n") << r.err;
}

TEST(TokenizeE2e, FileAndDecodeRoundTrip) {
  SB_REQUIRE_TOKENIZER("llama2");
  TempDir dir("tokcli_file");
  write(dir.path / "in.txt", "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC\n");
  RunResult r = tokenize({"--tokenizer", kCliLlama2, "--file", "in.txt", "--no-special-tokens"}, dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string ids = r.out.substr(1, r.out.size() - 3);  // "[a,b,...]\n" -> "a,b,..."
  r = tokenize({"--tokenizer", kCliLlama2, "--decode", ids}, dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC\n\n");  // the text, then println's newline
  r = tokenize({"--tokenizer", kCliLlama2, "--decode", "1,22557,1526", "--skip-special-tokens"}, dir.path);
  EXPECT_EQ(r.out, "Hello world\n") << r.err;
  r = tokenize({"--tokenizer", kCliLlama2, "--decode", "1,22557,1526"}, dir.path);
  EXPECT_EQ(r.out, "<s> Hello world\n") << r.err;
}

TEST(TokenizeE2e, JsonlOneArrayPerLineInOrder) {
  SB_REQUIRE_TOKENIZER("llama2");
  TempDir dir("tokcli_jsonl");
  write(dir.path / "in.jsonl", "\"Hello world\"\n\"a b\"\n\"\"\n\"line\\nbreak\"\n");
  RunResult r = tokenize({"--tokenizer", kCliLlama2, "--jsonl", "in.jsonl"}, dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[1,22557,1526]\n[1,264,287]\n[1]\n[1,1407,13,2876]\n");
}

TEST(TokenizeE2e, BadInputIsOneLineErrorExit2) {
  SB_REQUIRE_TOKENIZER("llama2");
  TempDir dir("tokcli_err");
  write(dir.path / "bad.jsonl", "\"ok\"\nnot json\n");
  write(dir.path / "broken.json", "{\"model\": {\"type\": \"WordPiece\"");
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{"--tokenizer", kCliLlama2, "--jsonl", "bad.jsonl"}, "bad.jsonl:2: expected one JSON string per line"},
      {{"--tokenizer", kCliLlama2, "--decode", "1,x"}, "--decode: 'x' is not a token id"},
      {{"--tokenizer", "/nonexistent/tok", "--text", "a"}, "--tokenizer"},
      {{"--tokenizer", kCliLlama2}, "Exactly 1 option"},
      {{"--tokenizer", kCliLlama2, "--text", "a", "--decode", "1"}, "Exactly 1 option"},
      {{"--tokenizer", kCliLlama2, "--decode", "1", "--count"}, "--count/--ids apply to --text or --file only"},
      {{"--tokenizer", "broken.json", "--text", "a"}, "broken.json"},
  };
  for (const Case& c : cases) {
    const RunResult r = tokenize(c.args, dir.path);
    EXPECT_EQ(r.code, 2) << c.needle << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace sb::e2e
