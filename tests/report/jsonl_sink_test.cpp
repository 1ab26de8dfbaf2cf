// Tests for src/report/jsonl_sink.cpp: exact line text (docs/results-format.md §3 key order) and
// whole, parseable lines when several threads write at once.
#include "report/jsonl_sink.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "report/golden.hpp"

namespace sb::report {
namespace {

RequestRecord ok_record() {
  RequestRecord r;
  r.index = 7;
  r.intended_ns = 500'000'000;
  r.sent_ns = 502'500'000;
  r.first_byte_ns = 600'000'000;
  r.token_ns = {602'500'000, 622'500'000, 652'500'000};  // ttft 100, itl 20 and 30
  r.done_ns = 653'000'000;
  r.prompt_tokens = 12;
  r.dataset_prompt_tokens = 11;
  r.output_tokens = 3;
  r.expected_output_tokens = 3;
  r.token_source = TokenSource::usage_chunk;
  r.finish_reason = FinishReason::length;
  r.saw_text = true;
  return r;
}

TEST(JsonlSink, OkLine) {
  std::string line;
  format_request_line(line, 2, ok_record(), "bench-1a2b-7");
  // e2el 150; tpot (150 - 100) / 2 = 25.
  EXPECT_EQ(line,
            "{\"stage\": 2, \"index\": 7, \"request_id\": \"bench-1a2b-7\", \"outcome\": \"ok\", "
            "\"http_status\": 0, \"error\": \"\", \"intended_ms\": 500.0, \"sent_ms\": 502.5, "
            "\"first_byte_ms\": 600.0, \"done_ms\": 653.0, \"ttft_ms\": 100.0, \"e2el_ms\": 150.0, "
            "\"tpot_ms\": 25.0, \"itl_ms\": [20.0, 30.0], \"prompt_tokens\": 12, \"output_tokens\": 3, "
            "\"expected_output_tokens\": 3, \"token_source\": \"usage_chunk\", \"aborted\": false, \"retries\": 0, "
            "\"finish_reason\": \"length\", \"saw_text\": true}");
}

TEST(JsonlSink, FailedLine) {
  RequestRecord r;
  r.index = 3;
  r.outcome = Outcome::http_error;
  r.http_status = 503;
  r.error = "Service \"Unavailable\"";
  r.sent_ns = 1'000'000;
  r.done_ns = 2'000'000;
  r.aborted = true;
  r.retries = 1;  // sent again once on a fresh connection
  std::string line;
  format_request_line(line, 0, r, "id-3");
  EXPECT_EQ(line,
            "{\"stage\": 0, \"index\": 3, \"request_id\": \"id-3\", \"outcome\": \"http_error\", "
            "\"http_status\": 503, \"error\": \"Service \\\"Unavailable\\\"\", \"intended_ms\": 0.0, "
            "\"sent_ms\": 1.0, \"first_byte_ms\": null, \"done_ms\": 2.0, \"ttft_ms\": null, "
            "\"e2el_ms\": null, \"tpot_ms\": null, \"itl_ms\": [], \"prompt_tokens\": -1, "
            "\"output_tokens\": 0, \"expected_output_tokens\": 0, \"token_source\": \"none\", "
            "\"aborted\": true, \"retries\": 1, \"finish_reason\": \"none\", \"saw_text\": false}");
}

// A sharded run's line ends with the shard; large and negative numbers are written in full, and a
// long stream's inter-token list (past the formatter's 512-byte buffer) stays whole and in order.
TEST(JsonlSink, ShardKeyBigNumbersAndALongItlList) {
  RequestRecord r = ok_record();
  r.index = 4'000'000'000u;
  r.prompt_tokens = -1;
  r.expected_output_tokens = 2'000'000'000;
  r.token_ns.clear();
  std::string itls;
  for (int i = 0; i < 200; ++i) {
    r.token_ns.push_back(1'000'000'000 + static_cast<Nanos>(i) * 1'234'567);
    if (i > 0) itls += i > 1 ? ", 1.234567" : "1.234567";
  }
  std::string line;
  format_request_line(line, 12'345'678'901ull, r, "s", 3);
  EXPECT_EQ(line.rfind("{\"stage\": 12345678901, \"index\": 4000000000, ", 0), 0u) << line;
  EXPECT_NE(line.find("\"itl_ms\": [" + itls + "], \"prompt_tokens\": -1, "), std::string::npos) << line;
  EXPECT_NE(line.find("\"expected_output_tokens\": 2000000000, "), std::string::npos) << line;
  EXPECT_TRUE(line.ends_with("\"saw_text\": true, \"shard\": 3}")) << line;
}

TEST(JsonlSink, ServerTimingsAndCachedTokensWhenTheServerSentThem) {
  RequestRecord r = ok_record();
  r.server.prefill_ms = 41.232f;  // a float: written rounded to the µs, not as 41.231998443603516
  r.server.decode_ms = 12.5f;
  r.server.prefill_tokens = 6;
  r.server.decode_tokens = 3;
  r.cached_prompt_tokens = 3;
  std::string line;
  format_request_line(line, 2, r, "bench-1a2b-7");
  EXPECT_NE(line.find("\"saw_text\": true, \"server_prefill_ms\": 41.232, \"server_decode_ms\": 12.5, "
                      "\"server_prefill_tokens\": 6, \"server_decode_tokens\": 3, \"cached_prompt_tokens\": 3}"),
            std::string::npos)
      << line;
  // Only what was reported: vLLM's usage gives the cached count alone.
  RequestRecord v = ok_record();
  v.cached_prompt_tokens = 768;
  line.clear();
  format_request_line(line, 2, v, "x");
  EXPECT_NE(line.find("\"saw_text\": true, \"cached_prompt_tokens\": 768}"), std::string::npos) << line;
}

TEST(JsonlSink, ConcurrentWritersProduceWholeLines) {
  const auto path = (std::filesystem::temp_directory_path() / "sb_jsonl_sink_test.jsonl").string();
  constexpr int kThreads = 4, kPerThread = 250;
  {
    JsonlSink sink(path);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&sink, t] {
        RequestRecord r = ok_record();
        for (int i = 0; i < kPerThread; ++i) {
          r.index = static_cast<std::uint32_t>(t * kPerThread + i);
          sink.write(1, r, "req-" + std::to_string(r.index));
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(sink.lines_written(), kThreads * kPerThread);
    EXPECT_FALSE(sink.write_failed());
  }
  std::istringstream in(testdata::read_file(path));
  std::set<int> seen;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);  // throws on a torn line
    seen.insert(j["index"].get<int>());
    EXPECT_EQ(j["request_id"], "req-" + std::to_string(j["index"].get<int>()));
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kThreads * kPerThread));
  std::filesystem::remove(path);
}

TEST(JsonlSink, LinesAreOnDiskBeforeTheSinkCloses) {
  const auto path = (std::filesystem::temp_directory_path() / "sb_jsonl_flush_test.jsonl").string();
  JsonlSink sink(path);
  sink.write(0, ok_record(), "a");
  // Flushed per record: another reader sees the line while the sink is still open.
  EXPECT_EQ(testdata::read_file(path).back(), '\n');
  std::filesystem::remove(path);
}

TEST(JsonlSink, BatchedLinesWaitForFlushAndCloseWritesTheRest) {
  const auto path = (std::filesystem::temp_directory_path() / ("sb_jsonl_batch_" + std::to_string(::getpid()))).string();
  std::string one;
  format_request_line(one, 0, ok_record(), "a");
  one += '\n';
  {
    JsonlSink sink(path);
    sink.set_batched(true);
    sink.write(0, ok_record(), "a");
    sink.write(0, ok_record(), "a");
    EXPECT_EQ(testdata::read_file(path), "");  // in memory until the pass ends
    EXPECT_EQ(sink.lines_written(), 0);
    sink.flush();
    EXPECT_EQ(testdata::read_file(path), one + one);
    EXPECT_EQ(sink.lines_written(), 2);
    sink.flush();  // nothing waits: nothing written twice
    sink.write(0, ok_record(), "a");
    EXPECT_EQ(testdata::read_file(path), one + one);
  }  // closing writes the last line
  EXPECT_EQ(testdata::read_file(path), one + one + one);
  std::filesystem::remove(path);
}

TEST(JsonlSink, UnwritablePathIsAUserError) {
  EXPECT_THROW(JsonlSink("/nonexistent-dir/x.jsonl"), UserError);
}

}  // namespace
}  // namespace sb::report

