#include "load/shard.hpp"

#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace sb {

Problems validate(const ShardSpec& s) {
  Problems out;
  if (s.count < 1) out.push_back({"shard.count", fmt::format("{} shards: must be at least 1", s.count)});
  else if (s.index < 0 || s.index >= s.count)
    out.push_back({"shard.index", fmt::format("{} is not in 0..{}", s.index, s.count - 1)});
  return out;
}

namespace {

std::optional<int> parse_shard_int(std::string_view t) {
  int v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<ShardSpec> parse_shard(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::optional<int> index = parse_shard_int(text.substr(0, slash));
  const std::optional<int> count = parse_shard_int(text.substr(slash + 1));
  if (!index || !count) return std::nullopt;
  const ShardSpec s{*index, *count};
  if (!validate(s).empty()) return std::nullopt;
  return s;
}

int shard_concurrency(int limit, const ShardSpec& s) noexcept {
  return limit / s.count + (s.index < limit % s.count ? 1 : 0);
}

int shard_of_request(std::size_t i, std::optional<int> limit, int count) noexcept {
  const auto n = static_cast<std::size_t>(count);
  if (limit && *limit > 0) return static_cast<int>((i % static_cast<std::size_t>(*limit)) % n);
  return static_cast<int>(i % n);
}

std::vector<std::size_t> shard_requests(std::size_t n, std::optional<int> limit, const ShardSpec& s) {
  std::vector<std::size_t> out;
  out.reserve(n / static_cast<std::size_t>(s.count) + 1);
  for (std::size_t i = 0; i < n; ++i)
    if (shard_of_request(i, limit, s.count) == s.index) out.push_back(i);
  return out;
}

void PlanHasher::add(std::string_view bytes) noexcept {
  for (const char c : bytes) {
    h_ ^= static_cast<unsigned char>(c);
    h_ *= 0x100000001b3ULL;
  }
  // The length too: ("ab", "c") and ("a", "bc") are different plans.
  const std::uint64_t len = bytes.size();
  for (int k = 0; k < 8; ++k) {
    h_ ^= (len >> (8 * k)) & 0xff;
    h_ *= 0x100000001b3ULL;
  }
}

void PlanHasher::add(std::int64_t v) noexcept {
  char b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  add(std::string_view(b, sizeof b));
}

void PlanHasher::add(double v) noexcept {
  std::int64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  add(bits);
}

std::string PlanHasher::hex() const { return fmt::format("{:016x}", h_); }

}  // namespace sb
