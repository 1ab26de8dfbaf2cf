// The sweep document's shape is a contract (docs/results-format.md): tools that read it, and
// vLLM's tooling for the per-stage keys, depend on every key, its order and its type. This test
// runs a small staircase against the fixed-cost simulator and compares the document, with measured
// numbers and dates masked, against tests/data/e2e/sweep_shape.golden. A restructure of the code
// that writes it must leave this file unchanged; an intended change of the format updates it
// (SB_UPDATE_GOLDEN=1 ./sb_e2e_tests --gtest_filter='SweepShape*', then review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "e2e/run_process.hpp"
#include "support/test_paths.hpp"

namespace sb::e2e {
namespace {

using OrderedJson = nlohmann::ordered_json;

// Values that differ between two runs of the same plan: wall-clock dates, the machine (its cores
// are the default client threads), the simulator's port, and file names derived from them.
bool varies_by_run(const std::string& path) {
  static const std::regex volatile_path(
      R"(^/created$|/date$|/base_url$|^/environment/(hostname|os|cpu_count|client_threads|clock_anchor/.*|clocks_at_start/.*)$|)"
      R"(/client_use/threads$|/requests_file$|/source$)");
  return std::regex_search(path, volatile_path);
}

// Floats other than the configured ones are measurements; reason sentences carry measured numbers.
std::string shape_value(const std::string& path, const OrderedJson& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (varies_by_run(path)) return "<" + std::string(v.type_name()) + ">";
  if (v.is_number_float()) return path.rfind("/config/", 0) == 0 ? v.dump() : "<float>";
  if (v.is_number()) return v.dump();
  if (v.is_string()) return std::regex_replace(v.get<std::string>(), std::regex("[0-9]+(\\.[0-9]+)?"), "#");
  return "<" + std::string(v.type_name()) + ">";
}

void write_shape(const OrderedJson& v, const std::string& path, std::string& out) {
  if (v.is_object()) {
    out += path + " {}\n";
    for (const auto& [key, child] : v.items()) write_shape(child, path + "/" + key, out);
  } else if (v.is_array()) {
    out += path + " [" + std::to_string(v.size()) + "]\n";
    for (std::size_t i = 0; i < v.size(); ++i) write_shape(v[i], path + "/" + std::to_string(i), out);
  } else {
    out += path + " = " + shape_value(path, v) + "\n";
  }
}

std::string read_golden(const std::string& path, const std::string& actual) {
  if (std::getenv("SB_UPDATE_GOLDEN") != nullptr) std::ofstream(path, std::ios::binary) << actual;
  return slurp(path);
}

TEST(SweepShape, ConcurrencyStaircaseDocumentKeepsItsKeysOrderAndValues) {
  TempDir dir("sweep_shape");
  // No capacity limit and costs far above scheduling noise: every stage scales linearly and TTFT
  // stays flat whatever else the machine is doing, so the analysis part is stable too.
  Sim sim({"--ttft-ms", "20", "--itl-ms", "2"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "12", "--random-input-len", "16",
                                "--random-output-len", "8", "--concurrency", "1", "2", "4", "--output-json",
                                "sweep.json", "--label", "shape"},
                               dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  std::string shape;
  write_shape(OrderedJson::parse(slurp(dir.path / "sweep.json")), "", shape);
  EXPECT_EQ(shape, read_golden(test_files::source_path("tests/data/e2e/sweep_shape.golden"), shape));
}

}  // namespace
}  // namespace sb::e2e
