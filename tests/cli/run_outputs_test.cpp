#include "cli/run_outputs.hpp"

#include <gtest/gtest.h>

namespace sb::cli {
namespace {

TEST(RunOutputs, JsonlLineKeysOrderAndValues) {
  RequestRecord r;
  r.index = 3;
  r.http_status = 200;
  r.intended_ns = 0;
  r.sent_ns = 1'000'000;
  r.first_byte_ns = 2'500'000;
  r.token_ns = {21'000'000, 26'000'000, 32'000'000};
  r.done_ns = 33'000'000;
  r.prompt_tokens = 7;
  r.output_tokens = 3;
  r.expected_output_tokens = 3;
  r.token_source = TokenSource::usage_chunk;
  // ttft = 21 - 1 = 20 ms; e2el = 32 - 1 = 31 ms; tpot = (31 - 20) / 2 = 5.5 ms; itl = 5, 6 ms.
  EXPECT_EQ(request_jsonl_line(1, "bench-x-3", r),
            R"({"stage": 1, "index": 3, "request_id": "bench-x-3", "outcome": "ok", "http_status": 200, )"
            R"("error": "", "intended_ms": 0.0, "sent_ms": 1.0, "first_byte_ms": 2.5, "done_ms": 33.0, )"
            R"("ttft_ms": 20.0, "e2el_ms": 31.0, "tpot_ms": 5.5, "itl_ms": [5.0, 6.0], "prompt_tokens": 7, )"
            R"("output_tokens": 3, "expected_output_tokens": 3, "token_source": "usage_chunk", "aborted": false})");
}

TEST(RunOutputs, JsonlLineOfAFailedRequest) {
  RequestRecord r;
  r.outcome = Outcome::http_error;
  r.http_status = 503;
  r.error = "Service \"Unavailable\"";
  r.aborted = true;
  const std::string line = request_jsonl_line(0, "id", r);
  EXPECT_NE(line.find(R"("first_byte_ms": null)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("ttft_ms": null, "e2el_ms": null, "tpot_ms": null, "itl_ms": [])"), std::string::npos);
  EXPECT_NE(line.find(R"("error": "Service \"Unavailable\"")"), std::string::npos);
  EXPECT_NE(line.find(R"("aborted": true})"), std::string::npos);
}

}  // namespace
}  // namespace sb::cli
