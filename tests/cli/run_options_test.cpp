// `servebench run` option parsing: vLLM names and defaults, lists, precedence flag > file > env,
// every error reported at once.
#include "cli/run_options.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli/run_flags.hpp"
#include "core/error.hpp"

namespace sb::cli {
namespace {

struct Fixture {
  std::map<std::string, std::string> env;
  std::string dir;

  Fixture() {
    dir = (std::filesystem::temp_directory_path() / ("sb_run_opts_" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    std::filesystem::remove(dir + "/servebench.toml");
  }
  ~Fixture() { std::filesystem::remove_all(dir); }

  void write_toml(const std::string& text, const std::string& name = "servebench.toml") const {
    std::ofstream(dir + "/" + name) << text;
  }
  RunConfig parse(std::vector<std::string> args) const {
    ParseInput in;
    in.args = std::move(args);
    auto env_copy = env;
    in.env = [env_copy](const std::string& k) -> std::optional<std::string> {
      auto it = env_copy.find(k);
      if (it == env_copy.end()) return std::nullopt;
      return it->second;
    };
    in.cwd = dir;
    auto cfg = parse_run_options(in);
    EXPECT_TRUE(cfg.has_value());
    return *cfg;
  }
  std::string error_of(std::vector<std::string> args) const {
    try {
      parse(std::move(args));
    } catch (const UserError& e) {
      EXPECT_EQ(e.code(), ExitCode::config_error);
      return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
  }
};

TEST(RunOptions, VllmDefaults) {
  Fixture f;
  RunConfig c = f.parse({});
  EXPECT_EQ(c.backend, "openai");
  EXPECT_EQ(c.client.api, Api::completions);
  EXPECT_EQ(c.client.endpoint.host, "127.0.0.1");
  EXPECT_EQ(c.client.endpoint.port, 8000);
  EXPECT_EQ(c.client.path, "/v1/completions");
  EXPECT_EQ(c.dataset.name, "random");
  EXPECT_EQ(c.dataset.num_prompts, 1000);
  EXPECT_EQ(c.dataset.random_input_len, 1024);
  EXPECT_EQ(c.dataset.random_output_len, 128);
  EXPECT_EQ(c.dataset.custom_output_len, 256);
  ASSERT_EQ(c.load.request_rates.size(), 1u);
  EXPECT_TRUE(std::isinf(c.load.request_rates[0]));
  EXPECT_TRUE(c.load.concurrency.empty());
  EXPECT_DOUBLE_EQ(c.load.burstiness, 1.0);
  EXPECT_DOUBLE_EQ(c.client.timeout_s, 21600);
  EXPECT_TRUE(c.request.ignore_eos);  // forced for the random dataset, as vLLM does
  EXPECT_EQ(c.percentile_metrics, (std::vector<std::string>{"ttft", "tpot", "itl"}));
  EXPECT_EQ(c.metric_percentiles, std::vector<double>{99});
  EXPECT_EQ(c.dataset.request_id_prefix.substr(0, 6), "bench-");
  EXPECT_EQ(c.dataset.request_id_prefix.size(), 15u);
  EXPECT_EQ(c.requests_jsonl, "");
  EXPECT_TRUE(c.api_key.empty());
}

TEST(RunOptions, ReadmeExampleWithListsAndUnderscores) {
  Fixture f;
  RunConfig c = f.parse({"--backend", "vllm", "--base-url", "http://localhost:8000", "--model", "/m/llama",
                         "--dataset-name", "custom", "--dataset_path", "d.jsonl", "--num_prompts", "2000",
                         "--request-rate", "inf", "--concurrency", "1", "4", "8", "16,32", "--output-json",
                         "out/result_1.json", "--custom-output-len", "-1"});
  EXPECT_EQ(c.load.concurrency, (std::vector<int>{1, 4, 8, 16, 32}));
  EXPECT_EQ(c.dataset.num_prompts, 2000);
  EXPECT_EQ(c.dataset.path, "d.jsonl");
  EXPECT_EQ(c.dataset.custom_output_len, -1);
  EXPECT_EQ(c.model, "/m/llama");
  EXPECT_EQ(c.base_url, "http://localhost:8000");
  EXPECT_FALSE(c.request.ignore_eos);
  EXPECT_EQ(c.requests_jsonl, "out/result_1.requests.jsonl");
}

TEST(RunOptions, RateListChatBackendAndSampling) {
  Fixture f;
  RunConfig c = f.parse({"--backend", "openai-chat", "--request-rate", "2", "4", "8.5", "--temperature", "0.7",
                         "--top-k", "20", "--header", "X-Team = infra", "--metric-percentiles", "50,99.9",
                         "--goodput", "ttft:500", "tpot:50", "--metadata", "gpu=h100", "k=a=b"});
  EXPECT_EQ(c.client.api, Api::chat);
  EXPECT_EQ(c.client.path, "/v1/chat/completions");
  EXPECT_EQ(c.load.request_rates, (std::vector<double>{2, 4, 8.5}));
  EXPECT_EQ(c.request.sampling_json, R"({"temperature":0.7,"top_k":20})");
  ASSERT_EQ(c.client.headers.size(), 1u);
  EXPECT_EQ(c.client.headers[0], (std::pair<std::string, std::string>{"X-Team", "infra"}));
  EXPECT_EQ(c.metric_percentiles, (std::vector<double>{50, 99.9}));
  EXPECT_EQ(c.goodput_slo_ms.at("ttft"), 500);
  EXPECT_EQ(c.goodput_slo_ms.at("tpot"), 50);
  ASSERT_EQ(c.metadata.size(), 2u);
  EXPECT_EQ(c.metadata[1].second, "a=b");  // split on the first '=' only
}

TEST(RunOptions, SamplingValuesAreSentAsJsonNumbers) {
  Fixture f;
  // Spellings the number parser accepts but JSON does not: they must not reach the request body.
  RunConfig c = f.parse({"--temperature", ".5", "--top-p", "1.", "--top-k", "020", "--min-p", "-0"});
  EXPECT_EQ(c.request.sampling_json, R"({"temperature":0.5,"top_p":1,"top_k":20,"min_p":-0})");
  const std::string msg = f.error_of({"--temperature", "hot", "--extra-body", "nope"});
  EXPECT_NE(msg.find("--temperature: 'hot' is not a number\n"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--extra-body: not a JSON object: nope"), std::string::npos) << msg;
}

TEST(RunOptions, AllErrorsReportedAtOnce) {
  Fixture f;
  std::string msg = f.error_of({"--num-prompts", "abc", "--backend", "tgi", "--dataset-name", "sharegpt",
                                "--goodput", "ttfb:3", "--extra-body", "[1]", "--bogus", "--port", "70000"});
  for (const char* part : {"--num-prompts: 'abc'", "--backend: 'tgi'", "--dataset-path: the sharegpt dataset needs",
                           "--goodput: 'ttfb:3'", "--extra-body", "'--bogus'", "--port: 70000"})
    EXPECT_NE(msg.find(part), std::string::npos) << part << "\nin: " << msg;
  EXPECT_NE(msg.find("7 problems"), std::string::npos) << msg;
}

TEST(RunOptions, ImpossibleStaircaseIsAConfigError) {
  Fixture f;
  EXPECT_NE(f.error_of({"--concurrency", "1", "2", "--request-rate", "1", "2"}).find("only one of them"),
            std::string::npos);
  EXPECT_NE(f.error_of({"--concurrency", "0"}).find("--concurrency: '0'"), std::string::npos);
  EXPECT_NE(f.error_of({"--endpoint", "/v1/chat/completions"})
                .find("--endpoint: '/v1/chat/completions' does not end in 'completions' as --backend openai needs"),
            std::string::npos);
  EXPECT_NE(f.error_of({"--timeout-s", "0"}).find("--timeout-s: must be > 0, got 0"), std::string::npos);
}

TEST(RunOptions, PrecedenceFlagOverFileOverEnv) {
  Fixture f;
  f.env["OPENAI_API_KEY"] = "sk-env";
  f.env["TEAM_KEY"] = "sk-team";
  f.write_toml("base_url = \"https://gateway.example/api\"\napi_key = \"sk-file\"\nmodel = \"file-model\"\n"
               "timeout_s = 30\nnum_prompts = 50\nconcurrency = [1, 2]\n");
  RunConfig c = f.parse({"--model", "flag-model"});
  EXPECT_EQ(c.model, "flag-model");                // flag beats file
  EXPECT_EQ(c.api_key, "sk-file");                 // file beats env
  EXPECT_EQ(c.api_key_source, "config file");
  EXPECT_DOUBLE_EQ(c.client.timeout_s, 30);
  EXPECT_EQ(c.dataset.num_prompts, 50);
  EXPECT_EQ(c.load.concurrency, (std::vector<int>{1, 2}));
  EXPECT_TRUE(c.client.endpoint.tls);
  EXPECT_EQ(c.client.endpoint.base_path, "/api");
  ASSERT_TRUE(c.config_path.has_value());
  c = f.parse({"--api-key-env", "TEAM_KEY"});      // an explicit flag beats the file's key
  EXPECT_EQ(c.api_key, "sk-team");
  std::filesystem::remove(f.dir + "/servebench.toml");
  c = f.parse({});
  EXPECT_EQ(c.api_key, "sk-env");
  EXPECT_EQ(c.api_key_source, "env OPENAI_API_KEY");
  EXPECT_NE(f.error_of({"--api-key-env", "NOPE"}).find("NOPE is not set"), std::string::npos);
}

TEST(RunOptions, BaseUrlEndingInV1IsNotDoubled) {
  Fixture f;
  for (const char* url : {"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/"}) {
    RunConfig c = f.parse({"--base-url", url});
    EXPECT_EQ(c.client.endpoint.base_path, "") << url;
    EXPECT_EQ(c.client.endpoint.url(c.client.path), "http://127.0.0.1:8000/v1/completions") << url;
    EXPECT_EQ(c.base_url, "http://127.0.0.1:8000") << url;
  }
  RunConfig c = f.parse({"--base-url", "https://gw.example/api/v1", "--backend", "openai-chat"});
  EXPECT_EQ(c.client.endpoint.url(c.client.path), "https://gw.example/api/v1/chat/completions");
  c = f.parse({"--base-url", "https://gw.example/v1", "--endpoint", "/completions"});  // no /v1 in the path: kept
  EXPECT_EQ(c.client.endpoint.url(c.client.path), "https://gw.example/v1/completions");
}

TEST(RunOptions, ThreadCapAndScheduleOverflowAreOneLineErrors) {
  Fixture f;
  EXPECT_EQ(f.error_of({"--client-threads", "100000"}),
            "--client-threads: must be <= 1024 (each is an OS thread with its own event loop), got 100000");
  const std::string e = f.error_of({"--request-rate", "1e-300"});
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_EQ(e.rfind("--request-rate: 1e-300 req/s for 1000 requests puts the last one", 0), 0u) << e;
}

TEST(RunOptions, DispatchSpinIsInMicrosecondsAndBounded) {
  Fixture f;
  EXPECT_EQ(f.parse({}).client.dispatch_spin_ns, 0);
  EXPECT_EQ(f.parse({"--dispatch-spin-us", "150"}).client.dispatch_spin_ns, 150'000);
  EXPECT_EQ(f.error_of({"--dispatch-spin-us", "5000"}), "--dispatch-spin-us: must be between 0 and 1000 µs, got 5000");
  EXPECT_EQ(f.error_of({"--dispatch-spin-us", "-1"}), "--dispatch-spin-us: must be between 0 and 1000 µs, got -1");
}

TEST(RunOptions, ExplicitConfigFileErrorsNameFileAndLine) {
  Fixture f;
  f.write_toml("num_prompts = 5\nwhat = 1\nseed = \"x\"\n", "bad.toml");
  std::string msg = f.error_of({"--config", f.dir + "/bad.toml"});
  EXPECT_NE(msg.find("bad.toml:2 (what): unknown key"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad.toml:3 (seed): 'x' is not an integer"), std::string::npos) << msg;
  f.write_toml("num_prompts = = 5\n", "syntax.toml");
  EXPECT_NE(f.error_of({"--config", f.dir + "/syntax.toml"}).find("syntax.toml:1:"), std::string::npos);
  EXPECT_NE(f.error_of({"--config", f.dir + "/missing.toml"}).find("missing.toml"), std::string::npos);
}

TEST(RunOptions, HelpReturnsNothing) {
  ParseInput in;
  in.args = {"--help"};
  testing::internal::CaptureStdout();
  EXPECT_FALSE(parse_run_options(in).has_value());
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("--concurrency"), std::string::npos);
}

}  // namespace
}  // namespace sb::cli

namespace sb::cli {
namespace {

TEST(RunOptions, RampUpAndCsv) {
  Fixture f;
  const RunConfig c = f.parse({"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "2",
                               "--ramp-up-end-rps", "32", "--concurrency", "4", "--csv", "t.csv"});
  EXPECT_EQ(c.load.ramp.kind, RampKind::exponential);
  EXPECT_EQ(c.load.ramp.start_rps, 2);
  EXPECT_EQ(c.load.ramp.end_rps, 32);
  EXPECT_EQ(c.csv, "t.csv");
  EXPECT_EQ(f.parse({}).load.ramp.kind, RampKind::none);
}

TEST(RunOptions, RampUpValidatedAsVllm) {
  Fixture f;
  auto has = [&](std::vector<std::string> args, const char* part) {
    const std::string msg = f.error_of(std::move(args));
    EXPECT_NE(msg.find(part), std::string::npos) << part << "\nin: " << msg;
  };
  has({"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1"}, "needs both --ramp-up-start-rps and");
  has({"--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5"}, "--ramp-up-start-rps: needs --ramp-up-strategy");
  has({"--ramp-up-strategy", "sine", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5"}, "'sine' is not one of");
  has({"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5", "--request-rate", "3"},
      "--request-rate: cannot be combined with --ramp-up-strategy");
  has({"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "9", "--ramp-up-end-rps", "5"},
      "must be finite and >= --ramp-up-start-rps");
  has({"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "5"},
      "must be > 0 for an exponential ramp-up");
  has({"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1.5", "--ramp-up-end-rps", "5"},
      "--ramp-up-start-rps");  // integers, as vLLM
}

}  // namespace
}  // namespace sb::cli

namespace sb::cli {
namespace {

TEST(RunOptions, LayerProblemsAreNamedByTheFlagThatSetTheField) {
  Fixture f;
  const std::string msg = f.error_of({"--num-prompts", "0", "--random-range-ratio", "1.5", "--output-len", "0",
                                      "--concurrency", "4", "--max-concurrency", "2", "--request-rate", "0",
                                      "--metric-percentiles", "101", "--max-failure-ratio", "2"});
  for (const char* line : {"--num-prompts: must be > 0, got 0\n", "--random-range-ratio: 1.5 is not in [0, 1)\n",
                           "--output-len: '0' is not an integer >= 1\n",
                           "--max-concurrency: --concurrency sets the concurrency limit too; use one\n",
                           "--request-rate: values must be > 0 or inf, got 0\n",
                           "--metric-percentiles: 101 is above 100\n",
                           "--max-failure-ratio: must be in [0, 1]"})
    EXPECT_NE(msg.find(line), std::string::npos) << line << "\nin: " << msg;
  EXPECT_NE(msg.find("7 problems"), std::string::npos) << msg;  // the two range ratios are one line
}

TEST(RunOptions, LayerProblemsFromTheFileNameFileAndLine) {
  Fixture f;
  f.write_toml("seed = 1\nnum_prompts = -3\n");
  EXPECT_EQ(f.error_of({}), f.dir + "/servebench.toml:2 (num_prompts): must be > 0, got -3");
}

TEST(RunOptions, EveryFieldValidateNamesHasAFlag) {
  RunConfig c;
  c.dataset.name = "x";
  c.dataset.num_prompts = 0;
  c.dataset.random_input_len = -1;
  c.dataset.random_output_len = 0;
  c.dataset.random_range_ratio_input = c.dataset.random_range_ratio_output = 2;
  c.dataset.random_prefix_len = -1;
  c.dataset.sharegpt_output_len = 0;
  c.dataset.custom_output_len = 0;
  c.load = {{1, 2}, {1, 2}, 0, 0, {RampKind::linear, -1, -2}};
  c.num_warmups = -1;
  c.percentile_metrics = {"x"};
  c.metric_percentiles = {200};
  c.max_failure_ratio = 3;
  c.request.extra_body_json = "[1]";
  c.client.path = "/v1/chat/completions";
  c.client.timeout_s = c.client.idle_timeout_s = 0;
  c.client.threads = -1;
  const Problems problems = pipeline::validate(c);
  EXPECT_GE(problems.size(), 23u);
  for (const Problem& p : problems) {
    if (p.field == "client.stop_grace_s") continue;  // not a flag: the pipeline's own setting
    EXPECT_FALSE(flags_for_field(p.field).empty()) << p.field;
  }
  EXPECT_EQ(flags_for_field("dataset.random_output_len").size(), 2u);  // --output-len, --random-output-len
}

}  // namespace
}  // namespace sb::cli
