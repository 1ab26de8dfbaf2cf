// `servebench demo --quick`: the embedded engine simulator, a short staircase, the table, the knee
// line, and the sweep JSON + HTML report under ./servebench-results/.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

// The demo's page in headless Chromium (tests/browser/check_report.js), the scaled-time note
// required; skipped without the tools unless SB_REQUIRE_BROWSER=1.
void expect_page_passes_browser_check(const fs::path& html) {
  const fs::path src(SB_SOURCE_DIR);
  if (!fs::exists("/usr/bin/chromium") || !fs::exists(src / "tools/node_modules/playwright-core") ||
      std::system("command -v node >/dev/null 2>&1") != 0) {
    const char* require = std::getenv("SB_REQUIRE_BROWSER");
    if (require && std::string(require) == "1") FAIL() << "chromium, node or playwright-core missing";
    std::fprintf(stderr, "note: browser check not run: chromium, node or playwright-core missing\n");
    return;
  }
  const fs::path png = html.parent_path() / "demo.png";
  const std::string cmd = "node '" + (src / "tests/browser/check_report.js").string() + "' '" + html.string() +
                          "' '" + png.string() + "' --expect-scale-note";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

TEST(DemoE2e, QuickDemoPrintsTableKneeAndWritesFiles) {
  TempDir dir("demo");
  const int code = wait_exit(spawn({"demo", "--quick"}, dir.path, "demo"), 90);
  const std::string out = slurp(dir.path / "demo.out"), err = slurp(dir.path / "demo.err");
  ASSERT_EQ(code, 0) << err;
  // The staircase table (columns sized to their widest cell).
  const std::size_t table = out.find("\nconcurrency  ");
  ASSERT_NE(table, std::string::npos) << out;
  EXPECT_NE(out.find("  out tok/s  total tok/s  TTFT p50 ms  TTFT p99 ms  TPOT p50 ms  ITL p99 ms  failed\n", table),
            std::string::npos) << out;
  EXPECT_NE(out.find("\nknee: "), std::string::npos) << out;
  fs::path json, html;
  for (const auto& e : fs::directory_iterator(dir.path / "servebench-results")) {
    if (e.path().extension() == ".json" && e.path().string().find(".requests.") == std::string::npos) json = e.path();
    if (e.path().extension() == ".html") html = e.path();
  }
  ASSERT_FALSE(json.empty());
  ASSERT_FALSE(html.empty());
  const auto doc = nlohmann::json::parse(slurp(json));
  // The analysis `servebench report` would compute is stored in the sweep, knee included.
  ASSERT_TRUE(doc["analysis"].is_object()) << doc["analysis"].dump();
  EXPECT_TRUE(doc["analysis"].contains("knee"));
  ASSERT_EQ(doc["stages"].size(), 4u);
  std::vector<double> rps;
  for (const auto& s : doc["stages"]) {
    EXPECT_EQ(s["completed"], 64);
    EXPECT_EQ(s["failed"], 0);
    rps.push_back(s["request_throughput"].get<double>());
  }
  EXPECT_EQ(doc["config"]["metadata"]["sim_max_num_seqs"], "16");
  EXPECT_NE(err.find("at most 16 sequences a step"), std::string::npos) << err;
  // The known answer (timings: under ASan the sim's own CPU can blur them,
  // tests/support/timing_bounds.hpp): the engine batches 16 sequences, so throughput grows up to
  // c=16 and is flat after it, and the knee is c=16.
  if (sb::test_timing::kBoundsHeld) {
    EXPECT_GT(rps[1], 2 * rps[0]);
    EXPECT_GT(rps[2], 1.5 * rps[1]);
    EXPECT_NEAR(rps[3] / rps[2], 1.0, 0.10) << rps[2] << " vs " << rps[3];
    EXPECT_EQ(doc["analysis"]["knee"]["max_concurrency"], 16) << doc["analysis"].dump();
    EXPECT_NE(out.find("\nknee: concurrency 16 ("), std::string::npos) << out;
  }
  const std::string page = slurp(html);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u) << page.substr(0, 80);
  EXPECT_NE(page.find("demo"), std::string::npos);
  // The quick demo's simulator runs 4x faster than the H100 it models (the full demo's 10x would
  // blur its knee: src/cli/demo_cmd.cpp): the results record it, the page and the console say it.
  EXPECT_EQ(doc["config"]["metadata"]["sim_time_scale"], "4") << doc["config"].dump();
  EXPECT_EQ(doc["stages"][0]["sim_time_scale"], "4");  // vLLM-style metadata in every stage
  // The simulator advertises its speed-up, so the run reports the modelled H100's times (issue 15, item 4).
  EXPECT_EQ(doc["environment"]["server_time_scale"], 4.0);
  EXPECT_EQ(doc["environment"]["time_factor"], 4.0);
  EXPECT_NE(page.find("demo: simulated GPU, 4x faster than real time: latencies and rates are the modelled GPU"),
            std::string::npos);
  EXPECT_NE(out.find("note: the server is servebench's simulator, 4x faster than the GPU it models: latencies and "
                     "rates are the modelled GPU's"),
            std::string::npos) << out;
  EXPECT_NE(err.find("(4x time scale, at most 16 sequences a step)"), std::string::npos) << err;
  expect_page_passes_browser_check(html);
}

TEST(DemoE2e, UnknownArgumentIsAConfigError) {
  TempDir dir("demo_bad");
  EXPECT_EQ(wait_exit(spawn({"demo", "--fast"}, dir.path, "demo"), 10), 2);
}

}  // namespace
}  // namespace sb::e2e
