// Formatting checks: exact table layout on small inputs, the per-stage view of the hand-made alignment,
// and the JSON document's keys and numbers.
#include "report/kernel_report.hpp"

#include <gtest/gtest.h>

#include "trace/fixtures.hpp"
#include "trace/load.hpp"

namespace sb::trace {
namespace {

using trace_fixtures::test_data;

TEST(RenderTable, FirstColumnLeftOthersRightTwoBlanks) {
  EXPECT_EQ(report::render_table({"stage", "busy %"}, {{"c=1", "10.4"}, {"c=128", "9.0"}}),
            "stage  busy %\n"
            "c=1      10.4\n"
            "c=128     9.0\n");
}

report::KernelReport small_report() {
  report::KernelReport r;
  KernelRank a;
  a.name = "vllm::paged_attention_v1_kernel";
  a.category = KernelCategory::attention;
  a.calls = 4;
  a.total_ns = 3'000'000;
  a.avg_ns = 750'000;
  a.median_ns = 700'000;
  a.max_ns = 1'000'000;
  a.percent = 75;
  KernelRank g = a;
  g.name = "nvjet_tst";
  g.category = KernelCategory::gemm;
  g.calls = 1;
  g.total_ns = g.max_ns = 1'000'000;
  g.avg_ns = g.median_ns = 1e6;
  g.percent = 25;
  r.ranks = {a, g};
  r.categories = category_totals(r.ranks);
  r.top = 1;
  return r;
}

TEST(RankingText, TopRowsMoreLineAndCategories) {
  EXPECT_EQ(report::ranking_text(small_report()),
            "kernel                            category  calls  total ms  avg us  p50 us   max us  % GPU\n"
            "vllm::paged_attention_v1_kernel  attention      4     3.000  750.00  700.00  1000.00   75.0\n"
            "(1 more kernels; --top N shows more)\n"
            "\n"
            "category   total ms     %\n"
            "attention     3.000  75.0\n"
            "gemm          1.000  25.0\n");
}

TEST(RankingText, ByCategoryShowsOnlyCategories) {
  auto r = small_report();
  r.by_category = true;
  EXPECT_EQ(report::ranking_text(r),
            "category   total ms     %\nattention     3.000  75.0\ngemm          1.000  25.0\n");
}

Alignment fixture_alignment() {
  const auto t = load_trace(test_data("align/trace_nsys.csv"));
  const auto s = parse_sweep_stages(read_trace_file(test_data("align/sweep.json")), "sweep.json");
  return align_to_stages(t, s.stages, 1'000'000'000'000'000'000, GroupBy::base);
}

TEST(StagesText, BusyTopKernelsTrendAndMix) {
  const std::string text = report::stages_text(fixture_alignment(), 2);
  EXPECT_EQ(text.substr(0, text.find("\n\n") + 2),
            "stage  events  GPU ms  busy %\n"
            "c=1         5  15.000    10.4\n"
            "c=4         4  40.000    32.8\n\n");
  EXPECT_NE(text.find("avg us per call                        c=1       c=4\n"
                      "vllm::paged_attention_v1_kernel    2000.00  15000.00\n"
                      "nvjet_tst_64x8_64x16_4x1_v_bz_TNT  3333.33   5000.00\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  vllm::paged_attention_v1_kernel avg 2.0 ms at c=1 -> 15.0 ms at c=4\n"), std::string::npos);
  EXPECT_NE(text.find("attention            13.3  75.0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("ncclDevKernel"), std::string::npos);  // top 2 only
}

TEST(FindingsText, VerdictRuleEvidence) {
  EXPECT_EQ(report::findings_text({}), "diagnosis: no rule fired\n");
  EXPECT_EQ(report::findings_text({{"gpu_idle", "not GPU", "GPU busy 20.0% at c=8"}}),
            "diagnosis:\n  - not GPU [gpu_idle]\n    evidence: GPU busy 20.0% at c=8\n");
}

TEST(ReportJson, KeysInOrderAndStageNumbers) {
  auto r = small_report();
  r.alignment = fixture_alignment();
  r.findings = {{"gpu_idle", "v", "e"}};
  const auto j = report::report_json(r);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"kernels", "categories", "alignment", "alignment_note", "findings"}));
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["kernels"][0]["name"], "vllm::paged_attention_v1_kernel");
  EXPECT_DOUBLE_EQ(j["kernels"][0]["avg_us"].get<double>(), 750);
  const auto& st = j["alignment"]["stages"];
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[1]["load"], "c=4");
  EXPECT_DOUBLE_EQ(st[1]["busy_percent"].get<double>(), 32.8);
  EXPECT_DOUBLE_EQ(st[1]["category_percent"]["attention"].get<double>(), 75);
  EXPECT_DOUBLE_EQ(st[1]["kernels"][0]["avg_us"].get<double>(), 15000);
  EXPECT_EQ(j["alignment"]["outside_events"], 1);
  EXPECT_EQ(j["findings"][0]["rule"], "gpu_idle");
  EXPECT_TRUE(j["alignment_note"].is_null());
}

}  // namespace
}  // namespace sb::trace
