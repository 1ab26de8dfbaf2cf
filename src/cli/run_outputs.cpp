#include "cli/run_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "core/error.hpp"
#include "report/py_json.hpp"
#include "report/sweep_json.hpp"
#include "report/vllm_result.hpp"

namespace sb::cli {

namespace fs = std::filesystem;

namespace {

void append_ms(std::string& out, Nanos ns) {
  char buf[32];
  out.append(buf, py_float_repr(buf, ns_to_ms(ns)));
}

void append_key(std::string& out, const char* key) {
  out += out.size() > 1 ? ", \"" : "\"";
  out += key;
  out += "\": ";
}

void append_token_times(std::string& out, const RequestRecord& r) {
  const bool has_token = !r.token_ns.empty();
  append_key(out, "ttft_ms");
  if (has_token) append_ms(out, r.ttft_ns()); else out += "null";
  append_key(out, "e2el_ms");
  if (has_token) append_ms(out, r.latency_ns()); else out += "null";
  append_key(out, "tpot_ms");
  if (has_token && r.output_tokens > 1) {
    char buf[32];
    const double tpot_ms = ns_to_ms(r.latency_ns() - r.ttft_ns()) / (r.output_tokens - 1);
    out.append(buf, py_float_repr(buf, tpot_ms));
  } else {
    out += "null";
  }
  append_key(out, "itl_ms");
  out += '[';
  for (std::size_t i = 1; i < r.token_ns.size(); ++i) {
    if (i > 1) out += ", ";
    append_ms(out, r.token_ns[i] - r.token_ns[i - 1]);
  }
  out += ']';
}

// Relative path of `target` from the folder of `doc`, else `target` as given.
std::string relative_to_doc(const std::string& target, const std::string& doc) {
  std::error_code ec;
  fs::path base = fs::absolute(fs::path(doc), ec).parent_path();
  fs::path rel = fs::relative(fs::absolute(target, ec), base, ec);
  return ec || rel.empty() ? target : rel.string();
}

}  // namespace

std::string request_jsonl_line(std::size_t stage, const std::string& request_id, const RequestRecord& r) {
  std::string out = "{";
  append_key(out, "stage");
  out += std::to_string(stage);
  append_key(out, "index");
  out += std::to_string(r.index);
  append_key(out, "request_id");
  py_json_append_string(out, request_id);
  append_key(out, "outcome");
  py_json_append_string(out, to_string(r.outcome));
  append_key(out, "http_status");
  out += std::to_string(r.http_status);
  append_key(out, "error");
  py_json_append_string(out, r.error);
  append_key(out, "intended_ms");
  append_ms(out, r.intended_ns);
  append_key(out, "sent_ms");
  append_ms(out, r.sent_ns);
  append_key(out, "first_byte_ms");
  if (r.first_byte_ns >= 0) append_ms(out, r.first_byte_ns); else out += "null";
  append_key(out, "done_ms");
  append_ms(out, r.done_ns);
  append_token_times(out, r);
  append_key(out, "prompt_tokens");
  out += std::to_string(r.prompt_tokens);
  append_key(out, "output_tokens");
  out += std::to_string(r.output_tokens);
  append_key(out, "expected_output_tokens");
  out += std::to_string(r.expected_output_tokens);
  append_key(out, "token_source");
  py_json_append_string(out, to_string(r.token_source));
  append_key(out, "aborted");
  out += r.aborted ? "true" : "false";
  out += '}';
  return out;
}

RunOutputs::RunOutputs(const RunConfig& cfg, const RunContext& ctx) : cfg_(cfg), ctx_(ctx) {
  std::error_code ec;  // a folder that cannot be made shows up as the open/write error below
  for (const std::string& file : {cfg_.output_json, cfg_.requests_jsonl}) {
    const fs::path parent = fs::path(file).parent_path();
    if (!file.empty() && !parent.empty()) fs::create_directories(parent, ec);
  }
  write_sweep(false);  // an unwritable --output-json fails now, not after the first stage
  if (cfg_.requests_jsonl.empty()) return;
  jsonl_ = std::fopen(cfg_.requests_jsonl.c_str(), "w");
  if (!jsonl_) throw UserError(fmt::format("--requests-jsonl: cannot write {}: {}", cfg_.requests_jsonl,
                                           std::strerror(errno)));
  written_.push_back(cfg_.requests_jsonl);
}

RunOutputs::~RunOutputs() {
  if (jsonl_) std::fclose(jsonl_);
}

void RunOutputs::append_record(std::size_t stage, const std::string& request_id, const RequestRecord& r) {
  if (!jsonl_) return;
  std::lock_guard<std::mutex> lk(jsonl_mu_);
  line_ = request_jsonl_line(stage, request_id, r);
  line_ += '\n';
  std::fwrite(line_.data(), 1, line_.size(), jsonl_);
  std::fflush(jsonl_);
}

void RunOutputs::stage_done(const StageSummary& s, const std::vector<RequestRecord>& records) {
  stages_.push_back(s);
  write_sweep(s.aborted);
  if (cfg_.save_result) write_vllm_file(s, records);
}

void RunOutputs::finish(bool aborted) { write_sweep(aborted); }

void RunOutputs::write_sweep(bool aborted) {
  if (cfg_.output_json.empty()) return;
  SweepMeta meta;
  meta.created_unix_s = static_cast<std::int64_t>(std::time(nullptr));
  meta.aborted = aborted;
  if (!cfg_.requests_jsonl.empty()) meta.requests_file = relative_to_doc(cfg_.requests_jsonl, cfg_.output_json);
  write_sweep_json(cfg_.output_json, sweep_json(ctx_, stages_, meta));
  if (std::find(written_.begin(), written_.end(), cfg_.output_json) == written_.end())
    written_.push_back(cfg_.output_json);
}

void RunOutputs::write_vllm_file(const StageSummary& s, const std::vector<RequestRecord>& records) {
  VllmStageOptions opt;
  opt.metrics = vllm_selected_metrics(cfg_.percentile_metrics, s.load);
  opt.percentiles = cfg_.metric_percentiles;
  opt.date = vllm_date(static_cast<std::int64_t>(s.end_unix_s));
  opt.records = &records;
  opt.save_detailed = cfg_.save_detailed;
  std::string name = vllm_result_filename(ctx_, s.load, opt.date);
  if (cfg_.result_filename) {
    name = *cfg_.result_filename;
    // Several stages cannot share one name: the stage index goes before the extension.
    if (ctx_.load_values.size() > 1) {
      fs::path p(name);
      name = (p.parent_path() / fmt::format("{}-stage{}{}", p.stem().string(), s.stage_index,
                                            p.extension().string())).string();
    }
  }
  const fs::path path = cfg_.result_dir.empty() ? fs::path(name) : fs::path(cfg_.result_dir) / name;
  write_vllm_result(path.string(), vllm_stage_json(ctx_, s, opt), false);
  written_.push_back(path.string());
}

}  // namespace sb::cli
