#include "predict/prediction_source.hpp"

#include <nlohmann/json.hpp>

#include "predict/fit_params.hpp"

namespace sb::predict {

std::string prediction_source_json(const PredictionSource& s) {
  const sim::EngineConfig& c = *s.engine;
  nlohmann::ordered_json j;
  j["generator"] = "servebench predict";
  j["model_preset"] = s.model_preset;
  j["gpu_preset"] = s.gpu_preset;
  j["engine_config"] = s.engine_config.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.engine_config);
  j["tensor_parallel_size"] = c.hardware.tensor_parallel;
  j["max_num_seqs"] = c.scheduler.max_num_seqs;
  j["max_num_batched_tokens"] = c.scheduler.max_num_batched_tokens;
  j["enable_chunked_prefill"] = c.scheduler.chunked_prefill;
  j["time_scale"] = c.time_scale;
  nlohmann::ordered_json cost;
  for (const FitParam& p : fit_params()) cost[std::string(p.name)] = p.get(c);
  j["cost"] = std::move(cost);
  return j.dump();
}

}  // namespace sb::predict
