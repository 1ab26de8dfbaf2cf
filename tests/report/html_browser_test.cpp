// The HTML report in headless Chromium: tests/browser/check_report.js loads it and checks console
// errors, points in every chart, a non-blank screenshot, the "inf" axis label of a rate-inf stage,
// the region-shading selector, and the reading rules: legend values on load, axis labels clear of
// the tick numbers, y-axes from 0, the note under a flat chart, one knee sentence per run above the
// charts, and the scaled-time note.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "report/html_report.hpp"
#include "report/html_view.hpp"

namespace sb::report {
namespace {

namespace fs = std::filesystem;

// Two runs with different knees (so shading either looks different); the tuned one also has a rate-inf
// stage, drawn at the stand-in x 128, and is in scaled time. ITL p99 moves by 1.5 % over the sweep:
// drawn from zero it is flat, and the page must say so. Token rates reach 27k (wide tick labels).
Document two_runs() {
  Document d;
  d.title = "browser check";
  d.charts = chart_specs();
  d.log_x = true;
  d.unlimited_x = 128;
  d.table_header = {"load", "req/s"};
  const double scale[] = {1.0, 1.3};
  for (int r = 0; r < 2; ++r) {
    RunView v;
    v.label = r == 0 ? "baseline" : "tuned";
    v.x = {1, 2, 4, 8, 16, 32, 64};
    const double rps[] = {2, 4, 8, 16, 32, 34, 33};
    const double ttft[] = {50, 50, 52, 55, 60, 200, 800};
    for (std::size_t i = 0; i < v.x.size(); ++i) {
      v.metrics["request_throughput"].push_back(rps[i] * scale[r]);
      v.metrics["output_throughput"].push_back(rps[i] * 128 * scale[r]);
      v.metrics["total_token_throughput"].push_back(rps[i] * 640 * scale[r]);
      v.metrics["ttft_p50"].push_back(ttft[i] / 2 / scale[r]);
      v.metrics["ttft_p99"].push_back(ttft[i] / scale[r]);
      v.metrics["tpot_p50"].push_back(20 + i);
      v.metrics["itl_p99"].push_back(40 + 0.1 * i);
      v.table_rows.push_back({std::to_string(static_cast<int>(v.x[i])), std::to_string(rps[i])});
      v.region_reasons.push_back("r");
    }
    v.knee = 4;
    v.regions = {"linear", "linear", "linear", "linear", "linear", "plateau", "decline"};
    v.knee_text = "knee at concurrency 16";
    if (r == 1) {
      v.x.push_back(128);
      for (auto& [key, values] : v.metrics) values.push_back(values.back());
      v.knee = 3;
      v.regions = {"linear", "linear", "linear", "linear", "plateau", "plateau", "plateau", "decline"};
      v.knee_text = "knee at concurrency 8";
      v.scale_note = "tuned: simulated GPU, 10x faster than the modelled H100: latencies here are 10x shorter";
    }
    d.runs.push_back(v);
  }
  return d;
}

bool on_path(const char* tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

// What the browser check needs that is missing, or "" when all is there.
std::string missing_tool(const fs::path& src) {
  if (!fs::exists("/usr/bin/chromium")) return "/usr/bin/chromium not installed";
  if (!on_path("node")) return "node not on PATH";
  if (!fs::exists(src / "tools/node_modules/playwright-core"))
    return "tools/node_modules/playwright-core missing (npm ci in tools/)";
  return "";
}

// Skipped on a developer machine without the tools; CI sets SB_REQUIRE_BROWSER=1 so that a missing
// tool fails the test instead of silently skipping it.
TEST(HtmlBrowser, LoadsDrawsMarksKneeAndScreenshots) {
  const fs::path src(SB_SOURCE_DIR);
  if (const std::string why = missing_tool(src); !why.empty()) {
    const char* require = std::getenv("SB_REQUIRE_BROWSER");
    if (require && std::string(require) == "1") FAIL() << why << " (SB_REQUIRE_BROWSER=1)";
    GTEST_SKIP() << why;
  }
  const fs::path dir = fs::temp_directory_path() / ("sb-html-browser-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path html = dir / "report.html", png = dir / "report.png";
  std::ofstream(html) << render(two_runs());
  const std::string cmd = "node '" + (src / "tests/browser/check_report.js").string() + "' '" + html.string() +
                          "' '" + png.string() + "' --expect-scale-note";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  if (rc == 0) {
    EXPECT_GT(fs::file_size(png), 20000u);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::report
