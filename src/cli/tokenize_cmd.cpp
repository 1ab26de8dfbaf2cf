// servebench tokenize: encode / count / decode with a HuggingFace tokenizer.json, for people and
// scripts. The tokenizer is loaded once; --jsonl streams a whole file through it.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "tokenizer/tokenize_io.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::cli {
namespace {

struct TokenizeFlags {
  std::string tokenizer;
  std::string text, file, jsonl, decode;
  bool count = false;
  bool ids = false;
  bool no_special_tokens = false;
  bool skip_special_tokens = false;
};

std::string read_file(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(std::string(flag) + " " + path + ": cannot open file");
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

int run_tokenize(const TokenizeFlags& f, const CLI::App& app) {
  const auto tok = Tokenizer::load(f.tokenizer);
  const bool special = !f.no_special_tokens;
  if (app.count("--decode")) {
    const auto ids = tok::parse_id_list(f.decode, "--decode");
    std::cout << tok->decode(ids, f.skip_special_tokens) << '\n';
  } else if (app.count("--jsonl")) {
    std::ifstream in(f.jsonl, std::ios::binary);
    if (!in) throw UserError("--jsonl " + f.jsonl + ": cannot open file");
    tok::tokenize_jsonl(*tok, in, std::cout, special, f.jsonl);
  } else {
    const std::string text = app.count("--text") ? f.text : read_file(f.file, "--file");
    if (f.count) std::cout << tok->count(text, special) << '\n';
    else std::cout << tok::ids_to_json(tok->encode(text, special)) << '\n';
  }
  std::cout.flush();
  if (!std::cout) throw UserError("cannot write to standard output", ExitCode::internal_error);
  return to_int(ExitCode::ok);
}

}  // namespace

int tokenize_cmd(int argc, char** argv) {
  CLI::App app{"Encode, count or decode text with a HuggingFace tokenizer.json (ids identical to HF tokenizers)"};
  app.name("servebench tokenize");
  TokenizeFlags f;
  app.add_option("--tokenizer", f.tokenizer, "tokenizer.json, or a folder holding it (and tokenizer_config.json)")
      ->required()->check(CLI::ExistingPath);
  auto* input = app.add_option_group("input", "exactly one of")->require_option(1);
  input->add_option("--text", f.text, "text to encode");
  input->add_option("--file", f.file, "encode the whole content of this file")->check(CLI::ExistingFile);
  input->add_option("--jsonl", f.jsonl, "one JSON string per line in, one JSON array of ids per line out")
      ->check(CLI::ExistingFile);
  input->add_option("--decode", f.decode, "comma-separated ids to decode, e.g. 1,2,3");
  auto* ids = app.add_flag("--ids", f.ids, "print the ids as a JSON array (default)");
  app.add_flag("--count", f.count, "print only the number of tokens")->excludes(ids);
  app.add_flag("--no-special-tokens", f.no_special_tokens, "do not add the post-processor's special tokens (BOS...)");
  app.add_flag("--skip-special-tokens", f.skip_special_tokens, "--decode: leave special tokens out of the text");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? to_int(ExitCode::ok) : to_int(ExitCode::config_error);
  }
  if ((f.count || f.ids) && (app.count("--decode") || app.count("--jsonl"))) {
    throw UserError("--count/--ids apply to --text or --file only");
  }
  return run_tokenize(f, app);
}

}  // namespace sb::cli
