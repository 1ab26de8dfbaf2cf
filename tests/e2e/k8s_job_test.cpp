// `servebench k8s-job` end to end (issue 16, docs/distributed.md): the manifest it writes for a
// 4-shard rate staircase with a dataset file validates against the Kubernetes API schema the tests
// carry (tests/support/k8s_schema.hpp), carries the run flags and the dataset, and bad flags are
// refused the way `servebench run` refuses them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "e2e/run_process.hpp"
#include "support/k8s_schema.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

TEST(K8sJob, WritesAManifestThatValidates) {
  const TempDir dir("k8s_job");
  const std::string rows = "{\"prompt\": \"Tell me about shards.\", \"output_tokens\": 16}\n"
                           "{\"prompt\": \"And about merges.\", \"output_tokens\": 16}\n";
  std::ofstream(dir.path / "prompts.jsonl") << rows;
  const RunResult r = run_subcommand(
      {"k8s-job", "--base-url", "http://vllm.llm.svc:8000", "--model", "m", "--request-rate", "100", "200",
       "--num-prompts", "400", "--dataset-name", "custom", "--dataset-path", "prompts.jsonl", "--shards", "4",
       "--image", "registry.example/servebench:0.1", "--name", "sweep-a", "-o", "job.yaml"},
      dir.path, "k8s");
  ASSERT_EQ(r.code, 0) << r.err;
  const Json m = Json::parse(slurp(dir.path / "job.yaml"));  // JSON is YAML: kubectl reads it as it is
  const std::vector<std::string> errors = k8s_check::check_manifest(m);
  EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors);
  ASSERT_EQ(m["items"].size(), 3u);
  EXPECT_EQ(m["items"][0]["data"]["prompts.jsonl"], rows);  // the dataset travels in the ConfigMap, byte for byte
  const Json& job = m["items"][2];
  EXPECT_EQ(job["spec"]["parallelism"], 4);
  const std::vector<std::string> args = job["spec"]["template"]["spec"]["containers"][0]["args"];
  const auto has = [&](const std::string& a) { return std::find(args.begin(), args.end(), a) != args.end(); };
  EXPECT_TRUE(has("http://vllm.llm.svc:8000"));
  EXPECT_TRUE(has("$(JOB_COMPLETION_INDEX)/4"));
  EXPECT_TRUE(has("/data/prompts.jsonl"));
  EXPECT_FALSE(has("prompts.jsonl"));  // the local path is not the pod's
  EXPECT_FALSE(has("--image"));
  // Sized from the pinned ceiling (1e6 events per CPU-s): 200 req/s x 16 tokens needs one core.
  EXPECT_EQ(job["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"], "1");
  EXPECT_NE(r.err.find("kubectl apply -f job.yaml"), std::string::npos) << r.err;
}

// A tokenizer file is too big for the ConfigMap: the pods get the path as given, and the user is told
// that it must exist there.
TEST(K8sJob, TokenizerPathIsPassedAsGivenWithANote) {
  const TempDir dir("k8s_job_tok");
  const RunResult r = run_subcommand({"k8s-job", "--base-url", "http://vllm:8000", "--model", "m", "--concurrency",
                                      "8", "--tokenizer", "/models/llama3/tokenizer.json", "--shards", "2",
                                      "--image", "i", "-o", "job.yaml"},
                                     dir.path, "k8s");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("note: --tokenizer /models/llama3/tokenizer.json is read inside each pod"), std::string::npos)
      << r.err;
  const Json m = Json::parse(slurp(dir.path / "job.yaml"));
  const std::vector<std::string> args = m["items"].back()["spec"]["template"]["spec"]["containers"][0]["args"];
  const auto tok = std::find(args.begin(), args.end(), "--tokenizer");
  ASSERT_NE(tok, args.end());
  ASSERT_NE(tok + 1, args.end());
  EXPECT_EQ(*(tok + 1), "/models/llama3/tokenizer.json");
}

TEST(K8sJob, RefusesWhatARunWouldRefuse) {
  const TempDir dir("k8s_job_bad");
  const RunResult no_image = run_subcommand({"k8s-job", "--shards", "2", "-o", "j.yaml"}, dir.path, "noimg");
  EXPECT_EQ(no_image.code, 2);
  EXPECT_NE(no_image.err.find("--image IMAGE is required"), std::string::npos) << no_image.err;
  // Concurrency 2 cannot give each of 4 shards a slot: named by its flag, nothing written.
  const RunResult low = run_subcommand(
      {"k8s-job", "--concurrency", "2", "8", "--shards", "4", "--image", "i", "-o", "j.yaml"}, dir.path, "low");
  EXPECT_EQ(low.code, 2);
  EXPECT_NE(low.err.find("--concurrency"), std::string::npos) << low.err;
  EXPECT_NE(low.err.find("2 is below the 4 shards"), std::string::npos) << low.err;
  EXPECT_FALSE(fs::exists(dir.path / "j.yaml"));
}

}  // namespace
}  // namespace sb::e2e
