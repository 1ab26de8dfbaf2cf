// done.json / failure.json: what is written is read back; anything else means "run it again".
#include "orchestrate/done_record.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace sb::orchestrate {
namespace {

TEST(DoneRecord, RoundTrip) {
  ConfigRecord r;
  r.name = "max_num_seqs=8,max_num_batched_tokens=512";
  r.params = {{"max_num_seqs", "8"}, {"max_num_batched_tokens", "512"}};
  r.outcome = ConfigOutcome::exited_at_start;
  r.cause = LogCause::hip_oom;
  r.failure = "exited at start (HIP out of memory): torch.OutOfMemoryError: HIP out of memory.";
  r.command = "vllm serve m --port 9000";
  r.port = 9000;
  r.sweep_json = "sweep.json";
  r.kernel_traces = {"trace.csv", "host/1_kernel_trace.csv"};
  r.traces = TraceOutcome::header_only;
  r.run_exit_code = 4;
  r.ready_s = 1.5;
  r.total_s = 12.25;
  const std::optional<ConfigRecord> back = parse_record(record_json(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->name, r.name);
  EXPECT_EQ(back->params, r.params);  // in grid order, not sorted
  EXPECT_EQ(back->outcome, r.outcome);
  EXPECT_EQ(back->cause, r.cause);
  EXPECT_EQ(back->failure, r.failure);
  EXPECT_EQ(back->command, r.command);
  EXPECT_EQ(back->port, 9000);
  EXPECT_EQ(back->kernel_traces, r.kernel_traces);
  EXPECT_EQ(back->traces, r.traces);
  EXPECT_EQ(back->run_exit_code, 4);
  EXPECT_DOUBLE_EQ(back->total_s, 12.25);
  const auto j = nlohmann::json::parse(record_json(r));
  EXPECT_EQ(j["outcome"], "exited_at_start");
  EXPECT_EQ(j["cause"], "hip_oom");
  EXPECT_EQ(j["traces"], "header_only");
}

TEST(DoneRecord, ForeignOrBrokenTextIsNoRecord) {
  EXPECT_FALSE(parse_record(""));
  EXPECT_FALSE(parse_record("{\"name\": \"x\"}"));  // no kind: not ours
  EXPECT_FALSE(parse_record("{\"kind\": \"servebench.tune_config\", \"name\": 3}"));
  EXPECT_FALSE(parse_record("{\"kind\": \"servebench.tune_config\", \"name\": \"x\", \"params\": {\"a\": 1}}"));
}

}  // namespace
}  // namespace sb::orchestrate
