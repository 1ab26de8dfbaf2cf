// Tests for src/target/engine.cpp: the classifier on canned probe answers shaped as each engine
// answers (docs/engines.md), the order of its clues, and the names --engine and the results use.
#include "target/engine.hpp"

#include <gtest/gtest.h>

namespace sb {
namespace {

ProbeAnswer ok_json(std::string body) { return {200, std::move(body), ""}; }

EngineProbes models_only(std::string body) {
  EngineProbes p;
  p.models = ok_json(std::move(body));
  return p;
}

TEST(ClassifyEngine, OwnedByInTheModelsList) {
  const auto guess = [](const char* owner) {
    return classify_engine(models_only(std::string(R"({"object":"list","data":[{"id":"m","owned_by":")") + owner +
                                       R"(","root":"org/m","max_model_len":4096}]})"));
  };
  EXPECT_EQ(guess("vllm").engine, Engine::vllm);
  EXPECT_EQ(guess("sglang").engine, Engine::sglang);
  EXPECT_EQ(guess("llamacpp").engine, Engine::llamacpp);
  EXPECT_EQ(guess("vllm").clue, EngineClue::models_owned_by);
  // TGI names the model as its owner; OpenAI says "system" or an org: neither is a clue.
  EXPECT_EQ(guess("org/m").engine, Engine::openai);
  EXPECT_EQ(guess("system").clue, EngineClue::none);
}

TEST(ClassifyEngine, LlamaCppMetaObjectWithoutOwner) {
  const EngineGuess g = classify_engine(models_only(R"({"data":[{"id":"x.gguf","meta":{"n_vocab":32000,"n_ctx_train":4096}}]})"));
  EXPECT_EQ(g.engine, Engine::llamacpp);
  EXPECT_EQ(g.clue, EngineClue::models_meta);
}

TEST(ClassifyEngine, ServerHeaderNamesLlamaCpp) {
  EngineProbes p = models_only(R"({"data":[{"id":"m"}]})");
  p.models.server_header = "llama.cpp";
  EXPECT_EQ(classify_engine(p).clue, EngineClue::server_header);
  p.models.server_header = "uvicorn";  // vLLM and SGLang both: no clue
  EXPECT_EQ(classify_engine(p).engine, Engine::openai);
}

TEST(ClassifyEngine, EachEnginesOwnEndpoint) {
  EngineProbes p = models_only(R"({"data":[{"id":"m"}]})");
  p.props = ok_json(R"({"default_generation_settings":{"n_ctx":4096},"total_slots":4,"build_info":"b6500-abc"})");
  EngineGuess g = classify_engine(p);
  EXPECT_EQ(g.engine, Engine::llamacpp);
  EXPECT_EQ(g.clue, EngineClue::props);
  EXPECT_EQ(g.version, "b6500-abc");

  p = models_only(R"({"data":[{"id":"m"}]})");
  p.get_model_info = ok_json(R"({"model_path":"org/m","tokenizer_path":"org/m","is_generation":true})");
  EXPECT_EQ(classify_engine(p).engine, Engine::sglang);
  EXPECT_EQ(classify_engine(p).clue, EngineClue::get_model_info);

  p = models_only(R"({"data":[{"id":"m"}]})");
  p.get_server_info = ok_json(R"({"model_path":"org/m","tp_size":1,"version":"0.5.3"})");
  EXPECT_EQ(classify_engine(p).engine, Engine::sglang);
  EXPECT_EQ(classify_engine(p).version, "0.5.3");

  p = models_only(R"({"data":[{"id":"m"}]})");
  p.info = ok_json(R"({"model_id":"org/m","router":"text-generation-router","version":"3.3.6"})");
  g = classify_engine(p);
  EXPECT_EQ(g.engine, Engine::tgi);
  EXPECT_EQ(g.clue, EngineClue::info);
  EXPECT_EQ(g.version, "3.3.6");

  p = models_only(R"({"data":[{"id":"m"}]})");
  p.version = ok_json(R"({"version":"0.11.0"})");
  g = classify_engine(p);
  EXPECT_EQ(g.engine, Engine::vllm);
  EXPECT_EQ(g.clue, EngineClue::version);
  EXPECT_EQ(g.version, "0.11.0");
}

TEST(ClassifyEngine, LookAlikesAndErrorsAreNoClue) {
  EngineProbes p = models_only(R"({"data":[{"id":"m"}]})");
  p.props = {404, R"({"default_generation_settings":{}})", ""};         // an error status
  p.info = ok_json(R"({"model_id":"m","router":"my-router","version":"1"})");  // not TGI's router
  p.version = ok_json("0.11.0");                                          // not a JSON object
  p.get_model_info = ok_json(R"({"model_path":"m"})");                    // too little of SGLang's
  const EngineGuess g = classify_engine(p);
  EXPECT_EQ(g.engine, Engine::openai);
  EXPECT_EQ(g.clue, EngineClue::none);
  EXPECT_EQ(classify_engine(EngineProbes{}).engine, Engine::openai);  // nothing answered at all
}

TEST(ClassifyEngine, ModelsOwnerOutranksTheOtherProbes) {
  EngineProbes p = models_only(R"({"data":[{"id":"m","owned_by":"sglang"}]})");
  p.version = ok_json(R"({"version":"0.11.0"})");
  EXPECT_EQ(classify_engine(p).engine, Engine::sglang);
}

TEST(EngineNames, RoundTripAndAliases) {
  for (Engine e : {Engine::openai, Engine::vllm, Engine::sglang, Engine::tgi, Engine::llamacpp}) {
    EXPECT_EQ(parse_engine(engine_name(e)), e);
  }
  EXPECT_EQ(engine_name(Engine::llamacpp), "llama.cpp");
  EXPECT_EQ(parse_engine("llamacpp"), Engine::llamacpp);
  EXPECT_EQ(parse_engine("trt"), std::nullopt);
  EXPECT_EQ(clue_name(EngineClue::given), "given");
  EXPECT_EQ(clue_name(EngineClue::models_owned_by), "models.owned_by");
  EXPECT_EQ(clue_name(EngineClue::none), "none");
}

TEST(EngineProbeSlots, EveryPathHasItsOwnSlot) {
  EngineProbes p;
  int n = 0;
  for (std::string_view path : kEngineProbePaths) probe_slot(p, path).status = ++n;
  EXPECT_EQ(p.props.status, 1);
  EXPECT_EQ(p.get_model_info.status, 2);
  EXPECT_EQ(p.info.status, 3);
  EXPECT_EQ(p.version.status, 4);
  EXPECT_EQ(p.get_server_info.status, 5);
  EXPECT_EQ(p.models.status, 0);
}

}  // namespace
}  // namespace sb
