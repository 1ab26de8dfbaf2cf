// Tests for src/report/csv_table.cpp. Golden: tests/data/report/csv_table.golden.csv
// (regenerate: SB_UPDATE_GOLDEN=1 ./sb_report_tests, review the diff). The row texts below are
// worked out by hand from testdata::sample_stage() (sample_metric(b): mean 1.25b, median b,
// p50 b, p90 2b, p95 2.5b, p99 4b).
#include "report/csv_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <unistd.h>
#include <limits>

#include "core/error.hpp"
#include "report/golden.hpp"
#include "report/sample_stage.hpp"

namespace sb::report {
namespace {

constexpr const char* kHeader =
    "stage_index,load_mode,load_value,request_rate,max_concurrency,completed,failed,duration_s,"
    "request_throughput,output_throughput,total_token_throughput,"
    "mean_ttft_ms,median_ttft_ms,p50_ttft_ms,p90_ttft_ms,p95_ttft_ms,p99_ttft_ms,"
    "mean_tpot_ms,median_tpot_ms,p50_tpot_ms,p90_tpot_ms,p95_tpot_ms,p99_tpot_ms,"
    "mean_itl_ms,median_itl_ms,p50_itl_ms,p90_itl_ms,p95_itl_ms,p99_itl_ms,"
    "mean_e2el_ms,median_e2el_ms,p50_e2el_ms,p90_e2el_ms,p95_e2el_ms,p99_e2el_ms,"
    "schedule_lag_p99_ms,in_flight_mean\r\n";

std::vector<std::string> records(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = text.find("\r\n", pos);
    if (end == std::string::npos) {
      ADD_FAILURE() << "record without CRLF at offset " << pos;
      break;
    }
    out.push_back(text.substr(pos, end - pos));
    pos = end + 2;
  }
  return out;
}

std::vector<StageSummary> csv_concurrency_stages() {
  StageSummary a = testdata::sample_stage();
  a.stage_index = 0;
  a.load.max_concurrency = 4;
  a.failed = 0;
  a.request_throughput = 2.5;
  StageSummary b = testdata::sample_stage();  // stage 1: 16 in flight, 2 failed
  return {a, b};
}

TEST(CsvTable, ConcurrencyGolden) {
  const std::string text = format_csv_table(LoadMode::concurrency, csv_concurrency_stages());
  EXPECT_EQ(text, testdata::golden("csv_table.golden.csv", text));
}

TEST(CsvTable, HeaderAndHandComputedRow) {
  const std::string text = format_csv_table(LoadMode::concurrency, csv_concurrency_stages());
  EXPECT_EQ(text.rfind(kHeader, 0), 0u);
  const std::vector<std::string> recs = records(text);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[2],
            "1,concurrency,16,inf,16,98,2,12.5,7.84,1003.52,5017.6,"
            "100,80,80,160,200,320,"
            "15,12,12,24,30,48,"
            "14.375,11.5,11.5,23,28.75,46,"
            "2000,1600,1600,3200,4000,6400,"
            ",15.5");
  EXPECT_EQ(recs[1].substr(0, 30), "0,concurrency,4,inf,4,98,0,12.");
}

TEST(CsvTable, RateModeShowsRateAndScheduleLag) {
  StageSummary open = testdata::sample_stage();
  open.stage_index = 0;
  open.load.max_concurrency.reset();
  open.load.request_rate = 0.5;
  open.schedule_lag = ScheduleLag{1.5, 7.25, 30};
  StageSummary closed = testdata::sample_stage();
  closed.load.max_concurrency.reset();  // rate inf, no limit
  const std::vector<std::string> recs = records(format_csv_table(LoadMode::request_rate, {open, closed}));
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[1].rfind("0,request_rate,0.5,0.5,,98,2,12.5,", 0), 0u) << recs[1];
  EXPECT_EQ(recs[1].substr(recs[1].size() - 10), ",7.25,15.5") << recs[1];
  EXPECT_EQ(recs[2].rfind("1,request_rate,inf,inf,,98,2,", 0), 0u) << recs[2];
  EXPECT_EQ(recs[2].substr(recs[2].size() - 6), ",,15.5") << recs[2];
}

TEST(CsvTable, EveryRecordHasTheHeadersFieldCount) {
  const std::vector<std::string> recs = records(format_csv_table(LoadMode::concurrency, csv_concurrency_stages()));
  for (const std::string& r : recs) {
    EXPECT_EQ(std::count(r.begin(), r.end(), ','), 36) << r;  // 37 columns, none quoted
  }
}

TEST(CsvTable, NoStagesGivesTheHeaderOnly) {
  EXPECT_EQ(format_csv_table(LoadMode::request_rate, {}), kHeader);
}

TEST(CsvField, QuotesOnlyWhenNeeded) {
  auto field = [](std::string_view f) {
    std::string out;
    append_csv_field(out, f);
    return out;
  };
  EXPECT_EQ(field("plain text"), "plain text");
  EXPECT_EQ(field(""), "");
  EXPECT_EQ(field("a,b"), "\"a,b\"");
  EXPECT_EQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(field("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(field("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 passes through
}

TEST(CsvTable, NumbersRoundTrip) {
  StageSummary s = testdata::sample_stage();
  s.request_throughput = 0.1 + 0.2;  // 0.30000000000000004: shortest exact text, not rounded
  s.in_flight_mean = std::numeric_limits<double>::infinity();
  const std::vector<std::string> recs = records(format_csv_table(LoadMode::concurrency, {s}));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_NE(recs[1].find(",0.30000000000000004,"), std::string::npos) << recs[1];
  EXPECT_EQ(recs[1].substr(recs[1].size() - 4), ",inf");
}

TEST(CsvFile, WritesAndReplacesWholeFiles) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("sb_csv_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "stages.csv").string();
  write_csv_file(path, "a,b\r\n1,2\r\n");
  write_csv_file(path, "a\r\n");  // rewritten after the next stage: replaced, not appended
  EXPECT_EQ(testdata::read_file(path), "a\r\n");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  fs::remove_all(dir);
}

TEST(CsvFile, UnwritablePathIsAUserErrorNamingTheFlag) {
  try {
    write_csv_file("/nonexistent-dir/x.csv", "a\r\n");
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "--csv: cannot write /nonexistent-dir/x.csv: No such file or directory");
  }
}

}  // namespace
}  // namespace sb::report
