#pragma once
// The Kubernetes manifest `servebench k8s-job` writes (docs/distributed.md): a v1 List of the
// dataset's ConfigMap (when a dataset file is given), the shared results PersistentVolumeClaim
// (ReadWriteMany: every shard writes there, and the stage barrier lives there) and the Indexed Job
// (completionMode Indexed, completions = parallelism = N) whose pod I runs `servebench run --shard
// I/N`. Written as JSON, which is YAML too: kubectl apply -f reads it as it is.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/shard_sizing.hpp"

namespace sb::report {

struct K8sJobSpec {
  std::string name = "servebench";     // the Job's name; the ConfigMap and PVC are named after it
  std::string ns;                      // metadata.namespace; "" = the kubectl context's
  std::string image;                   // a container image with servebench on its PATH
  int shards = 1;
  std::vector<std::string> run_args;   // the run flags, without the shard, output and dataset paths
  std::optional<std::string> dataset_name, dataset_text;  // the dataset file, put into the ConfigMap
  std::string pvc_name;                // "" = <name>-results, created by the manifest
  bool create_pvc = true;              // false: an existing claim is used
  std::string storage = "1Gi";         // the claim's size
  std::string storage_class;           // "" = the cluster's default
  std::optional<std::string> api_key_secret;  // Secret with key `api-key` -> OPENAI_API_KEY
  ShardResources resources;
};

// Mount points inside the pod.
inline constexpr const char* kResultsMount = "/results";
inline constexpr const char* kDatasetMount = "/data";

// The container's args after `servebench`: "run", the run flags, and the paths and shard flags.
std::vector<std::string> k8s_run_args(const K8sJobSpec& s);

nlohmann::ordered_json k8s_job_manifest(const K8sJobSpec& s);

}  // namespace sb::report
