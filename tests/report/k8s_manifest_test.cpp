#include "report/k8s_manifest.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "support/k8s_schema.hpp"

namespace sb::report {
namespace {

using nlohmann::json;

K8sJobSpec k8s_sample_spec() {
  K8sJobSpec s;
  s.name = "bench-llm";
  s.ns = "load";
  s.image = "registry.example/servebench:0.1";
  s.shards = 4;
  s.run_args = {"--base-url", "http://vllm:8000", "--request-rate", "10", "20", "--num-prompts", "200"};
  s.dataset_name = "prompts.jsonl";
  s.dataset_text = "{\"prompt\": \"hello\"}\n";
  s.api_key_secret = "openai";
  s.resources.cpu_cores = 2;
  s.resources.memory_mib = 300;
  return s;
}

// The manifest as kubectl would receive it (the writer's JSON is YAML too).
json k8s_manifest_json(const K8sJobSpec& s) { return json::parse(k8s_job_manifest(s).dump()); }

const json& k8s_item(const json& list, const std::string& kind) {
  for (const json& it : list["items"])
    if (it["kind"] == kind) return it;
  static const json none;
  return none;
}

TEST(K8sManifest, ValidatesAgainstTheApiSchema) {
  const json m = k8s_manifest_json(k8s_sample_spec());
  const std::vector<std::string> errors = k8s_check::check_manifest(m);
  EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors) << "\n" << m.dump(2);
  EXPECT_EQ(m["items"].size(), 3u);  // ConfigMap, PVC, Job
}

TEST(K8sManifest, WithoutDatasetOrNewClaimStillValidates) {
  K8sJobSpec s = k8s_sample_spec();
  s.dataset_name.reset();
  s.dataset_text.reset();
  s.create_pvc = false;
  s.pvc_name = "shared-results";
  s.ns.clear();
  const json m = k8s_manifest_json(s);
  EXPECT_TRUE(k8s_check::check_manifest(m).empty()) << ::testing::PrintToString(k8s_check::check_manifest(m));
  ASSERT_EQ(m["items"].size(), 1u);
  EXPECT_EQ(m["items"][0]["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"], "shared-results");
}

// The checker can fail: typical mistakes in a hand-edited Job are each reported.
TEST(K8sManifest, SchemaCheckCatchesBrokenJobs) {
  json m = k8s_manifest_json(k8s_sample_spec());
  json& job = m["items"][2];
  job["spec"]["completionmode"] = "Indexed";            // misspelt field
  job["spec"]["parallelism"] = "4";                     // string, not integer
  job["spec"].erase("completions");                     // Indexed needs completions
  job["spec"]["template"]["spec"]["restartPolicy"] = "Always";  // not allowed for a Job
  job["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "two";
  job["metadata"]["name"] = "Bench_LLM";                 // not DNS-1123
  const std::vector<std::string> errors = k8s_check::check_manifest(m);
  const auto has = [&](const std::string& what) {
    return std::any_of(errors.begin(), errors.end(), [&](const std::string& e) { return e.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(has("unknown field completionmode")) << ::testing::PrintToString(errors);
  EXPECT_TRUE(has(".spec.parallelism: \"4\" is not of type integer"));
  EXPECT_TRUE(has("completions: required when completionMode is Indexed"));
  EXPECT_TRUE(has("restartPolicy: a Job's pods need Never or OnFailure"));
  EXPECT_TRUE(has("requests.cpu: 'two' does not match"));
  EXPECT_TRUE(has("metadata.name: 'Bench_LLM' does not match"));
}

TEST(K8sManifest, IndexedJobRunsOneShardPerIndex) {
  const json m = k8s_manifest_json(k8s_sample_spec());
  const json& job = k8s_item(m, "Job");
  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(job["spec"]["completions"], 4);
  EXPECT_EQ(job["spec"]["parallelism"], 4);
  EXPECT_EQ(job["spec"]["backoffLimit"], 0);
  const json& c = job["spec"]["template"]["spec"]["containers"][0];
  const std::vector<std::string> args = c["args"].get<std::vector<std::string>>();
  const auto after = [&](const std::string& flag) {
    const auto it = std::find(args.begin(), args.end(), flag);
    return it == args.end() || it + 1 == args.end() ? std::string() : *(it + 1);
  };
  EXPECT_EQ(args.front(), "run");
  EXPECT_EQ(after("--shard"), "$(JOB_COMPLETION_INDEX)/4");
  EXPECT_EQ(after("--output-json"), "/results/shard-$(JOB_COMPLETION_INDEX).json");
  EXPECT_EQ(after("--barrier-dir"), "/results");
  EXPECT_EQ(after("--dataset-path"), "/data/prompts.jsonl");
  EXPECT_EQ(after("--client-threads"), "2");
  EXPECT_EQ(after("--base-url"), "http://vllm:8000");
  // The index variable is declared from the controller's annotation, so $(...) expands.
  EXPECT_EQ(c["env"][0]["name"], "JOB_COMPLETION_INDEX");
  EXPECT_EQ(c["env"][0]["valueFrom"]["fieldRef"]["fieldPath"],
            "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  EXPECT_EQ(c["env"][1]["valueFrom"]["secretKeyRef"]["name"], "openai");
  EXPECT_EQ(c["resources"]["requests"]["cpu"], "2");
  EXPECT_EQ(c["resources"]["requests"]["memory"], "300Mi");
  EXPECT_EQ(c["resources"]["limits"]["memory"], "600Mi");
}

TEST(K8sManifest, DatasetAndResultsVolumes) {
  const json m = k8s_manifest_json(k8s_sample_spec());
  const json& cm = k8s_item(m, "ConfigMap");
  EXPECT_EQ(cm["metadata"]["name"], "bench-llm-dataset");
  EXPECT_EQ(cm["data"]["prompts.jsonl"], "{\"prompt\": \"hello\"}\n");
  const json& pvc = k8s_item(m, "PersistentVolumeClaim");
  EXPECT_EQ(pvc["spec"]["accessModes"][0], "ReadWriteMany");  // every shard writes there
  EXPECT_EQ(pvc["metadata"]["name"], "bench-llm-results");
  const json& mount = k8s_item(m, "Job")["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0];
  EXPECT_EQ(mount["subPath"], "bench-llm");  // one run's folder of the claim
}

}  // namespace
}  // namespace sb::report
