#include "report/k8s_manifest.hpp"

#include <fmt/format.h>

namespace sb::report {

using nlohmann::ordered_json;

namespace {

// The Indexed Job controller puts the index into this annotation (and into JOB_COMPLETION_INDEX);
// declaring the variable from the annotation makes $(JOB_COMPLETION_INDEX) in args expand on every
// cluster version that has Indexed Jobs.
constexpr const char* kIndexAnnotation = "metadata.annotations['batch.kubernetes.io/job-completion-index']";

std::string pvc_of(const K8sJobSpec& s) { return s.pvc_name.empty() ? s.name + "-results" : s.pvc_name; }

ordered_json metadata_of(const K8sJobSpec& s, const std::string& name) {
  ordered_json m;
  m["name"] = name;
  if (!s.ns.empty()) m["namespace"] = s.ns;
  m["labels"] = ordered_json{{"app.kubernetes.io/name", "servebench"}, {"servebench/run", s.name}};
  return m;
}

ordered_json container_of(const K8sJobSpec& s) {
  ordered_json env = ordered_json::array();
  env.push_back({{"name", "JOB_COMPLETION_INDEX"}, {"valueFrom", {{"fieldRef", {{"fieldPath", kIndexAnnotation}}}}}});
  if (s.api_key_secret)
    env.push_back({{"name", "OPENAI_API_KEY"},
                   {"valueFrom", {{"secretKeyRef", {{"name", *s.api_key_secret}, {"key", "api-key"}}}}}});
  ordered_json mounts = ordered_json::array();
  // The run's own folder of the claim (the kubelet creates it): one run's shards, nothing else, so
  // `servebench merge /results` takes exactly them and the barrier files are this run's.
  mounts.push_back({{"name", "results"}, {"mountPath", kResultsMount}, {"subPath", s.name}});
  if (s.dataset_name) mounts.push_back({{"name", "dataset"}, {"mountPath", kDatasetMount}, {"readOnly", true}});
  const std::string cpu = std::to_string(s.resources.cpu_cores);
  ordered_json c;
  c["name"] = "servebench";
  c["image"] = s.image;
  c["command"] = ordered_json::array({"servebench"});
  c["args"] = k8s_run_args(s);
  c["env"] = std::move(env);
  // CPU request = limit: a throttled client measures its own stalls, not the server.
  c["resources"] = {{"requests", {{"cpu", cpu}, {"memory", fmt::format("{}Mi", s.resources.memory_mib)}}},
                    {"limits", {{"cpu", cpu}, {"memory", fmt::format("{}Mi", 2 * s.resources.memory_mib)}}}};
  c["volumeMounts"] = std::move(mounts);
  return c;
}

ordered_json job_of(const K8sJobSpec& s) {
  ordered_json volumes = ordered_json::array();
  volumes.push_back({{"name", "results"}, {"persistentVolumeClaim", {{"claimName", pvc_of(s)}}}});
  if (s.dataset_name) volumes.push_back({{"name", "dataset"}, {"configMap", {{"name", s.name + "-dataset"}}}});
  ordered_json pod;
  pod["restartPolicy"] = "Never";
  pod["containers"] = ordered_json::array({container_of(s)});
  pod["volumes"] = std::move(volumes);
  ordered_json spec;
  spec["completionMode"] = "Indexed";
  spec["completions"] = s.shards;
  spec["parallelism"] = s.shards;  // all at once: the stage barrier waits for every shard
  spec["backoffLimit"] = 0;        // a restarted shard would rerun stages the others have finished
  spec["template"] = {{"metadata", {{"labels", metadata_of(s, s.name)["labels"]}}}, {"spec", std::move(pod)}};
  ordered_json job;
  job["apiVersion"] = "batch/v1";
  job["kind"] = "Job";
  job["metadata"] = metadata_of(s, s.name);
  job["spec"] = std::move(spec);
  return job;
}

ordered_json pvc_object(const K8sJobSpec& s) {
  ordered_json spec;
  spec["accessModes"] = ordered_json::array({"ReadWriteMany"});
  if (!s.storage_class.empty()) spec["storageClassName"] = s.storage_class;
  spec["resources"] = {{"requests", {{"storage", s.storage}}}};
  return {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"metadata", metadata_of(s, pvc_of(s))},
          {"spec", std::move(spec)}};
}

}  // namespace

std::vector<std::string> k8s_run_args(const K8sJobSpec& s) {
  std::vector<std::string> a{"run"};
  a.insert(a.end(), s.run_args.begin(), s.run_args.end());
  if (s.dataset_name) {
    a.push_back("--dataset-path");
    a.push_back(fmt::format("{}/{}", kDatasetMount, *s.dataset_name));
  }
  const std::string dir = kResultsMount;
  a.insert(a.end(), {"--shard", fmt::format("$(JOB_COMPLETION_INDEX)/{}", s.shards), "--output-json",
                     dir + "/shard-$(JOB_COMPLETION_INDEX).json", "--barrier-dir", dir, "--client-threads",
                     std::to_string(s.resources.cpu_cores), "--disable-tqdm"});
  return a;
}

nlohmann::ordered_json k8s_job_manifest(const K8sJobSpec& s) {
  ordered_json items = ordered_json::array();
  if (s.dataset_name)
    items.push_back({{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", metadata_of(s, s.name + "-dataset")},
                     {"data", {{*s.dataset_name, s.dataset_text.value_or("")}}}});
  if (s.create_pvc) items.push_back(pvc_object(s));
  items.push_back(job_of(s));
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
}

}  // namespace sb::report
