#include "cli/run_pipeline.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <limits>
#include <memory>
#include <strings.h>

#include "cli/run_config_json.hpp"
#include "cli/run_console.hpp"
#include "cli/run_outputs.hpp"
#include "cli/run_progress.hpp"
#include "core/error.hpp"
#include "dataset/dataset.hpp"
#include "exec/preflight.hpp"
#include "exec/runner.hpp"
#include "load/schedule.hpp"
#include "load/staircase.hpp"
#include "metrics/summarize.hpp"
#include "protocol/request_builder.hpp"
#include "report/run_context.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::cli {

namespace {

// Ctrl-C: the handler only flips flags (both async-signal-safe); the pipeline notices between
// stages, the runner within a few ms.
std::atomic<Runner*> g_runner{nullptr};
volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int) {
  g_stop = 1;
  if (Runner* r = g_runner.load()) r->request_stop();
}

class SignalScope {
 public:
  explicit SignalScope(bool enabled) : enabled_(enabled) {
    g_stop = 0;
    if (!enabled_) return;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalScope() {
    if (!enabled_) return;
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  bool enabled_;
  struct sigaction old_int_ {}, old_term_ {};
};

// Authorization first (vLLM order), then --header pairs, which replace a header of the same name.
HeaderList request_headers(const RunConfig& c) {
  HeaderList h;
  if (!c.api_key.empty()) h.emplace_back("Authorization", "Bearer " + c.api_key);
  for (const auto& [name, value] : c.headers) {
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

struct Prepared {
  std::unique_ptr<Tokenizer> tokenizer;
  Dataset dataset;
  std::vector<std::string> bodies;
  Staircase staircase;
  RunContext ctx;
};

void note(const PipelineIo& io, const std::string& line) { std::fprintf(io.err, "%s\n", line.c_str()); }

PreflightResult run_preflight(const RunConfig& cfg, const PipelineIo& io) {
  PreflightInput in;
  in.endpoint = cfg.endpoint;
  in.headers = request_headers(cfg);
  in.api_key_source = cfg.api_key_source;
  in.model = cfg.served_model_name ? cfg.served_model_name : cfg.model;
  in.timeout_s = std::min(cfg.timeout_s, 30.0);
  PreflightResult r = preflight(in);
  for (const std::string& w : r.warnings) note(io, "warning: " + w);
  return r;
}

std::vector<std::string> build_bodies(const RunConfig& cfg, const std::string& model, const Dataset& ds) {
  RequestOptions opt;
  opt.api = cfg.api;
  opt.model = model;
  opt.ignore_eos = cfg.ignore_eos;
  opt.logprobs = cfg.logprobs;
  opt.sampling_json = cfg.sampling_json;
  opt.extra_body_json = cfg.extra_body_json;
  std::vector<std::string> bodies;
  bodies.reserve(ds.requests.size());
  for (const RequestSpec& spec : ds.requests) bodies.push_back(build_request_body(opt, spec));
  return bodies;
}

StaircaseParams staircase_params(const RunConfig& cfg, int num_requests) {
  StaircaseParams p;
  p.concurrency = cfg.concurrency;
  p.request_rates = cfg.request_rates;
  p.max_concurrency = cfg.max_concurrency;
  p.burstiness = cfg.burstiness;
  p.num_prompts = num_requests;
  return p;
}

RunContext make_context(const RunConfig& cfg, const PreflightResult& pf, const Staircase& sc) {
  RunContext ctx;
  ctx.backend = cfg.backend;
  ctx.label = cfg.label;
  // vLLM [N]: model_id is --model, else the served entry's root (the model path), else its id.
  ctx.model_id = cfg.model ? *cfg.model : (pf.model_root.empty() ? pf.model_id : pf.model_root);
  ctx.served_model_name = pf.model_id;
  ctx.tokenizer_id = cfg.tokenizer.value_or("");
  ctx.base_url = cfg.base_url;
  ctx.endpoint = cfg.endpoint_path;
  ctx.num_prompts = cfg.dataset.num_prompts;
  ctx.load_mode = sc.mode;
  for (const StagePlan& s : sc.stages) ctx.load_values.push_back(s.load_value);
  ctx.metric_percentiles = cfg.metric_percentiles;
  ctx.percentile_metrics = cfg.percentile_metrics;
  ctx.goodput_slo_ms = cfg.goodput_slo_ms;
  ctx.metadata = cfg.metadata;
  ctx.config_json = redacted_config_json(cfg, ctx.model_id);
  ctx.clock_anchor = ClockAnchor::now();
  ctx.client_threads = cfg.client_threads;
  fill_environment(ctx);
  return ctx;
}

Prepared prepare(const RunConfig& cfg, const PipelineIo& io) {
  Prepared p;
  const PreflightResult pf = run_preflight(cfg, io);
  if (cfg.tokenizer) p.tokenizer = Tokenizer::load(*cfg.tokenizer);
  p.dataset = load_dataset(cfg.dataset, p.tokenizer.get());
  for (const std::string& w : p.dataset.warnings) note(io, "warning: " + w);
  if (p.dataset.requests.empty()) throw UserError("the dataset produced no request");
  p.bodies = build_bodies(cfg, pf.model_id, p.dataset);
  p.staircase = plan_staircase(staircase_params(cfg, static_cast<int>(p.dataset.requests.size())));
  p.ctx = make_context(cfg, pf, p.staircase);
  return p;
}

ClientOptions client_options(const RunConfig& cfg) {
  ClientOptions o;
  o.endpoint = cfg.endpoint;
  o.path = cfg.endpoint_path;
  o.api = cfg.api;
  o.headers = request_headers(cfg);
  o.timeout_s = cfg.timeout_s;
  o.idle_timeout_s = cfg.idle_timeout_s;
  o.threads = cfg.client_threads;
  o.keep_text = cfg.save_detailed;
  return o;
}

}  // namespace
}  // namespace sb::cli

namespace sb::cli {

namespace {

std::string stage_label(const Staircase& sc, const StagePlan& plan) {
  const std::string value = plan.load_value == std::numeric_limits<double>::infinity()
                                ? "inf"
                                : fmt::format("{:g}", plan.load_value);
  return fmt::format("stage {}/{} {}={}", plan.index + 1, sc.stages.size(),
                     sc.mode == LoadMode::concurrency ? "concurrency" : "rate", value);
}

StageInput stage_input(const Prepared& p, const StagePlan& plan, std::uint64_t seed) {
  StageInput in;
  in.stage_index = plan.index;
  in.bodies = &p.bodies;
  const std::size_t n = static_cast<std::size_t>(plan.num_requests);
  const bool several = p.staircase.stages.size() > 1;
  for (std::size_t i = 0; i < n; ++i) {
    const RequestSpec& spec = p.dataset.requests[i];
    // Ids stay unique across stages: a server may reject a request id it has seen in flight.
    in.request_ids.push_back(several ? fmt::format("{}-s{}", spec.request_id, plan.index) : spec.request_id);
    in.dataset_prompt_tokens.push_back(spec.prompt_tokens);
    in.expected_output_tokens.push_back(spec.max_tokens);
  }
  in.offsets_ns = make_schedule({n, plan.load.request_rate, plan.load.burstiness, seed});
  in.max_concurrency = plan.load.max_concurrency;
  return in;
}

// vLLM's warm-up: K copies of the first request under the first stage's limit; results ignored.
void run_warmups(const RunConfig& cfg, const Prepared& p, Runner& runner, const PipelineIo& io) {
  if (cfg.num_warmups <= 0) return;
  std::vector<std::string> bodies(static_cast<std::size_t>(cfg.num_warmups), p.bodies.front());
  StageInput in;
  in.bodies = &bodies;
  for (int i = 0; i < cfg.num_warmups; ++i) {
    in.request_ids.push_back(fmt::format("{}warmup-{}", cfg.dataset.request_id_prefix, i));
    in.dataset_prompt_tokens.push_back(p.dataset.requests.front().prompt_tokens);
    in.expected_output_tokens.push_back(p.dataset.requests.front().max_tokens);
  }
  in.offsets_ns.assign(bodies.size(), 0);
  in.max_concurrency = p.staircase.stages.front().load.max_concurrency;
  StageOutput out = runner.run_stage(in, {}, {});
  int failed = 0;
  for (const RequestRecord& r : out.records) failed += r.ok() ? 0 : 1;
  note(io, fmt::format("Warm-up: {} requests, {} failed", cfg.num_warmups, failed));
}

StageSummary summarize_stage(const RunConfig& cfg, const Prepared& p, const StagePlan& plan,
                             const StageOutput& out) {
  SummarizeParams sp;
  sp.stage_index = plan.index;
  sp.load = plan.load;
  sp.num_prompts = plan.num_requests;
  sp.percentiles = cfg.metric_percentiles;
  sp.goodput_slo_ms = cfg.goodput_slo_ms;
  sp.duration_ns = out.end_ns;
  sp.anchor = p.ctx.clock_anchor;
  sp.t0_ns = out.t0_ns;
  sp.aborted = out.aborted;
  return summarize(out.records, sp);
}

bool too_many_failures(const RunConfig& cfg, const StageSummary& s) {
  return cfg.max_failure_ratio && s.sent > 0 &&
         static_cast<double>(s.failed) / s.sent > *cfg.max_failure_ratio;
}

struct StageRun {
  StageSummary summary;
  bool stop = false;
};

StageRun run_one_stage(const RunConfig& cfg, const Prepared& p, const StagePlan& plan, Runner& runner,
                       RunOutputs& outputs, const PipelineIo& io) {
  const StageInput in = stage_input(p, plan, cfg.dataset.seed);
  const std::string label = stage_label(p.staircase, plan);
  print_stage_header(io.out, plan.load);
  ProgressLine progress(io.err, io.progress && !cfg.disable_tqdm && isatty(fileno(io.err)));
  auto on_record = [&](const RequestRecord& r) { outputs.append_record(plan.index, in.request_ids[r.index], r); };
  auto on_progress = [&](const Progress& pr) { progress.update(label, pr); };
  StageOutput out = runner.run_stage(in, on_record, on_progress);
  progress.clear();
  StageRun run;
  run.summary = summarize_stage(cfg, p, plan, out);
  outputs.stage_done(run.summary, out.records);
  print_stage_summary(io.out, p.ctx, run.summary);
  print_failure_note(io.err, run.summary);
  run.stop = out.aborted || g_stop != 0;
  return run;
}

}  // namespace

RunResult run_pipeline(const RunConfig& cfg, const PipelineIo& io) {
  SignalScope signals(io.handle_signals);
  Prepared p = prepare(cfg, io);
  RunResult result;
  result.model_id = p.ctx.model_id;
  RunOutputs outputs(cfg, p.ctx);
  Runner runner(client_options(cfg));
  g_runner.store(&runner);
  struct Unregister {
    ~Unregister() { g_runner.store(nullptr); }
  } unregister;
  if (g_stop == 0) run_warmups(cfg, p, runner, io);
  bool failures = false;
  for (const StagePlan& plan : p.staircase.stages) {
    if (g_stop != 0) break;
    StageRun run = run_one_stage(cfg, p, plan, runner, outputs, io);
    failures = failures || too_many_failures(cfg, run.summary);
    result.stages.push_back(std::move(run.summary));
    if (run.stop) break;
  }
  result.aborted = g_stop != 0;
  outputs.finish(result.aborted);
  print_staircase_table(io.out, p.ctx, result.stages);
  for (const std::string& path : outputs.written()) note(io, "wrote " + path);
  if (result.aborted) {
    note(io, "aborted: outputs written and marked \"aborted\": true");
    result.code = ExitCode::aborted;
  } else if (failures) {
    note(io, fmt::format("failed: a stage's failure ratio exceeded --max-failure-ratio {}", *cfg.max_failure_ratio));
    result.code = ExitCode::too_many_failures;
  }
  return result;
}

}  // namespace sb::cli
