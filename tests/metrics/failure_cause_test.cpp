// classify_failure: known causes from the status and the server's message.
#include "metrics/failure_cause.hpp"

#include <gtest/gtest.h>

namespace sb {
namespace {

TEST(FailureCause, KnownMessagesAndStatuses) {
  EXPECT_EQ(classify_failure(500, "HTTP 500 Internal Server Error: CUDA out of memory. Tried to allocate 2.00 GiB"),
            FailureCause::gpu_out_of_memory);
  EXPECT_EQ(classify_failure(500, "error event in the stream: HIP out of memory"), FailureCause::gpu_out_of_memory);
  EXPECT_EQ(classify_failure(400, "HTTP 400 Bad Request: This model's maximum context length is 4096 tokens."),
            FailureCause::context_length_exceeded);
  EXPECT_EQ(classify_failure(400, "HTTP 400 Bad Request: {\"type\":\"exceed_context_size_error\"}"),
            FailureCause::context_length_exceeded);
  EXPECT_EQ(classify_failure(429, "HTTP 429 Too Many Requests"), FailureCause::rate_limited);
  EXPECT_EQ(classify_failure(500, "out of memory"), FailureCause::unknown);  // host memory: no GPU remedy
  EXPECT_EQ(classify_failure(503, "HTTP 503 Service Unavailable"), FailureCause::unknown);
  EXPECT_EQ(classify_failure(0, "connection closed mid-response after 2 token events"), FailureCause::unknown);
}

}  // namespace
}  // namespace sb
