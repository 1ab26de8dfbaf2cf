// `servebench sim`: flag table -> sim::ServerOptions + a Backend, then serve until SIGINT/SIGTERM.
// The only CLI11 translation unit of the simulator (CLI11 costs ~6 s of compile per TU).
#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/sim_engine_flags.hpp"
#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "net/rlimit.hpp"
#include "sim/fixed_cost.hpp"
#include "sim/presets.hpp"
#include "sim/server.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::cli {
namespace {

struct SimFlags {
  sim::ServerOptions server;
  sim::FixedCostOptions fixed;
  EngineFlags engine;
  std::string cost = "fixed";
  std::string tokenizer_path;
  std::string dialect = "vllm";
};

void add_server_flags(CLI::App& app, SimFlags& f) {
  auto& s = f.server;
  app.add_option("--host", s.host, "address to listen on")->capture_default_str();
  app.add_option("--port", s.port, "port; 0 picks a free one (printed on the first stdout line)")
      ->capture_default_str();
  app.add_flag("--reuse-port", s.reuse_port,
               "share the port with other simulators started with this flag; the kernel spreads new "
               "connections over them (a load check beyond one simulator thread, docs/sim.md)");
  app.add_option("--served-model-name", s.served_model_name,
                 "model id served by /v1/models and accepted in requests (default: the model preset's name "
                 "with --cost engine, else sim-model)");
  app.add_option("--model", s.model_root, "model path reported as \"root\" in /v1/models (default: the served name)");
  app.add_option("--max-model-len", s.max_model_len, "prompt + max_tokens limit (400 above it; 0 = none)")
      ->capture_default_str()->check(CLI::Range(0, 1 << 30));
  app.add_option("--default-max-tokens", s.default_max_tokens, "output length when a request sets none")
      ->capture_default_str()->check(CLI::Range(1, 1 << 30));
  app.add_option("--api-key", s.api_key, "require 'Authorization: Bearer KEY' on /v1/* (401 otherwise)");
  app.add_flag("--usage-in-last-chunk", s.usage_in_last_chunk,
               "put usage into the last choices chunk (always) instead of a separate usage chunk");
  app.add_option("--dialect", f.dialect,
                 "vllm, or llama.cpp: also send llama.cpp's per-request `timings` (prefill and decode times)")
      ->capture_default_str()->check(CLI::IsMember({"vllm", "llama.cpp"}));
  app.add_option("--tokenizer", f.tokenizer_path,
                 "tokenizer.json (or its folder): exact prompt token counts, enables /tokenize and /detokenize");
  app.add_option("--token-log", s.token_log_path, "write every token's server send time to FILE (docs/sim.md)");
  app.add_option("--seed", s.seed, "seed of every random draw (faults, EOS, jitter, filler text)")
      ->capture_default_str();
}

void add_cost_flags(CLI::App& app, SimFlags& f) {
  auto& c = f.fixed;
  app.add_option("--cost", f.cost, "fixed: deterministic TTFT/ITL (tests); engine: continuous-batching GPU model")
      ->capture_default_str()->check(CLI::IsMember({"fixed", "engine"}));
  app.add_option("--ttft-ms", c.ttft_ms, "fixed: time to first token, ms")->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--prefill-us-per-token", c.prefill_us_per_token, "fixed: extra TTFT per prompt token, us")
      ->capture_default_str()->check(CLI::Range(0.0, 1e9));
  app.add_option("--itl-ms", c.itl_ms, "fixed: time between tokens, ms")->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--jitter-ms", c.jitter_ms, "fixed: each token delayed by U[0, D] ms")->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--max-concurrency", c.max_concurrency, "fixed: requests beyond N wait in FIFO (0 = unlimited)")
      ->capture_default_str()->check(CLI::Range(0, 1 << 30));
  app.add_option("--eos-prob", c.eos_prob,
                 "fixed: per-token EOS probability unless ignore_eos (0 = always max_tokens)")
      ->capture_default_str()->check(CLI::Range(0.0, 0.999999));
}

void add_fault_flags(CLI::App& app, SimFlags& f) {
  auto& x = f.server.faults;
  app.add_option("--fail-ratio", x.fail_ratio, "fraction of requests answered with --fail-status")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  app.add_option("--fail-status", x.fail_status, "HTTP status of failed requests")->capture_default_str()
      ->check(CLI::IsMember({500, 503, 429}));
  app.add_option("--drop-ratio", x.drop_ratio, "fraction of streams whose connection is closed after 1-3 tokens")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  app.add_option("--malformed-ratio", x.malformed_ratio, "fraction of streams with one invalid-JSON event")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
}

