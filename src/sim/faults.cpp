#include "sim/faults.hpp"

#include "core/error.hpp"
#include "protocol/json_text.hpp"

namespace sb::sim {
namespace {

void check_ratio(double r, const char* flag) {
  if (!(r >= 0.0 && r <= 1.0)) {
    throw UserError(std::string(flag) + ": must be between 0 and 1, got " + std::to_string(r));
  }
}

}  // namespace

FaultInjector::FaultInjector(const FaultOptions& opt) : opt_(opt) {
  check_ratio(opt.fail_ratio, "--fail-ratio");
  check_ratio(opt.drop_ratio, "--drop-ratio");
  check_ratio(opt.malformed_ratio, "--malformed-ratio");
  if (opt.fail_ratio + opt.drop_ratio + opt.malformed_ratio > 1.0 + 1e-12) {
    throw UserError("--fail-ratio + --drop-ratio + --malformed-ratio must not exceed 1");
  }
  if (opt.fail_status != 500 && opt.fail_status != 503 && opt.fail_status != 429) {
    throw UserError("--fail-status: must be 500, 503 or 429, got " + std::to_string(opt.fail_status));
  }
  enabled_ = opt.fail_ratio + opt.drop_ratio + opt.malformed_ratio > 0;
}

FaultPlan FaultInjector::pick(std::string_view request_key, int max_tokens) const noexcept {
  if (!enabled_) return {};
  const std::uint64_t h = hash_key(opt_.seed, request_key);
  const double u = unit_interval(h);
  // A second, independent draw for "how many tokens before the fault": 1, 2 or 3.
  int after = 1 + static_cast<int>(mix64(h) % 3);
  if (after > max_tokens) after = max_tokens < 1 ? 1 : max_tokens;
  if (u < opt_.fail_ratio) return {FaultKind::fail, 0};
  if (u < opt_.fail_ratio + opt_.drop_ratio) return {FaultKind::drop, after};
  if (u < opt_.fail_ratio + opt_.drop_ratio + opt_.malformed_ratio) return {FaultKind::malformed, after};
  return {};
}

std::string error_body(int status, std::string_view message) {
  std::string out = "{\"error\":{\"message\":";
  append_json_string(out, message);
  out += ",\"type\":\"";
  switch (status) {
    case 400: out += "BadRequestError"; break;
    case 401: out += "AuthenticationError"; break;
    case 404: out += "NotFoundError"; break;
    case 429: out += "RateLimitError"; break;
    case 503: out += "ServiceUnavailableError"; break;
    default: out += "InternalServerError"; break;
  }
  out += "\",\"param\":null,\"code\":";
  out += std::to_string(status);
  out += "}}";
  return out;
}

std::uint64_t mix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t hash_key(std::uint64_t seed, std::string_view key) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, then mixed with the seed
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return mix64(h ^ mix64(seed));
}

double unit_interval(std::uint64_t h) noexcept {
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace sb::sim
