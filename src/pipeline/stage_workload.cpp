#include "pipeline/stage_workload.hpp"

#include <algorithm>
#include <limits>

#include "target/server_tokenizer.hpp"

namespace sb::pipeline {

namespace {

// Rows kept for later stages of a file dataset: beyond this, stages re-use rows with a prefix.
constexpr std::size_t kMaxPoolPrompts = 65536;

// Drawing more of a generated dataset costs nothing but the drawing; its prompts share no prefix
// (token ids from random offsets, or words drawn one by one).
bool fresh_random_draws(const RunConfig& cfg) { return cfg.dataset.name == "random"; }

template <class T>
std::shared_ptr<const T> borrowed(const T& value) {
  return std::shared_ptr<const T>(std::shared_ptr<const void>(), &value);  // owns nothing
}

std::vector<RequestSpec> fresh_draws(const RunConfig& cfg, const Prepared& p, std::size_t stage, std::size_t n) {
  DatasetConfig d = cfg.dataset;
  d.seed = dataset::stage_seed(cfg.dataset.seed, stage);
  d.num_prompts = static_cast<int>(n);
  d.pool_prompts = 0;
  return load_for_run(d, p.tokenizer.get(), p.local_tokenizer).requests;
}

std::vector<RequestSpec> pool_rows(const RunConfig& cfg, const Prepared& p, std::size_t stage, std::size_t n,
                                   PromptSelection& selection) {
  const std::vector<RequestSpec>& head = p.dataset.requests;
  const std::vector<RequestSpec>& spare = p.dataset.spare;
  const std::size_t pool = head.size() + spare.size();
  const dataset::StageRows rows = dataset::stage_rows(pool, n, stage, cfg.dataset.reuse_prompts);
  selection = rows.selection;
  std::vector<RequestSpec> specs;
  specs.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t row = (rows.first + k) % pool;
    specs.push_back(row < head.size() ? head[row] : spare[row - head.size()]);
    if (selection == PromptSelection::unique_prefix)
      dataset::add_unique_prefix(specs.back(), stage, k, p.local_tokenizer ? p.tokenizer.get() : nullptr);
  }
  // The server's /tokenize counts the prefixed prompts in one batch (many calls in parallel).
  const auto* server = p.local_tokenizer ? nullptr : dynamic_cast<const ServerTokenizer*>(p.tokenizer.get());
  if (selection == PromptSelection::unique_prefix && server) recount_prompt_tokens(*server, specs);
  return specs;
}

}  // namespace

StageWorkload stage_workload(const RunConfig& cfg, const Prepared& p, std::size_t stage, std::size_t per_stage) {
  StageWorkload w;
  if (stage == 0 || cfg.dataset.reuse_prompts) {
    w.selection = cfg.dataset.reuse_prompts ? PromptSelection::reused : PromptSelection::disjoint;
    w.specs = borrowed(p.dataset.requests);
    w.bodies = borrowed(p.bodies);
    return w;
  }
  std::vector<RequestSpec> specs;
  if (fresh_random_draws(cfg)) {
    w.selection = PromptSelection::disjoint;
    specs = fresh_draws(cfg, p, stage, per_stage);
  } else {
    specs = pool_rows(cfg, p, stage, per_stage, w.selection);
  }
  w.bodies = std::make_shared<const std::vector<std::string>>(build_request_bodies(cfg, p.ctx.served_model_name, specs));
  w.specs = std::make_shared<const std::vector<RequestSpec>>(std::move(specs));
  return w;
}

int pool_prompts_for(const DatasetConfig& d, std::size_t stages) {
  const bool file_dataset = d.name == "sharegpt" || d.name == "custom";
  if (d.reuse_prompts || !file_dataset || d.num_prompts <= 0 || stages < 2) return 0;
  const std::size_t rows = std::min(static_cast<std::size_t>(d.num_prompts) * stages, kMaxPoolPrompts);
  return static_cast<int>(std::max(rows, static_cast<std::size_t>(d.num_prompts)));
}

}  // namespace sb::pipeline
