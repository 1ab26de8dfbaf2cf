// Dataset load time on a synthetic ShareGPT-sized file (~650 MB, ~90k conversations) and for
// the random dataset. Standalone harness (prints seconds), run on purpose:
//   dataset_bench [--file PATH] [--size-mb 650] [--tokenizer DIR] [--num-prompts 1000]
// The file is generated once (default /tmp/servebench_sharegpt_synth.json) and reused.
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/error.hpp"
#include "dataset/dataset.hpp"
#include "tokenizer/tokenizer.hpp"

namespace {

struct Options {
  std::string file = "/tmp/servebench_sharegpt_synth.json";
  std::size_t size_mb = 650;
  std::string tokenizer;
  int num_prompts = 1000;
};

constexpr std::string_view kWords[] = {
    "the", "model", "server", "token", "latency", "because", "request", "batch", "cache", "and",
    "which", "would", "memory", "throughput", "question", "answer", "please", "explain", "why", "code",
    "function", "return", "value", "error", "string", "\\n", "\\\"quoted\\\"", "caf\\u00e9", "of", "to"};

// One turn: lognormal word count, mean around 150 words (~1 KB), heavy tail like real chats.
void append_turn(std::string& out, std::mt19937_64& rng, const char* from) {
  std::lognormal_distribution<double> words(4.6, 1.0);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kWords) - 1);
  out += fmt::format(R"({{"from": "{}", "value": ")", from);
  const auto n = static_cast<std::size_t>(words(rng)) + 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ' ';
    out += kWords[pick(rng)];
  }
  out += "\"}";
}

void generate(const Options& o) {
  std::ofstream f(o.file, std::ios::binary);
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int> turns(1, 9);
  std::string entry;
  const std::size_t target = o.size_mb << 20;
  std::size_t written = 0, count = 0;
  f << "[\n";
  while (written < target) {
    entry = fmt::format(R"({}{{"id": "conv{}", "conversations": [)", count ? ",\n" : "", count);
    const int n = turns(rng);
    for (int t = 0; t < n; ++t) {
      if (t) entry += ", ";
      append_turn(entry, rng, t % 2 ? "gpt" : "human");
    }
    entry += "]}";
    f << entry;
    written += entry.size();
    ++count;
  }
  f << "\n]\n";
  fmt::print("generated {}: {} conversations, {:.0f} MB\n", o.file, count, written / 1048576.0);
}

// Wall time plus process CPU time (all threads): on a shared machine the CPU figure is the
// stable one, and CPU > wall shows the parallel parts working.
void time_load(const std::string& label, const sb::DatasetConfig& cfg, const sb::Tokenizer* tok) {
  const std::clock_t cpu_start = std::clock();
  sb::Dataset ds = sb::load_dataset(cfg, tok);
  const double cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  fmt::print("{:<36} wall {:>7.3f} s  cpu {:>7.3f} s  ({} requests, exact lengths: {})\n", label,
             ds.load_seconds, cpu_s, ds.requests.size(), ds.lengths_exact ? "yes" : "no");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--file") o.file = argv[i + 1];
    else if (flag == "--size-mb") o.size_mb = std::strtoul(argv[i + 1], nullptr, 10);
    else if (flag == "--tokenizer") o.tokenizer = argv[i + 1];
    else if (flag == "--num-prompts") o.num_prompts = std::atoi(argv[i + 1]);
    else throw sb::UserError(fmt::format("dataset_bench: unknown flag {}", flag));
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  if (!std::filesystem::exists(o.file)) generate(o);
  std::unique_ptr<sb::Tokenizer> tok;
  if (!o.tokenizer.empty()) tok = sb::Tokenizer::load(o.tokenizer);

  sb::DatasetConfig sharegpt;
  sharegpt.name = "sharegpt";
  sharegpt.path = o.file;
  sharegpt.num_prompts = o.num_prompts;
  time_load("sharegpt, no tokenizer", sharegpt, nullptr);
  if (tok) time_load("sharegpt, tokenizer " + tok->name(), sharegpt, tok.get());

  sb::DatasetConfig random;
  random.num_prompts = o.num_prompts;
  time_load("random 1024/128, no tokenizer", random, nullptr);
  if (tok) time_load("random 1024/128, tokenizer " + tok->name(), random, tok.get());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "dataset_bench: %s\n", e.what());
  return 1;
}
