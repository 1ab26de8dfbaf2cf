#include "protocol/request_id.hpp"

#include <fmt/format.h>

namespace sb {

namespace {

constexpr std::string_view kHead = "bench-";
constexpr std::size_t kTagDigits = 8;

bool is_hex(char c) noexcept { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

std::string run_tagged_prefix(std::uint32_t tag) { return fmt::format("{}{:08x}-", kHead, tag); }

std::string_view request_name_in_run(std::string_view id) noexcept {
  const std::size_t tag_end = kHead.size() + kTagDigits;  // index of the '-' after the tag
  // Nothing after the tag: the id is all tag, nothing to tell requests apart by; keep it whole.
  if (id.size() <= tag_end + 1 || !id.starts_with(kHead) || id[tag_end] != '-') return id;
  for (std::size_t i = kHead.size(); i < tag_end; ++i)
    if (!is_hex(id[i])) return id;
  return id.substr(tag_end + 1);
}

}  // namespace sb
