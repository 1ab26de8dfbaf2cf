#include "pipeline/run_prepare.hpp"

#include <fmt/format.h>
#include <strings.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "pipeline/run_config_json.hpp"
#include "pipeline/stage_workload.hpp"
#include "report/engine_text.hpp"
#include "report/time_scale_text.hpp"
#include "core/error.hpp"
#include "target/preflight.hpp"
#include "target/server_tokenizer.hpp"
#include "protocol/request_builder.hpp"

namespace sb::pipeline {

using report::RunContext;

void recount_prompt_tokens(const ServerTokenizer& tok, std::vector<RequestSpec>& specs) {
  std::vector<std::string_view> texts;
  texts.reserve(specs.size());
  for (const RequestSpec& s : specs) texts.push_back(s.prompt);
  const std::vector<std::size_t> counts = tok.count_many(texts, /*add_special_tokens=*/true);
  for (std::size_t i = 0; i < specs.size(); ++i) specs[i].prompt_tokens = static_cast<int>(counts[i]);
}

namespace {

void note(std::FILE* err, const std::string& line) { std::fprintf(err, "%s\n", line.c_str()); }

PreflightResult run_preflight(const RunConfig& cfg, std::FILE* err) {
  PreflightInput in;
  in.endpoint = cfg.client.endpoint;
  in.headers = request_headers(cfg);
  in.api_key_source = cfg.api_key_source;
  in.model = cfg.served_model_name ? cfg.served_model_name : cfg.model;
  in.timeout_s = std::min(cfg.client.timeout_s, 30.0);
  in.engine = cfg.engine;
  PreflightResult r = preflight(in);
  for (const std::string& w : r.warnings) note(err, "warning: " + w);
  note(err, report::format_engine_line(engine_name(r.engine.engine), clue_name(r.engine.clue), r.engine.version));
  return r;
}

// Without --tokenizer, the server's own /tokenize gives exact prompt lengths, asked in the shape of
// the engine preflight found (vLLM, SGLang, llama.cpp and TGI each serve one; `servebench sim
// --tokenizer` vLLM's); else lengths stay approximate, and the run says so.
std::unique_ptr<ServerTokenizer> server_tokenizer(const RunConfig& cfg, const PreflightResult& pf, std::FILE* err) {
  ServerTokenizerOptions opt;
  opt.engine = pf.engine.engine;
  opt.endpoint = cfg.client.endpoint;
  opt.headers = request_headers(cfg);
  opt.model = pf.model_id;
  opt.timeout_s = std::min(cfg.client.timeout_s, 30.0);
  ServerTokenizerProbe probe = probe_server_tokenizer_detailed(opt);
  if (!probe.tokenizer) {
    note(err, fmt::format("warning: no --tokenizer and the server cannot tokenize ({}): prompt token counts "
                          "are approximate; output counts come from usage or token events",
                          probe.unavailable_reason));
    return nullptr;
  }
  note(err, fmt::format("note: no --tokenizer: prompt lengths are counted by the server's /tokenize ({})",
                        probe.tokenizer->name()));
  return std::move(probe.tokenizer);
}

// The random dataset draws token ids, which a server tokenizer cannot give (no vocabulary): its
// word prompts (one token per word) are built one word short per special token the server adds,
// then recounted by the server, so the counted lengths are the requested ones.
Dataset load_with_server_tokenizer(const DatasetConfig& d, const ServerTokenizer& tok) {
  if (d.name != "random") return load_dataset(d, &tok);
  DatasetConfig words = d;
  const int specials = static_cast<int>(tok.num_special_tokens_to_add());
  words.random_input_len = std::max(1, words.random_input_len - specials);
  Dataset ds = load_dataset(words, nullptr);
  recount_prompt_tokens(tok, ds.requests);
  ds.warnings.clear();  // "lengths are approximate" no longer holds: the server counted them
  return ds;
}

}  // namespace

void fill_workload_context(const RunConfig& cfg, const Staircase& staircase, RunContext& ctx) {
  ctx.backend = cfg.backend;
  ctx.label = cfg.label;
  ctx.endpoint = cfg.client.path;
  ctx.num_prompts = cfg.dataset.num_prompts;
  ctx.load_mode = staircase.mode;
  for (const StagePlan& s : staircase.stages) ctx.load_values.push_back(s.load_value);
  ctx.metric_percentiles = cfg.metric_percentiles;
  ctx.percentile_metrics = cfg.percentile_metrics;
  ctx.goodput_slo_ms = cfg.goodput_slo_ms;
  if (cfg.load.ramp.kind != RampKind::none) {
    ctx.ramp_up_strategy = cfg.load.ramp.kind == RampKind::linear ? "linear" : "exponential";
    ctx.ramp_up_start_rps = cfg.load.ramp.start_rps;
    ctx.ramp_up_end_rps = cfg.load.ramp.end_rps;
  }
  ctx.metadata = cfg.metadata;
  ctx.config_json = redacted_config_json(cfg, ctx.model_id);
  ctx.clock_anchor = ClockAnchor::now();
  ctx.clocks_at_start = HostClocks::now();
}

namespace {

RunContext make_context(const RunConfig& cfg, const PreflightResult& pf, const Prepared& p) {
  RunContext ctx;
  // As vLLM benchmarks/serve.py: model_id is --model, else the served entry's root (the model path), else its id.
  ctx.model_id = cfg.model ? *cfg.model : (pf.model_root.empty() ? pf.model_id : pf.model_root);
  ctx.served_model_name = pf.model_id;
  ctx.engine = engine_name(pf.engine.engine);
  ctx.engine_clue = clue_name(pf.engine.clue);
  ctx.engine_version = pf.engine.version;
  ctx.tokenizer_id = p.tokenizer ? (cfg.tokenizer ? *cfg.tokenizer : p.tokenizer->name()) : "";
  ctx.base_url = cfg.base_url;
  fill_workload_context(cfg, p.staircase, ctx);
  ctx.client_threads = resolved_threads(cfg.client);
  ctx.client_ceiling = cfg.client_ceiling;
  ctx.server_time_scale = pf.server_time_scale;
  ctx.time_factor = cfg.wall_clock_times ? 1 : pf.server_time_scale;
  fill_environment(ctx);
  return ctx;
}

}  // namespace

Dataset load_for_run(const DatasetConfig& d, const Tokenizer* tokenizer, bool local) {
  if (local) return load_dataset(d, tokenizer);
  if (const auto* server = dynamic_cast<const ServerTokenizer*>(tokenizer)) return load_with_server_tokenizer(d, *server);
  return load_dataset(d, nullptr);
}

std::vector<std::string> build_request_bodies(const RunConfig& cfg, const std::string& model,
                                              const std::vector<RequestSpec>& specs) {
  RequestOptions opt = cfg.request;
  opt.api = cfg.client.api;
  opt.model = model;
  std::vector<std::string> bodies;
  bodies.reserve(specs.size());
  for (const RequestSpec& spec : specs) bodies.push_back(build_request_body(opt, spec));
  return bodies;
}

HeaderList request_headers(const RunConfig& c) {
  HeaderList h;
  if (!c.api_key.empty()) h.emplace_back("Authorization", "Bearer " + c.api_key);
  for (const auto& [name, value] : c.client.headers) {
    bool replaced = false;
    for (auto& [n, v] : h) {
      if (strcasecmp(n.c_str(), name.c_str()) == 0) {
        v = value;
        replaced = true;
      }
    }
    if (!replaced) h.emplace_back(name, value);
  }
  return h;
}

// Stages the staircase lists (the planner may add more: those re-use rows with a prefix).
std::size_t planned_stages(const StaircaseParams& load) {
  return load.concurrency.empty() ? load.request_rates.size() : load.concurrency.size();
}

Prepared prepare_run(const RunConfig& cfg, std::FILE* err) {
  Prepared p;
  const PreflightResult pf = run_preflight(cfg, err);
  // File datasets read the rows of later stages too, so that stages do not share prompts.
  RunConfig with_pool = cfg;
  with_pool.dataset.pool_prompts = pool_prompts_for(cfg.dataset, planned_stages(cfg.load));
  if (cfg.tokenizer) {
    p.tokenizer = Tokenizer::load(*cfg.tokenizer);
    p.local_tokenizer = true;
    p.dataset = load_dataset(with_pool.dataset, p.tokenizer.get());
  } else if (auto server = server_tokenizer(cfg, pf, err)) {
    p.dataset = load_with_server_tokenizer(with_pool.dataset, *server);
    p.tokenizer = std::move(server);
  } else {
    p.dataset = load_dataset(with_pool.dataset, nullptr);
  }
  for (const std::string& w : p.dataset.warnings) note(err, "warning: " + w);
  if (p.dataset.requests.empty()) throw UserError("the dataset produced no request");
  p.bodies = build_request_bodies(cfg, pf.model_id, p.dataset.requests);
  p.staircase = plan_staircase(cfg.load, static_cast<int>(p.dataset.requests.size()));
  p.ctx = make_context(cfg, pf, p);
  if (p.ctx.server_time_scale != 1) note(err, report::format_time_scale_note(p.ctx.server_time_scale, p.ctx.time_factor));
  return p;
}

}  // namespace sb::pipeline

