// write_tune_outputs over the hand-built sweeps and traces of tests/data/tune (answers in its
// README.md): the best configuration, the dominated Pareto points, the kernel deltas per stage, a
// failed configuration listed with its failure, and the three files.
#include "orchestrate/tune_outputs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unistd.h>

#include "support/test_paths.hpp"

namespace sb::orchestrate {
namespace {

namespace fs = std::filesystem;

fs::path tune_data(const std::string& name) { return sb::test_files::source_path("tests/data/tune/" + name); }

std::string read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What a FILE* collected.
std::string drain(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}

struct Written {
  ExitCode code = ExitCode::internal_error;
  std::string out, err;
};

Written write_outputs(const TuneOutputsRequest& req) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  Written w;
  w.code = write_tune_outputs(req, out, err);
  w.out = drain(out);
  w.err = drain(err);
  return w;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("sb_tune_outputs_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

TuneOutputsRequest fixture_request(const fs::path& dir) {
  TuneOutputsRequest req;
  req.output_dir = dir;
  req.slos = {{"ttft_p99_ms", 1000}};
  req.configs = {
      {"baseline", {}, tune_data("baseline.json"), {tune_data("baseline.nsys.csv")}, ""},
      {"max_num_seqs=128", {{"max_num_seqs", "128"}}, tune_data("mns128.json"), {tune_data("mns128.nsys.csv")}, ""},
      {"max_num_seqs=256", {{"max_num_seqs", "256"}}, tune_data("mns256.json"), {}, ""},
      {"max_num_seqs=512", {{"max_num_seqs", "512"}}, {}, {}, "server exited at start: CUDA out of memory"},
  };
  return req;
}

TEST(TuneOutputs, KnownBestParetoAndKernelDeltas) {
  const fs::path dir = fresh_dir("known");
  const Written w = write_outputs(fixture_request(dir));
  ASSERT_EQ(w.code, ExitCode::ok) << w.err;
  EXPECT_EQ(w.err, "");
  if (std::getenv("SB_TUNE_OUTPUTS_SHOW")) std::fputs(w.out.c_str(), stdout);  // to read the console by eye
  EXPECT_NE(w.out.find("best: max_num_seqs=128 at c=16: 700.0 output tok/s meeting ttft_p99_ms<=1000; the highest "
                       "(next: baseline, 500.0 tok/s, 29% lower)"),
            std::string::npos)
      << w.out;
  EXPECT_NE(w.out.find("failed: max_num_seqs=512: server exited at start: CUDA out of memory"), std::string::npos);
  EXPECT_NE(w.out.find("== max_num_seqs=128 vs baseline =="), std::string::npos);

  const auto j = nlohmann::json::parse(read_whole(dir / kTuneSummaryJson));
  EXPECT_EQ(j["kind"], "servebench.tune_summary");
  EXPECT_EQ(j["best"]["config"], "max_num_seqs=128");
  EXPECT_EQ(j["best"]["reason"], "highest_throughput");
  EXPECT_EQ(j["best"]["load"], 16);
  EXPECT_EQ(j["best"]["runner_up"], "baseline");
  ASSERT_EQ(j["configs"].size(), 4u);
  EXPECT_EQ(j["configs"][3]["status"], "failed");
  EXPECT_EQ(j["configs"][3]["failure"], "server exited at start: CUDA out of memory");
  EXPECT_EQ(j["configs"][2]["under_slos"]["stage"]["load"], 4);  // its c=16 misses TTFT p99 <= 1000
  EXPECT_EQ(j["configs"][1]["params"]["max_num_seqs"], "128");

  // Dominated: baseline c=4 and c=16, max_num_seqs=256 c=4 (README.md).
  std::vector<std::string> dominated;
  for (const auto& p : j["pareto"])
    if (p["dominated"].get<bool>()) dominated.push_back(p["config"].get<std::string>() + " " + std::to_string(p["load"].get<int>()));
  EXPECT_EQ(dominated, (std::vector<std::string>{"baseline 4", "baseline 16", "max_num_seqs=256 4"}));
  ASSERT_EQ(j["pareto"].size(), 9u);
  EXPECT_DOUBLE_EQ(j["pareto"][4]["output_tok_s_per_user"].get<double>(), 1000 / 10.5);

  // Kernel rows per stage: the attention kernel 8.7 -> 5.2 ms at c=16, the GEMM unchanged.
  const auto& k = j["configs"][1]["vs_baseline_kernels"];
  EXPECT_TRUE(k["per_stage"].get<bool>());
  ASSERT_EQ(k["stages"].size(), 3u);
  const auto& c16 = k["stages"][2];
  EXPECT_EQ(c16["load"], 16);
  ASSERT_EQ(c16["kernels"].size(), 2u);
  EXPECT_EQ(c16["kernels"][0]["name"], "vllm::paged_attention_v1_kernel");
  EXPECT_NEAR(c16["kernels"][0]["baseline_mean_us"].get<double>(), 8700, 1e-6);
  EXPECT_NEAR(c16["kernels"][0]["tuned_mean_us"].get<double>(), 5200, 1e-6);
  EXPECT_NEAR(c16["kernels"][0]["rel_change"].get<double>(), 5.2 / 8.7 - 1, 1e-9);
  EXPECT_NEAR(c16["kernels"][1]["rel_change"].get<double>(), 0, 1e-12);
  EXPECT_NEAR(k["stages"][0]["kernels"][0]["baseline_mean_us"].get<double>(), 2000, 1e-6);
  EXPECT_EQ(j["configs"][0]["kernels"]["placed"], 1);
  EXPECT_TRUE(j["configs"][2]["vs_baseline_kernels"]["stages"].empty());  // no traces for it

  // The headline (the most loaded stage: neither run has a knee in range) carries the c=16 kernel rows.
  EXPECT_NE(w.out.find("(kernel rows: mean duration at this stage)"), std::string::npos) << w.out;
  EXPECT_NE(w.out.find("8700.00    5200.00    -40%"), std::string::npos) << w.out;

  const std::string csv = read_whole(dir / kTuneSummaryCsv);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 3 + 1);
  EXPECT_EQ(csv.rfind("config,status,failure,max_num_seqs,load_mode,load_value,", 0), 0u) << csv;
  EXPECT_NE(csv.find("max_num_seqs=128,ok,,128,concurrency,16,70,0,7,700,400,20,50,700,false,true,false,true\r\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("max_num_seqs=512,failed,server exited at start: CUDA out of memory,512,"), std::string::npos);

  const std::string html = read_whole(dir / kTuneReportHtml);
  std::size_t hollow = 0;
  for (std::size_t at = 0; (at = html.find("<circle class=\"dominated\"", at)) != std::string::npos; ++at) ++hollow;
  EXPECT_EQ(hollow, 3u);
  EXPECT_NE(html.find("max_num_seqs=128 vs baseline at c=16"), std::string::npos);
  EXPECT_NE(html.find("\"scatter\":"), std::string::npos);
  fs::remove_all(dir);
}

// A sweep that cannot be read is a failed configuration (warned once), not the end of the summary.
TEST(TuneOutputs, UnreadableSweepCountsAsFailedAndBadFolderIsWriteFailed) {
  const fs::path dir = fresh_dir("unreadable");
  TuneOutputsRequest req = fixture_request(dir);
  req.configs[2].sweep_json = dir / "missing.json";
  const Written w = write_outputs(req);
  ASSERT_EQ(w.code, ExitCode::ok) << w.err;
  EXPECT_EQ(std::count(w.err.begin(), w.err.end(), '\n'), 1) << w.err;
  EXPECT_NE(w.err.find("servebench tune: warning: max_num_seqs=256: "), std::string::npos) << w.err;
  EXPECT_NE(w.err.find("missing.json"), std::string::npos) << w.err;
  const auto j = nlohmann::json::parse(read_whole(dir / kTuneSummaryJson));
  EXPECT_EQ(j["configs"][2]["status"], "failed");
  EXPECT_EQ(j["best"]["config"], "max_num_seqs=128");

  req.output_dir = dir / kTuneSummaryJson / "below_a_file";
  const Written bad = write_outputs(req);
  EXPECT_EQ(bad.code, ExitCode::write_failed);
  EXPECT_NE(bad.err.find("servebench tune: cannot write "), std::string::npos) << bad.err;
  EXPECT_EQ(write_outputs({}).code, ExitCode::config_error);
  fs::remove_all(dir);
}

// The baseline failed: nothing to compare with, the rest is still ranked.
TEST(TuneOutputs, FailedBaselineStillRanksTheOthers) {
  const fs::path dir = fresh_dir("no_baseline");
  TuneOutputsRequest req = fixture_request(dir);
  req.configs[0].sweep_json.clear();
  req.configs[0].failure = "readiness timeout after 600 s";
  const Written w = write_outputs(req);
  ASSERT_EQ(w.code, ExitCode::ok) << w.err;
  const auto j = nlohmann::json::parse(read_whole(dir / kTuneSummaryJson));
  EXPECT_TRUE(j["configs"][1]["vs_baseline"].is_null());
  EXPECT_EQ(j["best"]["config"], "max_num_seqs=128");
  EXPECT_EQ(w.out.find("vs baseline =="), std::string::npos) << w.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::orchestrate
