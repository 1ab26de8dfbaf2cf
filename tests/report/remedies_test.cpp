// The failure words of pipeline/remedies.cpp: the stop line and the remedies.
#include "report/remedies.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace sb::report {
namespace {

RequestRecord remedies_failed(int status, std::string error) {
  RequestRecord r;
  r.outcome = Outcome::http_error;
  r.http_status = status;
  r.error = std::move(error);
  return r;
}

TEST(Remedies, StopLineNamesTheStageByItsLoad) {
  StageSummary s;
  s.sent = 200;
  s.failed = 200;
  s.errors["connect_error"].count = 150;
  s.errors["dropped"].count = 50;
  EXPECT_EQ(format_failure_stop(LoadMode::concurrency, 4, s),
            "stage c=4: 200 of 200 requests failed (connect_error 150, dropped 50): stopping");
  EXPECT_EQ(format_failure_stop(LoadMode::request_rate, 2.5, s).rfind("stage rate=2.5 req/s: 200 of 200", 0), 0u);
}

TEST(Remedies, OneLinePerKnownCauseMostFrequentFirst) {
  std::vector<RequestRecord> records{remedies_failed(429, "HTTP 429 Too Many Requests"),
                                     remedies_failed(400, "HTTP 400: maximum context length is 16 tokens"),
                                     remedies_failed(400, "HTTP 400: maximum context length is 16 tokens"),
                                     remedies_failed(503, "HTTP 503 Service Unavailable"), RequestRecord{}};
  records.push_back(remedies_failed(429, "not sent"));
  records.back().was_sent = false;  // never sent: no cause
  const std::string text = format_remedies(records);
  EXPECT_EQ(text.rfind("Remedy (2 requests, context length exceeded): prompt + max_tokens exceed", 0), 0u) << text;
  EXPECT_NE(text.find("larger --max-model-len\nRemedy (1 request, HTTP 429): a rate limit (of a gateway"),
            std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_EQ(format_remedies({remedies_failed(503, "HTTP 503")}), "");
  EXPECT_NE(remedy(FailureCause::gpu_out_of_memory).find("--max-num-seqs, --gpu-memory-utilization or "
                                                         "--max-num-batched-tokens"),
            std::string::npos);
}

}  // namespace
}  // namespace sb::report