namespace sb::pipeline {

namespace {

struct PrepareState {
  explicit PrepareState(const RunConfig& c) : cfg(c) {}
  const RunConfig cfg;  // a copy: the helper may outlive the caller's config
  std::mutex mu;
  std::condition_variable_any cv;
  bool done = false;
  std::optional<Prepared> result;
  std::exception_ptr error;
};

}  // namespace

std::optional<Prepared> prepare_until_stopped(const RunConfig& cfg, std::FILE* err, std::stop_token stop) {
  if (stop.stop_requested()) return std::nullopt;
  auto state = std::make_shared<PrepareState>(cfg);
  std::thread helper([state, err] {
    std::optional<Prepared> p;
    std::exception_ptr e;
    try {
      p = prepare_run(state->cfg, err);
    } catch (...) {
      e = std::current_exception();
    }
    std::lock_guard<std::mutex> lk(state->mu);
    state->result = std::move(p);
    state->error = e;
    state->done = true;
    state->cv.notify_all();
  });
  std::unique_lock<std::mutex> lk(state->mu);
  if (!state->cv.wait(lk, stop, [&] { return state->done; })) {
    lk.unlock();
    helper.detach();
    return std::nullopt;
  }
  lk.unlock();
  helper.join();
  if (state->error) std::rethrow_exception(state->error);
  return std::move(state->result);
}

}  // namespace sb::pipeline
