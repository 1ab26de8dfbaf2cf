#include "pipeline/run_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>

#include "core/error.hpp"
#include "pipeline/run_analysis.hpp"
#include "report/csv_table.hpp"
#include "report/shard_json.hpp"
#include "report/sweep_json.hpp"
#include "report/vllm_result.hpp"
#include "report/repeat_text.hpp"
#include "analyze/repeat_spread.hpp"

namespace sb::pipeline {

using report::JsonlSink;
using report::describe_loss;
using report::SweepMeta;
using report::write_sweep_json;
using report::sweep_json;
using report::write_csv_file;
using report::format_csv_table;
using report::vllm_result_filename;
using report::write_vllm_result;
using report::vllm_stage_json;
using report::RunContext;
using report::VllmStageOptions;
using report::vllm_selected_metrics;
using report::vllm_date;

namespace fs = std::filesystem;

namespace {

// Relative path of `target` from the folder of `doc`, else `target` as given.
std::string relative_to_doc(const std::string& target, const std::string& doc) {
  std::error_code ec;
  fs::path base = fs::absolute(fs::path(doc), ec).parent_path();
  fs::path rel = fs::relative(fs::absolute(target, ec), base, ec);
  return ec || rel.empty() ? target : rel.string();
}

// The swept value of a stage: its concurrency limit, or its rate.
double swept_load(LoadMode mode, const StageSummary& s) {
  return mode == LoadMode::concurrency ? s.load.max_concurrency.value_or(0) : s.load.request_rate;
}

}  // namespace

RunOutputs::RunOutputs(const RunConfig& cfg, const RunContext& ctx) : cfg_(cfg), ctx_(ctx) {
  std::error_code ec;  // a folder that cannot be made shows up as the open/write error below
  for (const std::string& file : {cfg_.output_json, cfg_.requests_jsonl, cfg_.csv}) {
    const fs::path parent = fs::path(file).parent_path();
    if (!file.empty() && !parent.empty()) fs::create_directories(parent, ec);
  }
  write_sweep(false);  // an unwritable --output-json or --csv fails now, not after the first stage
  write_csv();
  if (!cfg_.requests_jsonl.empty()) {
    try {
      jsonl_ = std::make_unique<JsonlSink>(cfg_.requests_jsonl);
      jsonl_->set_batched(true);
      if (cfg_.shard.sharded()) jsonl_->set_shard(cfg_.shard.index);
    } catch (const UserError& e) {
      throw UserError(fmt::format("--requests-jsonl: {}", e.what()));
    }
    note_written(cfg_.requests_jsonl);
  }
  started_ = true;
}

void RunOutputs::append_record(std::size_t stage, const std::string& request_id, const RequestRecord& r) {
  if (jsonl_) jsonl_->write(stage, r, request_id);
}

void RunOutputs::flush_records() {
  if (jsonl_) jsonl_->flush();
}

void RunOutputs::stage_done(const StageSummary& s, const std::vector<RequestRecord>& records) {
  flush_records();
  if (cfg_.load.search) {
    const auto at = std::upper_bound(stages_.begin(), stages_.end(), s, [&](const StageSummary& a, const StageSummary& b) {
      return swept_load(ctx_.load_mode, a) < swept_load(ctx_.load_mode, b);
    });
    stages_.insert(at, s);
  } else {
    stages_.push_back(s);
  }
  write_sweep(s.aborted);
  write_csv();
  if (cfg_.save_result) write_vllm_file(s, records);
}

// The final document carries the analysis of the stages in memory (no read-back of the file); an
// aborted run keeps what it had and is not analysed.
std::optional<AnalysedRun> RunOutputs::finish(bool aborted) {
  std::vector<PendingFile> retry = std::move(pending_);
  pending_.clear();
  for (PendingFile& f : retry) {
    if (guarded(f.path, [&] { write_vllm_result(f.path, f.doc, false); })) note_written(f.path);
  }
  if (jsonl_) jsonl_->close();
  if (cfg_.output_json.empty()) return std::nullopt;
  std::optional<AnalysedRun> analysed;
  if (!aborted) analysed = analyze_stages(run_info(aborted), stages_, cfg_.repeats);
  write_sweep(aborted, analysed ? analysis_json(*analysed) : nlohmann::ordered_json());
  return analysed;
}

std::vector<std::string> RunOutputs::written() const {
  std::vector<std::string> out;
  for (const std::string& path : written_) {
    const bool failed = std::any_of(failed_.begin(), failed_.end(), [&](const auto& f) { return f.first == path; });
    if (!failed && !(jsonl_ && path == jsonl_->path() && jsonl_->write_failed())) out.push_back(path);
  }
  return out;
}

std::vector<std::string> RunOutputs::lost() const {
  std::vector<std::string> out;
  for (const auto& f : failed_) out.push_back(f.second);
  if (jsonl_ && jsonl_->write_failed()) out.push_back(fmt::format("--requests-jsonl: {}", describe_loss(*jsonl_)));
  return out;
}

template <class Write>
bool RunOutputs::guarded(const std::string& path, Write&& write) {
  const auto entry = std::find_if(failed_.begin(), failed_.end(), [&](const auto& f) { return f.first == path; });
  try {
    write();
  } catch (const UserError& e) {
    if (!started_) throw;
    if (entry != failed_.end()) entry->second = e.what();
    else failed_.emplace_back(path, e.what());
    return false;
  }
  if (entry != failed_.end()) failed_.erase(entry);  // space came back: the file is whole again
  return true;
}

results::RunInfo RunOutputs::run_info(bool aborted) const {
  results::RunInfo info;
  info.source = cfg_.output_json;
  info.label = ctx_.label;
  info.load_mode = ctx_.load_mode;
  info.config_json = ctx_.config_json;
  info.aborted = aborted;
  info.server_time_scale = ctx_.server_time_scale;
  info.time_factor = ctx_.time_factor;
  return info;
}

void RunOutputs::write_sweep(bool aborted, nlohmann::ordered_json analysis) {
  if (cfg_.output_json.empty()) return;
  SweepMeta meta;
  meta.analysis = std::move(analysis);
  meta.created_unix_s = static_cast<std::int64_t>(std::time(nullptr));
  meta.aborted = aborted;
  meta.load_search = load_search_;
  if (!cfg_.requests_jsonl.empty()) meta.requests_file = relative_to_doc(cfg_.requests_jsonl, cfg_.output_json);
  if (cfg_.repeats > 1) meta.repeats = report::repeat_spread_json(analyze::repeat_spread(stages_), cfg_.repeats);
  auto doc = sweep_json(ctx_, stages_, meta);
  if (cfg_.shard.sharded()) doc["shard"] = report::shard_json(shard_.value_or(ShardRecord{cfg_.shard, "", cfg_.start_at_unix_ns, {}}));
  const bool ok = guarded(cfg_.output_json, [&] {
    try {
      write_sweep_json(cfg_.output_json, doc);
    } catch (const UserError& e) {
      throw UserError(fmt::format("--output-json: {}", e.what()), e.code());
    }
  });
  if (ok) note_written(cfg_.output_json);
}

void RunOutputs::write_csv() {
  if (cfg_.csv.empty()) return;
  const std::string text = format_csv_table(ctx_.load_mode, stages_);
  if (guarded(cfg_.csv, [&] { write_csv_file(cfg_.csv, text); })) note_written(cfg_.csv);
}

void RunOutputs::note_written(const std::string& path) {
  if (std::find(written_.begin(), written_.end(), path) == written_.end()) written_.push_back(path);
}

// vLLM's name (or --result-filename); a name this run already used (--concurrency 4 4 4 in one
// second, or --result-filename with several stages) gets "-stage<i>" before the extension, so no
// stage's file replaces another's. The first keeps vLLM's name.
std::string RunOutputs::vllm_file_path(const StageSummary& s, const std::string& date) {
  const auto suffixed = [](const std::string& n, const std::string& suffix) {
    const fs::path p(n);
    return (p.parent_path() / fmt::format("{}-{}{}", p.stem().string(), suffix, p.extension().string())).string();
  };
  std::string name = cfg_.result_filename ? *cfg_.result_filename : vllm_result_filename(ctx_, s.load, date);
  // --result-filename with several stages: every stage suffixed (docs/results-format.md); a searched
  // run's by load ("-c12"), since its run order is not the load order.
  if (cfg_.result_filename && cfg_.load.search)
    name = suffixed(name, ctx_.load_mode == LoadMode::concurrency ? fmt::format("c{}", *s.load.max_concurrency)
                                                                  : fmt::format("rate{:g}", s.load.request_rate));
  else if (cfg_.result_filename && ctx_.load_values.size() > 1)
    name = suffixed(name, fmt::format("stage{}", s.stage_index));
  // Repeats of one stage can end within the same second (vLLM's date): the pass goes before the extension.
  if (cfg_.repeats > 1) name = suffixed(name, fmt::format("repeat{}", s.repeat));
  // A name this run already wrote (--concurrency 4 4 4 within one second) gets the stage index.
  if (std::find(used_names_.begin(), used_names_.end(), name) != used_names_.end())
    name = suffixed(name, fmt::format("stage{}", s.stage_index));
  used_names_.push_back(name);
  const fs::path path = cfg_.result_dir.empty() ? fs::path(name) : fs::path(cfg_.result_dir) / name;
  return path.string();
}

void RunOutputs::write_vllm_file(const StageSummary& s, const std::vector<RequestRecord>& records) {
  VllmStageOptions opt;
  opt.metrics = vllm_selected_metrics(cfg_.percentile_metrics, s.load);
  opt.percentiles = cfg_.metric_percentiles;
  opt.date = vllm_date(static_cast<std::int64_t>(s.end_unix_s));
  opt.records = &records;
  opt.save_detailed = cfg_.save_detailed;
  const std::string path = vllm_file_path(s, opt.date);
  auto doc = vllm_stage_json(ctx_, s, opt);
  if (guarded(path, [&] { write_vllm_result(path, doc, false); })) note_written(path);
  else pending_.push_back({path, std::move(doc)});
}

}  // namespace sb::pipeline
