// servebench k8s-job [run flags] --shards N --image IMG -o job.yaml: a Kubernetes Indexed Job whose N
// pods run the staircase as shards of one plan (docs/distributed.md). The run flags are checked as
// `servebench run` checks them (every problem at once); the dataset file goes into a ConfigMap, the
// outputs onto a shared claim, and the pods' CPU and memory are sized from this machine's client
// ceiling (docs/selftest.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/ceiling_probe.hpp"
#include "cli/commands.hpp"
#include "cli/option_reader.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "load/shard_sizing.hpp"
#include "report/k8s_manifest.hpp"
#include "report/sweep_json.hpp"

namespace sb::cli {

namespace {

struct K8sFlags {
  report::K8sJobSpec spec;
  std::string output;
  std::optional<double> tokens_per_s;   // --expected-tokens-per-s
  std::vector<std::string> run_args;    // everything else: servebench run's flags
};

constexpr std::size_t kConfigMapMaxBytes = 1000 * 1024;  // the API's 1 MiB limit, with room for the rest

// Run flags the manifest sets itself (paths inside the pod, the shard): dropped from the user's.
const std::set<std::string, std::less<>> kOwnRunFlags{"--output-json", "--requests-jsonl", "--shard", "--shards",
                                                      "--barrier-dir", "--client-threads", "--dataset-path"};

const char* kUsage =
    "usage: servebench k8s-job [servebench run flags] --shards N --image IMAGE -o job.yaml\n"
    "  --name NAME                 the Job's name (default servebench); the ConfigMap and claim are named after it\n"
    "  --namespace NS              metadata.namespace (default: the kubectl context's)\n"
    "  --results-pvc NAME          use this existing ReadWriteMany claim instead of creating <name>-results\n"
    "  --storage SIZE              size of the created claim (default 1Gi)\n"
    "  --storage-class NAME        its storage class (default: the cluster's)\n"
    "  --api-key-secret NAME       Secret whose key api-key becomes OPENAI_API_KEY in every pod\n"
    "  --expected-tokens-per-s T   the run's peak output tokens/s (all shards), for the CPU request\n"
    "The run flags are servebench run's (servebench run --help); --dataset-path FILE is put into a ConfigMap.\n";

std::string take_value(const std::vector<std::string>& a, std::size_t& i) {
  if (i + 1 >= a.size()) throw UserError(fmt::format("{}: needs a value", a[i]));
  return a[++i];
}

std::string read_dataset(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("--dataset-path {}: cannot read the file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.size() > kConfigMapMaxBytes)
    throw UserError(fmt::format("--dataset-path {}: {} bytes is too large for a ConfigMap (1 MiB): put it into the "
                                "image or onto the claim and pass its path inside the pod with --dataset-path",
                                path, text.size()));
  return text;
}

// Splits k8s-job's own flags from the run flags; "--flag=value" is accepted for both.
K8sFlags split_flags(std::vector<std::string> a) {
  K8sFlags f;
  std::vector<std::string> expanded;
  for (const std::string& s : a) {
    const std::size_t eq = s.find('=');
    if (s.starts_with("--") && eq != std::string::npos) {
      expanded.push_back(s.substr(0, eq));
      expanded.push_back(s.substr(eq + 1));
    } else {
      expanded.push_back(s);
    }
  }
  for (std::size_t i = 0; i < expanded.size(); ++i) {
    const std::string& k = expanded[i];
    if (k == "--image") f.spec.image = take_value(expanded, i);
    else if (k == "-o" || k == "--output") f.output = take_value(expanded, i);
    else if (k == "--name") f.spec.name = take_value(expanded, i);
    else if (k == "--namespace") f.spec.ns = take_value(expanded, i);
    else if (k == "--results-pvc") {
      f.spec.pvc_name = take_value(expanded, i);
      f.spec.create_pvc = false;
    } else if (k == "--storage") f.spec.storage = take_value(expanded, i);
    else if (k == "--storage-class") f.spec.storage_class = take_value(expanded, i);
    else if (k == "--api-key-secret") f.spec.api_key_secret = take_value(expanded, i);
    else if (k == "--expected-tokens-per-s") {
      const std::optional<double> v = parse_number(take_value(expanded, i), false);
      if (!v || *v < 0) throw UserError(fmt::format("--expected-tokens-per-s '{}': not a number >= 0", expanded[i]));
      f.tokens_per_s = v;
    } else if (k == "--shards") {
      const std::optional<long long> n = parse_integer(take_value(expanded, i));
      if (!n || *n < 1 || *n > 10000) throw UserError(fmt::format("--shards '{}': not a shard count in 1..10000", expanded[i]));
      f.spec.shards = static_cast<int>(*n);
    } else {
      f.run_args.push_back(k);
    }
  }
  return f;
}

// The run's peak output tokens/s: the flag, else the highest finite rate x output length, else the
// highest concurrency x 100 tokens/s per stream (a typical decode speed; docs/distributed.md).
double expected_tokens_per_s(const K8sFlags& f, const RunConfig& cfg, int out_len) {
  if (f.tokens_per_s) return *f.tokens_per_s;
  double rate = 0;
  for (const double r : cfg.load.request_rates)
    if (std::isfinite(r)) rate = std::max(rate, r);
  if (rate > 0) return rate * out_len;
  int streams = cfg.load.max_concurrency.value_or(0);
  for (const int c : cfg.load.concurrency) streams = std::max(streams, c);
  return streams * 100.0;
}

}  // namespace

int k8s_job_cmd(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::fputs(kUsage, stdout);
    return to_int(ExitCode::ok);
  }
  K8sFlags f = split_flags(args);
  if (f.spec.image.empty()) throw UserError("--image IMAGE is required (a container image with servebench on its PATH)");
  if (f.output.empty()) throw UserError("-o FILE is required (the manifest to write)");
  // The run flags, checked as `servebench run` checks them, with the shard flags the pods get.
  ParseInput in;
  std::vector<std::string> kept;
  std::string dataset_path;
  for (std::size_t i = 0; i < f.run_args.size(); ++i) {
    const std::string& k = f.run_args[i];
    if (!kOwnRunFlags.contains(k)) {
      kept.push_back(k);
      continue;
    }
    const std::string value = take_value(f.run_args, i);
    if (k == "--dataset-path") {
      f.spec.dataset_name = std::filesystem::path(value).filename().string();
      f.spec.dataset_text = read_dataset(value);
      dataset_path = value;
    }
  }
  // A tokenizer.json is several MiB (llama3's: 9 MB), past a ConfigMap's 1 MiB, so it is not carried
  // like the dataset: every pod reads the path as given, and a shard without it fails at its start
  // (one line, the Job fails) instead of planning other prompt lengths than its peers.
  const auto tok = std::find(kept.begin(), kept.end(), "--tokenizer");
  if (tok != kept.end() && tok + 1 != kept.end())
    std::fprintf(stderr,
                 "note: --tokenizer %s is read inside each pod at that path: the image (or the claim, mounted at "
                 "/results) must hold it there (docs/distributed.md)\n",
                 (tok + 1)->c_str());
  in.args = kept;
  in.args.insert(in.args.end(), {"--shard", fmt::format("0/{}", f.spec.shards), "--output-json", "shard-0.json"});
  if (f.spec.dataset_name) in.args.insert(in.args.end(), {"--dataset-path", dataset_path});
  const std::optional<RunConfig> cfg = parse_run_options(in);
  if (!cfg) return to_int(ExitCode::ok);
  f.spec.run_args = kept;
  const int out_len = cfg->dataset.random_output_len > 0 ? cfg->dataset.random_output_len : 128;
  ShardLoadEstimate e;
  e.shards = f.spec.shards;
  e.tokens_per_s = expected_tokens_per_s(f, *cfg, out_len);
  e.streams = cfg->load.max_concurrency.value_or(0);
  for (const int c : cfg->load.concurrency) e.streams = std::max(e.streams, c);
  e.requests_per_stage = cfg->dataset.num_prompts;
  e.output_tokens = out_len;
  f.spec.resources = size_shard(e, ceiling_for_run(1, stderr));
  const nlohmann::ordered_json manifest = report::k8s_job_manifest(f.spec);
  report::write_sweep_json(f.output, manifest);  // indented JSON, written atomically
  std::fprintf(stderr,
               "wrote %s: Indexed Job %s, %d shards, %d CPU and %lld Mi per shard (%.0f tokens/s at %.0f events per "
               "CPU-s)\n  kubectl apply -f %s; then servebench merge /results -o /results/merged.json in a pod "
               "that mounts the claim (docs/distributed.md)\n",
               f.output.c_str(), f.spec.name.c_str(), f.spec.shards, f.spec.resources.cpu_cores,
               static_cast<long long>(f.spec.resources.memory_mib), e.tokens_per_s, f.spec.resources.events_per_cpu_s,
               f.output.c_str());
  return to_int(ExitCode::ok);
}

}  // namespace sb::cli
