// Parity with the official HuggingFace tokenizers (Node binding 0.23.2) on the committed corpus:
// tests/data/tokenizer/golden_<name>.jsonl is produced by tools/tokenizer/make_goldens.js.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.hpp"
#include "tokenizer/tokenizer.hpp"

namespace {

const std::string kData = std::string(SB_SOURCE_DIR) + "/tests/data/tokenizer/";

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::int32_t> ids_of(simdjson::dom::element e) {
  std::vector<std::int32_t> out;
  for (auto v : e.get_array()) out.push_back(static_cast<std::int32_t>(v.get_int64().value()));
  return out;
}

std::string str_of(simdjson::dom::element e) { return std::string(e.get_string().value()); }

std::string show_ids(const std::vector<std::int32_t>& ids) {
  std::ostringstream os;
  for (auto id : ids) os << id << ' ';
  return os.str();
}

struct Tally {
  int cases = 0, failures = 0;
  std::string first;
  void check(bool ok, const std::string& what) {
    ++cases;
    if (ok) return;
    if (++failures <= 5) first += what + "\n";
  }
};

// A fixture with some sections replaced as tests/data/tokenizer/variants.json says (the same
// overrides make_goldens.js applied before asking HF), written to a temporary tokenizer.json.
std::string write_variant(const std::string& name) {
  std::ifstream vin(kData + "variants.json");
  const auto variants = nlohmann::json::parse(vin);
  const auto& v = variants.at(name);
  std::ifstream bin(sb::test_files::tokenizer_dir(v.at("base").get<std::string>()) + "/tokenizer.json");
  auto doc = nlohmann::json::parse(bin);
  for (const auto& [key, value] : v.at("override").items()) doc[key] = value;
  const auto dir = std::filesystem::temp_directory_path() / ("sb_tok_variant_" + name);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tokenizer.json") << doc.dump();
  return dir.string();
}

void run_parity(const std::string& name, const std::string& path) {
  const auto tok = sb::Tokenizer::load(path);
  const auto corpus = read_lines(kData + "corpus.jsonl");
  const auto golden = read_lines(kData + "golden_" + name + ".jsonl");
  ASSERT_GE(corpus.size(), 5000u);
  simdjson::dom::parser parser;
  Tally with, without, decode, random_decode;
  int exact_round_trips = 0;  // lines where HF's decode(encode(x)) == x, so ours must be too
  for (std::size_t i = 0; i < golden.size(); ++i) {
    const simdjson::dom::element g = parser.parse(golden[i]);
    simdjson::dom::element ids_elem;
    if (g["ids"].get(ids_elem) == simdjson::SUCCESS) {  // random id sequences: decode only
      const auto ids = ids_of(ids_elem);
      const std::string d = str_of(g["d"]), k = str_of(g["k"]);
      random_decode.check(tok->decode(ids, false) == d,
                          "ids " + show_ids(ids) + " -> '" + tok->decode(ids, false) + "' want '" + d + "'");
      random_decode.check(tok->decode(ids, true) == k, "skip ids " + show_ids(ids));
      continue;
    }
    simdjson::dom::parser line_parser;
    const std::string text = str_of(line_parser.parse(corpus[i]));
    const auto s = ids_of(g["s"]);
    simdjson::dom::element n_elem;
    const auto n = g["n"].get(n_elem) == simdjson::SUCCESS ? ids_of(n_elem) : s;
    const auto got_s = tok->encode(text, true), got_n = tok->encode(text, false);
    with.check(got_s == s, "line " + std::to_string(i) + " " + corpus[i] + "\n  got  " + show_ids(got_s) + "\n  want " +
                               show_ids(s));
    without.check(got_n == n, "line " + std::to_string(i) + " " + corpus[i]);
    EXPECT_EQ(tok->count(text, true), s.size()) << corpus[i];
    simdjson::dom::element d_elem;  // absent: HF decodes back to exactly the input
    const bool has_d = g["d"].get(d_elem) == simdjson::SUCCESS;
    const std::string d = has_d ? str_of(d_elem) : text;
    exact_round_trips += has_d ? 0 : 1;
    decode.check(tok->decode(n, false) == d, "line " + std::to_string(i) + " decode " + corpus[i]);
  }
  std::printf("[%s] with special %d/%d, without %d/%d, decode %d/%d (%d exact round trips), random-id decode %d/%d\n",
              name.c_str(),
              with.cases - with.failures, with.cases, without.cases - without.failures, without.cases,
              decode.cases - decode.failures, decode.cases, exact_round_trips, random_decode.cases - random_decode.failures,
              random_decode.cases);
  EXPECT_EQ(with.failures, 0) << with.first;
  EXPECT_EQ(without.failures, 0) << without.first;
  EXPECT_EQ(decode.failures, 0) << decode.first;
  EXPECT_EQ(random_decode.failures, 0) << random_decode.first;
}

TEST(TokenizerParity, Qwen3MatchesHuggingFace) {
  SB_REQUIRE_TOKENIZER("qwen3");
  run_parity("qwen3", sb::test_files::tokenizer_dir("qwen3"));
}
TEST(TokenizerParity, Llama3MatchesHuggingFace) {
  SB_REQUIRE_TOKENIZER("llama3");
  run_parity("llama3", sb::test_files::tokenizer_dir("llama3"));
}
TEST(TokenizerParity, Llama2MatchesHuggingFace) {
  SB_REQUIRE_TOKENIZER("llama2");
  run_parity("llama2", sb::test_files::tokenizer_dir("llama2"));
}

// Components the fixtures do not use: Metaspace (first/always, split or not) + its decoder, Digits,
// NFKC, Lowercase, ByteLevel with add_prefix_space and the GPT-2 regex, a suffix template.
// The "base" of each variant in variants.json must be installed.
TEST(TokenizerParity, Llama2MetaspaceVariantMatchesHuggingFace) {
  SB_REQUIRE_TOKENIZER("llama2");
  run_parity("llama2_metaspace", write_variant("llama2_metaspace"));
}
TEST(TokenizerParity, Llama2MetaspaceSplitVariantMatchesHuggingFace) {
  SB_REQUIRE_TOKENIZER("llama2");
  run_parity("llama2_metaspace_split", write_variant("llama2_metaspace_split"));
}
TEST(TokenizerParity, Qwen3Gpt2VariantMatchesHuggingFace) {
  SB_REQUIRE_TOKENIZER("qwen3");
  run_parity("qwen3_gpt2", write_variant("qwen3_gpt2"));
}

}  // namespace