// The flags given on the command line among app's options [from, to).
std::vector<std::string> given_flags(const CLI::App& app, std::size_t from, std::size_t to) {
  std::vector<std::string> out;
  const auto options = app.get_options();
  for (std::size_t i = from; i < to && i < options.size(); ++i) {
    if (options[i]->count() > 0) out.push_back(options[i]->get_name());
  }
  return out;
}

// Each cost model has its own flags; the other model's are never ignored in silence. An engine
// flag without --cost selects the engine (`sim --model-preset llama-3-8b` means the engine); one
// that contradicts --cost, or flags of both models, are errors naming the flags.
void choose_cost_model(const CLI::App& app, SimFlags& f, const std::vector<std::string>& fixed_given,
                       const std::vector<std::string>& engine_given) {
  const bool cost_given = app.count("--cost") > 0;
  if (!engine_given.empty() && !fixed_given.empty()) {
    throw UserError(fixed_given.front() + " is a flag of --cost fixed and " + engine_given.front() +
                    " one of --cost engine: give the flags of one cost model");
  }
  if (!engine_given.empty()) {
    if (cost_given && f.cost == "fixed") {
      throw UserError(engine_given.front() + " is a flag of the engine model: it needs --cost engine (got --cost fixed)");
    }
    f.cost = "engine";
  }
  if (!fixed_given.empty() && f.cost == "engine") {
    throw UserError(fixed_given.front() + " is a flag of --cost fixed: the engine model derives TTFT and ITL "
                    "from the model and GPU (got --cost engine)");
  }
}

}  // namespace

int sim_cmd(int argc, char** argv) {
  CLI::App app{"servebench sim: an OpenAI-compatible simulated LLM server", "servebench sim"};
  SimFlags f;
  f.fixed.ttft_ms = 50;
  f.fixed.itl_ms = 10;
  add_server_flags(app, f);
  const std::size_t fixed_from = app.get_options().size() + 1;  // after --cost, the first cost flag
  add_cost_flags(app, f);
  const std::size_t fixed_to = app.get_options().size();
  add_fault_flags(app, f);
  const std::size_t engine_from = app.get_options().size();
  add_engine_flags(app, f.engine);
  // `servebench calibrate -o fitted.toml` suggests `sim --config fitted.toml`: the same file.
  app.add_option("--config", f.engine.engine_config, "Alias of --engine-config")->check(CLI::ExistingFile);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : to_int(ExitCode::config_error);
  }
  if (f.engine.list_presets) {
    std::fputs(sim::format_presets().c_str(), stdout);
    return to_int(ExitCode::ok);
  }
  std::vector<std::string> engine_given = given_flags(app, engine_from, app.get_options().size());
  std::erase(engine_given, "--list-presets");
  choose_cost_model(app, f, given_flags(app, fixed_from, fixed_to), engine_given);
  f.server.dialect = f.dialect == "llama.cpp" ? sim::Dialect::llama_cpp : sim::Dialect::vllm;
  f.fixed.seed = f.server.seed;
  f.server.faults.seed = f.server.seed;
  if (app.count("--max-model-len") > 0) f.engine.knobs.set("engine.max_model_len", f.server.max_model_len);
  if (f.cost == "engine") {
    // Like vLLM, serve the model under its own name and its own context length unless told
    // otherwise, so the server refuses (400) what the engine could never run.
    const sim::EngineConfig config = resolve_engine_config(f.engine);
    if (app.count("--served-model-name") == 0) f.server.served_model_name = config.hardware.model.name;
    if (app.count("--max-model-len") == 0)
      f.server.max_model_len = config.max_model_len > 0 ? config.max_model_len : config.hardware.model.max_model_len;
  }
  std::unique_ptr<sim::Backend> backend = f.cost == "engine" ? make_engine_backend(f.engine)
                                                             : std::make_unique<sim::FixedCostBackend>(f.fixed);
  if (!f.tokenizer_path.empty()) f.server.tokenizer = Tokenizer::load(f.tokenizer_path);
  // Tests hold thousands of connections: take up to 65536 descriptors, as many as the hard limit
  // allows. Too low a limit only caps the connections, so warn, don't refuse.
  rlimit lim{};
  const std::uint64_t hard = getrlimit(RLIMIT_NOFILE, &lim) == 0 ? lim.rlim_max : 1024;
  try {
    raise_nofile_limit(std::min<std::uint64_t>(1 << 16, hard));
  } catch (const UserError& e) {
    std::fprintf(stderr, "servebench sim: warning: %s\n", e.what());
  }
  const std::string host = f.server.host;
  sim::Server server(std::move(f.server), std::move(backend));
  server.run([&] {
    std::printf("listening on http://%s:%u\n", host.c_str(), static_cast<unsigned>(server.port()));
    std::fflush(stdout);
  });
  return to_int(ExitCode::ok);
}

}  // namespace sb::cli
