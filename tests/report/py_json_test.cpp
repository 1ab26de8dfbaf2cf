// Tests for src/report/py_json.cpp against text written by Python's json.dump itself
// (tests/data/report/make_py_json_golden.py builds the same document).
#include "report/py_json.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "report/golden.hpp"

namespace sb::report {
namespace {

using nlohmann::ordered_json;

ordered_json golden_document() {
  ordered_json doc;
  doc["date"] = "20261130-031500";
  doc["label"] = nullptr;
  doc["flag"] = true;
  doc["off"] = false;
  doc["int"] = 42;
  doc["neg"] = -7;
  doc["big"] = std::numeric_limits<std::uint64_t>::max();
  doc["floats"] = {10.0, 0.1, 1e-05, 0.0001, 1e+16, 1e15, 123456.789, -0.0, 0.0, 2.5e-07,
                   1.7976931348623157e308, 5e-324, 0.3333333333333333, 1234567890123456.8, 100.0};
  const double inf = std::numeric_limits<double>::infinity();
  doc["special"] = {std::numeric_limits<double>::quiet_NaN(), inf, -inf};
  doc["text"] = std::string("quote\" back\\ nl\n tab\t cr\r bs\b ff\f nul") + '\0' + " del\x7f";
  doc["unicode"] = "caf\xc3\xa9 \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80";
  doc["empty_obj"] = ordered_json::object();
  doc["empty_arr"] = ordered_json::array();
  doc["nested"]["p99.9_ttft_ms"] = 1.5;
  doc["nested"]["itls"] = {{0.01, 0.02}, ordered_json::array()};
  return doc;
}

TEST(PyJson, MatchesPythonJsonDump) {
  EXPECT_EQ(py_json_dump(golden_document()), testdata::read_file(testdata::golden_path("py_json.golden")));
}

TEST(PyJson, MatchesPythonJsonDumpIndent) {
  EXPECT_EQ(py_json_dump(golden_document(), {.indent = 2}),
            testdata::read_file(testdata::golden_path("py_json_indent.golden")));
}

TEST(PyJson, FloatRepr) {
  EXPECT_EQ(py_float_repr(10.0), "10.0");
  EXPECT_EQ(py_float_repr(1e-05), "1e-05");
  EXPECT_EQ(py_float_repr(1.5e-05), "1.5e-05");
  EXPECT_EQ(py_float_repr(0.0001), "0.0001");
  EXPECT_EQ(py_float_repr(1e16), "1e+16");
  EXPECT_EQ(py_float_repr(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(py_float_repr(1.2345e100), "1.2345e+100");
  EXPECT_EQ(py_float_repr(-2.5), "-2.5");
  EXPECT_EQ(py_float_repr(133.33333333333334), "133.33333333333334");
}

std::string ms_repr(std::int64_t ns) {
  char buf[32];
  return {buf, py_ms_repr(buf, ns)};
}

// Python 3's repr(ns / 1e6) for these, typed in from the interpreter.
TEST(PyJson, MsReprKnownAnswers) {
  EXPECT_EQ(ms_repr(0), "0.0");
  EXPECT_EQ(ms_repr(1), "1e-06");
  EXPECT_EQ(ms_repr(99), "9.9e-05");
  EXPECT_EQ(ms_repr(100), "0.0001");
  EXPECT_EQ(ms_repr(101), "0.000101");
  EXPECT_EQ(ms_repr(999), "0.000999");
  EXPECT_EQ(ms_repr(123456), "0.123456");
  EXPECT_EQ(ms_repr(1'000'000), "1.0");
  EXPECT_EQ(ms_repr(1'234'567), "1.234567");
  EXPECT_EQ(ms_repr(12'000'000'000), "12000.0");
  EXPECT_EQ(ms_repr(999'999'999'999'999), "999999999.999999");
  EXPECT_EQ(ms_repr(1'000'000'000'000'001), "1000000000.000001");
  EXPECT_EQ(ms_repr(-1'500'000), "-1.5");
  EXPECT_EQ(ms_repr(9'007'199'254'740'993), "9007199254.740992");  // not exact in a double
}

// The integer path writes what the double path writes, around every boundary it has and on
// random values of every magnitude.
TEST(PyJson, MsReprEqualsFloatRepr) {
  std::vector<std::int64_t> cases;
  for (std::int64_t ns = -2000; ns <= 200'000; ++ns) cases.push_back(ns);
  std::int64_t p = 1;
  for (int k = 1; k <= 18; ++k) {
    p *= 10;
    for (std::int64_t d = -3; d <= 3; ++d) cases.insert(cases.end(), {p + d, -(p + d), p * 7 + d});
  }
  std::mt19937_64 rng(20261202);
  for (int i = 0; i < 200'000; ++i) {
    const int bits = 1 + static_cast<int>(rng() % 62);
    cases.push_back(static_cast<std::int64_t>(rng() >> (64 - bits)));
  }
  cases.insert(cases.end(), {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()});
  for (const std::int64_t ns : cases) {
    ASSERT_EQ(ms_repr(ns), py_float_repr(static_cast<double>(ns) / 1e6)) << ns;
  }
}

TEST(PyJson, NanAsNullForStrictDocuments) {
  ordered_json doc = {std::numeric_limits<double>::quiet_NaN(), 1.0};
  EXPECT_EQ(py_json_dump(doc, {.nan_as_null = true}), "[null, 1.0]");
}

TEST(PyJson, InvalidUtf8BecomesReplacementCharacter) {
  std::string out;
  py_json_append_string(out, "a\xff" "b\xc3");  // stray byte, then a truncated sequence
  EXPECT_EQ(out, "\"a\\ufffdb\\ufffd\"");
  out.clear();
  py_json_append_string(out, "\xc0\xaf");  // overlong '/'
  EXPECT_EQ(out, "\"\\ufffd\\ufffd\"");
}

TEST(PyJson, PercentileWord) {
  EXPECT_EQ(percentile_word(99), "99");
  EXPECT_EQ(percentile_word(99.9), "99.9");
  EXPECT_EQ(percentile_word(50.0), "50");
  EXPECT_EQ(percentile_word(0.5), "0.5");
}

}  // namespace
}  // namespace sb::report