namespace sb::report {
namespace {

TEST(JsonlSinkLoss, DevFullCountsEveryLineLostAndSaysWhy) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  JsonlSink sink("/dev/full");
  for (int i = 0; i < 3; ++i) sink.write(0, ok_record(), "a");
  sink.close();
  EXPECT_TRUE(sink.write_failed());
  EXPECT_EQ(sink.error(), ENOSPC);
  EXPECT_EQ(sink.lines_written(), 0);
  EXPECT_EQ(sink.lines_lost(), 3);
  EXPECT_EQ(describe_loss(sink), std::string("cannot write per-request file /dev/full: ") + std::strerror(ENOSPC) +
                                     ": 3 request lines lost (0 written)");
}

// Runs `body` in a child whose files can grow to two lines of `one` and part of a third
// (RLIMIT_FSIZE; SIGXFSZ ignored, so the write fails with EFBIG): true when the child's checks held.
template <class Body>
bool in_child_with_room_for_two_lines(const std::string& one, Body body) {
  const rlim_t limit = static_cast<rlim_t>(one.size() + 1) * 2 + 10;
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit lim{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    ::_exit(body() ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A file that can grow to `limit` bytes only (RLIMIT_FSIZE, in a child): the first line that does
// not fit fails, the file is cut back to the whole lines before it, and nothing is written after.
TEST(JsonlSinkLoss, FailedWriteLeavesOnlyWholeLines) {
  const auto path = (std::filesystem::temp_directory_path() / ("sb_jsonl_cut_" + std::to_string(::getpid()))).string();
  std::string one;
  format_request_line(one, 0, ok_record(), "a");
  EXPECT_TRUE(in_child_with_room_for_two_lines(one, [&] {
    JsonlSink sink(path);
    for (int i = 0; i < 5; ++i) sink.write(0, ok_record(), "a");
    sink.close();
    return sink.lines_written() == 2 && sink.lines_lost() == 3 && sink.error() == EFBIG;
  }));
  const std::string text = testdata::read_file(path);
  EXPECT_EQ(text, one + "\n" + one + "\n");
  std::filesystem::remove(path);
}

// Batched, the same limit meets one write of five lines: the two whole lines that went out are
// kept and counted, the torn third is cut off, and the rest are counted lost.
TEST(JsonlSinkLoss, FailedBatchKeepsTheWholeLinesThatWentOut) {
  const auto path = (std::filesystem::temp_directory_path() / ("sb_jsonl_bcut_" + std::to_string(::getpid()))).string();
  std::string one;
  format_request_line(one, 0, ok_record(), "a");
  EXPECT_TRUE(in_child_with_room_for_two_lines(one, [&] {
    JsonlSink sink(path);
    sink.set_batched(true);
    for (int i = 0; i < 5; ++i) sink.write(0, ok_record(), "a");
    sink.flush();
    sink.write(0, ok_record(), "a");  // after the failure: lost, never written
    sink.close();
    return sink.lines_written() == 2 && sink.lines_lost() == 4 && sink.error() == EFBIG;
  }));
  EXPECT_EQ(testdata::read_file(path), one + "\n" + one + "\n");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sb::report
