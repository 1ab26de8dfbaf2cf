#include "trace/gunzip.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"

namespace sb::trace {
namespace {

// vLLM's default output is the .json.gz twin of the plain fixture (same bytes once decompressed).
TEST(Gunzip, DecompressesTheTorchFixtureOrRefusesWithAHint) {
  SB_REQUIRE_SHARED_FIXTURES();
  const std::string gz = trace_fixtures::fixture_text(std::string(trace_fixtures::kTorchFile) + ".gz");
  if (!gzip_supported()) {
    try {
      gunzip(gz, "t.json.gz");
      FAIL() << "no error";
    } catch (const UserError& e) {
      EXPECT_STREQ(e.what(), "t.json.gz: gzip-compressed trace: run 'gunzip -k' first (this build reads plain JSON)");
    }
    return;
  }
  EXPECT_EQ(gunzip(gz, "t.json.gz"), trace_fixtures::fixture_text(trace_fixtures::kTorchFile));
  for (const std::size_t cut : {std::size_t{0}, std::size_t{10}, gz.size() / 2, gz.size() - 1}) {
    EXPECT_THROW(gunzip(gz.substr(0, cut), "t.json.gz"), UserError) << cut;
  }
}

TEST(Gunzip, LoadingAGzipTraceGivesThePlainTracesEvents) {
  SB_REQUIRE_SHARED_FIXTURES();
  const std::string gz_path = trace_fixtures::fixture(std::string(trace_fixtures::kTorchFile) + ".gz");
  if (!gzip_supported()) {
    EXPECT_THROW(load_trace_file(gz_path), UserError);
    return;
  }
  const KernelTrace from_gz = load_trace_file(gz_path);
  const KernelTrace plain = load_trace_file(trace_fixtures::fixture(trace_fixtures::kTorchFile));
  ASSERT_EQ(from_gz.events.size(), plain.events.size());
  for (std::size_t i = 0; i < plain.events.size(); ++i) EXPECT_EQ(from_gz.events[i].start_ns, plain.events[i].start_ns);
}

// The project's torch sample has a twin made with `gzip -k -n` (tests/data/trace/authored/generate.py).
TEST(Gunzip, DecompressesTheOwnTorchSampleOrRefusesWithAHint) {
  const std::string gz = trace_fixtures::authored_text(std::string(trace_fixtures::kOwnTorchFile) + ".gz");
  if (!gzip_supported()) {
    try {
      gunzip(gz, "t.json.gz");
      FAIL() << "no error";
    } catch (const UserError& e) {
      EXPECT_STREQ(e.what(), "t.json.gz: gzip-compressed trace: run 'gunzip -k' first (this build reads plain JSON)");
    }
    return;
  }
  const std::string plain = trace_fixtures::authored_text(trace_fixtures::kOwnTorchFile);
  ASSERT_LT(gz.size(), plain.size());
  EXPECT_EQ(gunzip(gz, "t.json.gz"), plain);
  for (const std::size_t cut : {std::size_t{0}, std::size_t{10}, gz.size() / 2, gz.size() - 1}) {
    EXPECT_THROW(gunzip(gz.substr(0, cut), "t.json.gz"), UserError) << cut;
  }
}

TEST(Gunzip, LoadingTheOwnGzipSampleGivesThePlainTracesEvents) {
  const std::string gz_path = trace_fixtures::authored(std::string(trace_fixtures::kOwnTorchFile) + ".gz");
  if (!gzip_supported()) {
    EXPECT_THROW(load_trace_file(gz_path), UserError);
    return;
  }
  const KernelTrace from_gz = load_trace_file(gz_path);
  const KernelTrace plain = load_trace_file(trace_fixtures::authored(trace_fixtures::kOwnTorchFile));
  ASSERT_EQ(plain.events.size(), 18u);
  ASSERT_EQ(from_gz.events.size(), plain.events.size());
  for (std::size_t i = 0; i < plain.events.size(); ++i) {
    EXPECT_EQ(from_gz.events[i].start_ns, plain.events[i].start_ns);
    EXPECT_EQ(from_gz.events[i].name, plain.events[i].name);
  }
  EXPECT_EQ(from_gz.source_format, "torch");
}

}  // namespace
}  // namespace sb::trace
