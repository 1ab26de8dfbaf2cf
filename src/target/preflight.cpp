#include "target/preflight.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "protocol/models.hpp"
#include "target/engine_probe.hpp"

namespace sb {

namespace {

[[noreturn]] void fail(std::string msg) { throw UserError(std::move(msg), ExitCode::unreachable); }

std::string key_hint(const PreflightInput& in) {
  if (in.api_key_source.empty())
    return "no API key was sent: set OPENAI_API_KEY, --api-key-env NAME or api_key in the config file";
  return "the key came from " + in.api_key_source + "; check that it is valid for this server";
}

std::string join_ids(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out.empty() ? "(none)" : out;
}

// Non-2xx other than 401/403: fatal without --model (nothing to pick from), else a warning.
PreflightResult tolerate_missing_list(const PreflightInput& in, const HttpReply& reply, const std::string& url) {
  if (!in.model) {
    fail(fmt::format("GET {} answered HTTP {} {}: cannot pick a model; pass --model", url, reply.status,
                     reply.reason));
  }
  PreflightResult r;
  r.model_id = *in.model;
  r.warnings.push_back(fmt::format("GET {} answered HTTP {} {}; continuing with --model {} unchecked", url,
                                   reply.status, reply.reason, *in.model));
  return r;
}

}  // namespace

PreflightResult check_models_reply(const PreflightInput& in, const HttpReply& reply) {
  const std::string url = in.endpoint.url("/v1/models");
  if (reply.status == 401 || reply.status == 403) {
    fail(fmt::format("GET {} answered HTTP {}: the server refused the API key ({})", url, reply.status,
                     key_hint(in)));
  }
  if (reply.status < 200 || reply.status >= 300) return tolerate_missing_list(in, reply, url);
  const auto models = parse_models(reply.body, "GET " + url);
  PreflightResult r;
  for (const ServedModel& m : models) r.served_ids.push_back(m.id);
  if (models.empty() && !in.model) fail(fmt::format("GET {} lists no model; pass --model", url));
  if (!in.model) {
    r.model_id = models.front().id;
    r.model_root = models.front().root;
    r.server_time_scale = models.front().time_scale;
    return r;
  }
  for (const ServedModel& m : models) {
    if (m.id == *in.model) {
      r.model_id = m.id;
      r.model_root = m.root;
      r.server_time_scale = m.time_scale;
      return r;
    }
  }
  fail(fmt::format("model '{}' is not served by {}; served: {}", *in.model, in.endpoint.url(""),
                   join_ids(r.served_ids)));
}

PreflightResult preflight(const PreflightInput& in) {
  const HttpReply models = http_call(in.endpoint, "GET", "/v1/models", in.headers, "", in.timeout_s);
  PreflightResult r = check_models_reply(in, models);
  const EngineProbeInput probe{in.endpoint, in.headers, in.engine, std::min(in.engine_probe_timeout_s, in.timeout_s)};
  r.engine = detect_engine(probe, models);
  return r;
}

}  // namespace sb
