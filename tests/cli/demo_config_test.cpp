// `servebench demo` fills its RunConfig directly; it must be the run the equivalent flags give.
#include "cli/demo_config.hpp"

#include <gtest/gtest.h>

#include "cli/run_options.hpp"
#include "pipeline/run_config_json.hpp"

namespace sb::cli {
namespace {

RunConfig demo_from_flags(std::uint16_t port, bool quick, const std::string& output_json) {
  ParseInput in;
  in.args = {"--port", std::to_string(port), "--num-prompts", quick ? "64" : "512", "--random-input-len",
             quick ? "128" : "256", "--random-output-len", quick ? "16" : "64", "--output-json", output_json,
             "--label", "demo", "--metadata", quick ? "sim_time_scale=4" : "sim_time_scale=10", "--metadata", "sim_gpu=h100", "--concurrency"};
  if (quick) in.args.insert(in.args.end() - 1, {"--metadata", "sim_max_num_seqs=16"});
  for (const char* c : quick ? std::vector<const char*>{"1", "4", "16", "64"}
                             : std::vector<const char*>{"1", "2", "4", "8", "16", "32", "64", "128", "256"})
    in.args.push_back(c);
  in.env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  in.cwd = "/nonexistent";
  return *parse_run_options(in);
}

void expect_same_run(const RunConfig& direct, const RunConfig& flags) {
  EXPECT_EQ(pipeline::redacted_config_json(direct, "m"), pipeline::redacted_config_json(flags, "m"));
  EXPECT_EQ(direct.client.endpoint.url(""), flags.client.endpoint.url(""));
  EXPECT_EQ(direct.base_url, flags.base_url);
  EXPECT_EQ(direct.client.path, flags.client.path);
  EXPECT_EQ(direct.client.api, flags.client.api);
  EXPECT_EQ(direct.request.ignore_eos, flags.request.ignore_eos);
  EXPECT_EQ(direct.label, flags.label);
  EXPECT_EQ(direct.output_json, flags.output_json);
  EXPECT_EQ(direct.requests_jsonl, flags.requests_jsonl);
  EXPECT_EQ(direct.csv, flags.csv);
  EXPECT_EQ(direct.save_result, flags.save_result);
  EXPECT_EQ(direct.client.threads, flags.client.threads);
  EXPECT_EQ(direct.api_key, flags.api_key);
  EXPECT_EQ(direct.dataset.request_id_prefix.substr(0, 6), "bench-");
  EXPECT_EQ(direct.dataset.request_id_prefix.size(), flags.dataset.request_id_prefix.size());
}

TEST(DemoConfig, QuickIsWhatItsFlagsGive) {
  const RunConfig c = demo_run_config(4321, true, "servebench-results/demo-1.json");
  expect_same_run(c, demo_from_flags(4321, true, "servebench-results/demo-1.json"));
  EXPECT_EQ(c.load.concurrency, (std::vector<int>{1, 4, 16, 64}));
  EXPECT_EQ(c.dataset.num_prompts, 64);
  using Entry = std::pair<std::string, std::string>;
  EXPECT_EQ(c.metadata, (std::vector<Entry>{{"sim_time_scale", "4"}, {"sim_gpu", "h100"}, {"sim_max_num_seqs", "16"}}));
  EXPECT_EQ(c.requests_jsonl, "servebench-results/demo-1.requests.jsonl");
}

// The reports say the demo's latencies are in scaled time because the run records it.
TEST(DemoConfig, RecordsTheSimulatorsTimeScale) {
  const RunConfig c = demo_run_config(80, false, "out/demo-3.json");
  using Entry = std::pair<std::string, std::string>;
  EXPECT_EQ(c.metadata, (std::vector<Entry>{{"sim_time_scale", "10"}, {"sim_gpu", "h100"}}));
  EXPECT_NE(pipeline::redacted_config_json(c, "m").find("\"sim_time_scale\":\"10\""), std::string::npos);
}

TEST(DemoConfig, FullIsWhatItsFlagsGive) {
  const RunConfig c = demo_run_config(80, false, "out/demo-2.json");
  expect_same_run(c, demo_from_flags(80, false, "out/demo-2.json"));
  EXPECT_EQ(c.load.concurrency.size(), 9u);
  EXPECT_EQ(c.dataset.num_prompts, 512);
}

}  // namespace
}  // namespace sb::cli
