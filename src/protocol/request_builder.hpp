#pragma once
// Builds request bodies exactly as vLLM's client does (vllm/benchmarks/lib/endpoint_request_func.py,
// key order included), once per request before the run: no JSON building on the hot path.
#include <optional>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "dataset/request_spec.hpp"
#include "protocol/api.hpp"

namespace sb {

struct RequestOptions {
  Api api = Api::completions;
  std::string model;                     // served-model-name if set, else model id
  bool stream = true;
  bool ignore_eos = false;
  std::optional<int> logprobs;
  std::string sampling_json;             // JSON object text of the set sampling flags, "" if none
  std::string extra_body_json;           // --extra-body JSON object text, "" if none; merged last
};

// Every problem, by field: sampling_json and extra_body_json must be JSON objects (or empty).
Problems validate(const RequestOptions& opt);

// Throws sb::UserError if extra_body/sampling JSON is not an object.
std::string build_request_body(const RequestOptions& opt, const RequestSpec& spec);

}  // namespace sb
