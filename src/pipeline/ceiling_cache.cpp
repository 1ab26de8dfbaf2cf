#include "pipeline/ceiling_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/atomic_file.hpp"
#include "report/client_use_json.hpp"

namespace sb::pipeline {
namespace {

using nlohmann::json;

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    return colon == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", colon + 1));
  }
  return "";
}

// A rebuilt binary has another size or mtime: its hot path may have changed.
std::string build_id() {
  std::string id = SB_VERSION;
  struct stat st {};
  if (::stat("/proc/self/exe", &st) == 0)
    id += " " + std::to_string(st.st_size) + " " + std::to_string(static_cast<long long>(st.st_mtime));
  return id;
}

json key_json(const CeilingKey& k) {
  return json{{"hostname", k.hostname}, {"cpu_model", k.cpu_model}, {"build", k.build}, {"threads", k.threads}};
}

json read_entries(const std::string& path) {
  std::ifstream in(path);
  if (!in) return json::array();
  std::stringstream ss;
  ss << in.rdbuf();
  json doc = json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array())
    return json::array();
  return doc["entries"];
}

}  // namespace

CeilingKey ceiling_key(int threads) {
  CeilingKey k;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) k.hostname = host;
  k.cpu_model = cpu_model_name();
  k.build = build_id();
  k.threads = threads;
  return k;
}

std::optional<ClientCeiling> read_ceiling_cache(const std::string& path, const CeilingKey& key, double now_unix_s,
                                                bool pinned) {
  const json entries = read_entries(path);
  std::optional<ClientCeiling> first;
  for (const json& e : entries) {
    if (!e.is_object()) continue;
    std::optional<ClientCeiling> c = report::ceiling_from_json(e.value("ceiling", json()));
    if (!c) continue;
    const json k = e.value("key", json());
    if (pinned) {
      c->source = CeilingSource::file;
      if (k.is_object() && k.value("threads", -1) == key.threads) return c;
      if (!first) first = c;
      continue;
    }
    if (k != key_json(key) || !(now_unix_s - c->measured_unix_s < kCeilingMaxAgeS) || c->measured_unix_s > now_unix_s)
      continue;
    c->source = CeilingSource::cache;
    return c;
  }
  return first;
}

bool write_ceiling_cache(const std::string& path, const CeilingKey& key, const ClientCeiling& c) {
  json kept = json::array();
  for (const json& e : read_entries(path))
    if (e.is_object() && e.value("key", json()) != key_json(key)) kept.push_back(e);
  kept.push_back(json{{"key", key_json(key)}, {"ceiling", report::ceiling_json(c)}});
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  try {
    report::write_file_atomic(path, json{{"kind", "servebench.selftest_cache"}, {"entries", kept}}.dump(2) + "\n");
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

}  // namespace sb::pipeline
