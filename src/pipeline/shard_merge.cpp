#include "pipeline/shard_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "report/run_context.hpp"
#include "report/shard_merge_json.hpp"
#include "report/sweep_json.hpp"
#include "results/shard_input.hpp"

namespace sb::pipeline {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw UserError(fmt::format("merge: cannot read {}", p.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The document and its records (the document's requests_file, relative to its folder).
results::ShardInput read_shard(const fs::path& doc_path) {
  results::ShardInput shard = results::parse_shard_doc(read_text(doc_path), doc_path.string());
  const ordered_json& rel = shard.doc["requests_file"];
  if (!rel.is_string())
    throw UserError(fmt::format("merge: {} names no per-request file (requests_file is null)", doc_path.string()));
  const fs::path jsonl = fs::path(rel.get<std::string>()).is_absolute() ? fs::path(rel.get<std::string>())
                                                                        : doc_path.parent_path() / rel.get<std::string>();
  results::add_shard_records(read_text(jsonl), jsonl.string(), shard);
  return shard;
}

bool is_shard_doc(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  const ordered_json j = ordered_json::parse(in, nullptr, false);
  return !j.is_discarded() && j.is_object() && j.value("kind", "") == "servebench.sweep" && j.contains("shard");
}

// A folder stands for the shard documents in it (other sweep documents, a merged one included, are
// passed over); a file given by name must be a shard's document.
std::vector<results::ShardInput> read_inputs(const std::vector<std::string>& inputs) {
  std::vector<results::ShardInput> out;
  for (const std::string& in : inputs) {
    if (!fs::is_directory(in)) {
      out.push_back(read_shard(in));
      continue;
    }
    std::vector<fs::path> docs;
    for (const fs::directory_entry& e : fs::directory_iterator(in))
      if (e.is_regular_file() && e.path().extension() == ".json" && is_shard_doc(e.path())) docs.push_back(e.path());
    std::sort(docs.begin(), docs.end());
    if (docs.empty()) throw UserError(fmt::format("merge: no shard sweep documents in {}", in));
    for (const fs::path& d : docs) out.push_back(read_shard(d));
  }
  return out;
}

std::vector<double> numbers_of(const ordered_json& j) {
  std::vector<double> out;
  if (j.is_array())
    for (const ordered_json& v : j)
      if (v.is_number()) out.push_back(v.get<double>());
  return out;
}

std::string string_or(const ordered_json& j, const char* key, std::string fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// What the sweep writer needs about the run, as shard 0 recorded it (every shard ran the same plan).
report::RunContext context_of(const ordered_json& doc) {
  report::RunContext ctx;
  const ordered_json& config = doc["config"];
  if (doc["label"].is_string()) ctx.label = doc["label"].get<std::string>();
  ctx.load_mode = string_or(doc, "load_mode", "") == "concurrency" ? LoadMode::concurrency : LoadMode::request_rate;
  ctx.config_json = config.dump();
  ctx.backend = string_or(config, "backend", "openai");
  ctx.base_url = string_or(config, "base_url", "");
  ctx.endpoint = string_or(config, "endpoint", "");
  if (!doc["stages"].empty()) {
    const ordered_json& s0 = doc["stages"][0];
    ctx.model_id = string_or(s0, "model_id", "");
    ctx.tokenizer_id = string_or(s0, "tokenizer_id", "");
  }
  ctx.load_values = numbers_of(config["load"]["values"]);
  ctx.metric_percentiles = numbers_of(config["metric_percentiles"]);
  if (config["percentile_metrics"].is_array()) ctx.percentile_metrics = config["percentile_metrics"].get<std::vector<std::string>>();
  if (config["goodput"].is_object())
    for (const auto& [k, v] : config["goodput"].items())
      if (v.is_number()) ctx.goodput_slo_ms[k] = v.get<double>();
  if (config["metadata"].is_object())
    for (const auto& [k, v] : config["metadata"].items())
      if (v.is_string()) ctx.metadata.emplace_back(k, v.get<std::string>());
  return ctx;
}

}  // namespace

MergeOutcome merge_shard_files(const MergeConfig& cfg) {
  if (cfg.output_json.empty()) throw UserError("merge: -o FILE (the merged sweep document) is required");
  std::vector<results::ShardInput> shards = read_inputs(cfg.inputs);
  results::ShardMergeParams mp;
  const report::RunContext ctx = context_of(shards.front().doc);
  mp.percentiles = ctx.metric_percentiles;
  mp.goodput_slo_ms = ctx.goodput_slo_ms;
  MergeOutcome out;
  out.merged = results::merge_shards(shards, mp);
  out.load_mode = ctx.load_mode;
  std::sort(shards.begin(), shards.end(), [](const auto& a, const auto& b) { return a.spec.index < b.spec.index; });
  for (const results::ShardInput& s : shards) out.documents.push_back(s.path);
  results::RunInfo info;
  info.source = cfg.output_json;
  info.label = ctx.label;
  info.load_mode = ctx.load_mode;
  info.config_json = ctx.config_json;
  out.analysis = analyze_stages(info, out.merged.stages);
  report::SweepMeta meta;
  meta.created_unix_s = static_cast<std::int64_t>(std::time(nullptr));
  if (out.analysis) meta.analysis = analysis_json(*out.analysis);
  ordered_json doc = report::sweep_json(ctx, out.merged.stages, meta);
  // The client machines are the shards': shard 0's environment and engine, every shard's under `shards`.
  doc["environment"] = shards.front().doc["environment"];
  doc["engine"] = shards.front().doc["engine"];
  doc["shards"] = report::shards_json(out.merged, out.documents);
  doc["merge_warnings"] = report::merge_warnings_json(out.merged);
  report::write_sweep_json(cfg.output_json, doc);
  return out;
}

}  // namespace sb::pipeline
