#include "pipeline/run_config.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <random>

namespace sb::pipeline {

std::string random_request_id_prefix() {
  std::random_device rd;
  return fmt::format("bench-{:08x}-", rd());
}

std::string default_requests_path(const RunConfig& c) {
  namespace fs = std::filesystem;
  if (!c.output_json.empty()) {
    fs::path p(c.output_json);
    return (p.parent_path() / (p.stem().string() + ".requests.jsonl")).string();
  }
  if (c.save_result) {
    fs::path dir = c.result_dir.empty() ? fs::path(".") : fs::path(c.result_dir);
    return (dir / (c.label.value_or(c.backend) + ".requests.jsonl")).string();
  }
  return "";
}

}  // namespace sb::pipeline
