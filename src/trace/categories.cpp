// Name normalisation and categories (docs/trace.md). std::regex is slow, but categories are
// computed once per distinct kernel name (rank_kernels groups first), never per event.
#include "trace/categories.hpp"

#include <regex>
#include <utility>
#include <vector>

namespace sb::trace {
namespace {

constexpr std::string_view kCloneKd = "[clone .kd]";
constexpr std::string_view kAnonymous[] = {"(anonymous namespace)::", "<unnamed>::"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Index of the bracket that opens the balanced group ending at `close` (scanning backwards), or npos.
std::size_t matching_open(std::string_view s, std::size_t close, char open_c, char close_c) {
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (s[i] == close_c) ++depth;
    if (s[i] == open_c && --depth == 0) return i;
  }
  return std::string_view::npos;
}

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':' ||
         c == '~' || c == '$' || c == '.';
}

struct CategoryRule {
  KernelCategory category;
  std::regex pattern;
};

const std::vector<CategoryRule>& rules() {
  constexpr auto flags = std::regex::ECMAScript | std::regex::icase | std::regex::optimize;
  static const std::vector<CategoryRule> table = [] {
    const std::pair<KernelCategory, const char*> specs[] = {
        {KernelCategory::memcpy,
         R"(^\[CUDA mem(cpy|set)|^Memcpy |^Memset |^Copy(HostToDevice|DeviceToHost|DeviceToDevice|HostToHost|PeerToPeer))"
         R"(|^MEMORY_COPY_|^async-copy$|^__amd_rocclr_(copy|fill)|^FillBuffer)"},
        {KernelCategory::communication,
         R"(nccl|rccl|msccl|cross_device_reduce|all_?reduce|all_?gather|reduce_?scatter|alltoall|all_to_all)"
         R"(|quickreduce|custom_ar|one_shot|two_shot|symm_mem)"},
        {KernelCategory::kv_cache_write,
         R"(reshape_and_cache|concat_and_cache|store_kvcache|write_to_paged_cache|kv_cache_(write|store))"
         R"(|copy_blocks|swap_blocks)"},
        {KernelCategory::attention,
         R"(paged_attention|ll4mi|flash_?attn|flash::|flash_fwd|FlashAttn|fmha|mha_(fwd|varlen)|unified_attention)"
         R"(|reduce_segments|flashinfer::.*(Prefill|Decode|Attention|MLA)|BatchPrefill|BatchDecode|SinglePrefill)"
         R"(|SingleDecode|attn_fwd|attention|_mla_|mla_decode|decode_attention|context_attention|prefix_prefill)"
         R"(|^_fwd_kernel)"},
        {KernelCategory::gemm,
         R"(^Cijk_|gemm|gemv|nvjet|xmma|cutlass.*(tensorop|gemm)|s16816|s1688|cublas|hipblaslt|rocblas|wvSplitK)"
         R"(|LLGemm|marlin|fused_moe_kernel|scaled_mm|matmul|ck::kernel_gemm|triton_tem_fused_.*mm)"},
        // MoE routing is "other", but must be caught before sampling (MoeSoftmax) and norm.
        {KernelCategory::other, R"(moe::|moe_align|moe_sum|topkGating|MoeSoftmax|moe_permute|moe_unpermute)"},
        {KernelCategory::norm_activation,
         R"(rms_?norm|layer_?norm|fused_add_rms|act_and_mul|silu|gelu|swiglu|relu|rotary|rope|_norm_kernel|rsqrt)"},
        {KernelCategory::sampling,
         R"(softmax|argmax|top_?k|top_?p|sampling|multinomial|exponential|distribution_elementwise|gatherTopK)"
         R"(|radixSort|sortKeyValue|penalt|min_p|logits)"},
    };
    std::vector<CategoryRule> out;
    for (const auto& [category, pattern] : specs) out.push_back({category, std::regex(pattern, flags)});
    return out;
  }();
  return table;
}

}  // namespace

std::string_view category_name(KernelCategory c) {
  switch (c) {
    case KernelCategory::memcpy:
      return "memcpy";
    case KernelCategory::communication:
      return "communication";
    case KernelCategory::kv_cache_write:
      return "kv_cache_write";
    case KernelCategory::attention:
      return "attention";
    case KernelCategory::gemm:
      return "gemm";
    case KernelCategory::norm_activation:
      return "norm_activation";
    case KernelCategory::sampling:
      return "sampling";
    case KernelCategory::other:
      return "other";
  }
  return "other";
}

std::string normalize_kernel_name(std::string_view name) {
  name = trim(name);
  if (name.ends_with(kCloneKd)) {
    name = trim(name.substr(0, name.size() - kCloneKd.size()));
  } else if (name.ends_with(".kd")) {
    name.remove_suffix(3);
  }
  return std::string(name);
}

std::string kernel_base_name(std::string_view raw) {
  std::string name = normalize_kernel_name(raw);
  // Anonymous namespaces are spelled two ways and would stop the identifier scan: drop them.
  for (const std::string_view anon : kAnonymous) {
    for (auto at = name.find(anon); at != std::string::npos; at = name.find(anon, at)) name.erase(at, anon.size());
  }
  std::string_view s = name;
  if (s.ends_with(')')) {  // parameter list
    const std::size_t open = matching_open(s, s.size() - 1, '(', ')');
    if (open != std::string_view::npos) s = trim(s.substr(0, open));
  }
  if (s.ends_with('>')) {  // template arguments of the kernel itself
    const std::size_t open = matching_open(s, s.size() - 1, '<', '>');
    if (open != std::string_view::npos) s = trim(s.substr(0, open));
  }
  std::size_t begin = s.size();
  while (begin > 0 && is_ident_char(s[begin - 1])) --begin;
  const std::string_view base = s.substr(begin);
  if (base.empty() || base.find_first_not_of(":") == std::string_view::npos) return name;
  return std::string(base);
}

KernelCategory categorize_kernel_name(std::string_view name) {
  const std::string normalized = normalize_kernel_name(name);
  for (const CategoryRule& rule : rules()) {
    if (std::regex_search(normalized, rule.pattern)) return rule.category;
  }
  return KernelCategory::other;
}

KernelCategory categorize(const KernelEvent& event) {
  if (event.kind != OpKind::kernel) return KernelCategory::memcpy;
  return categorize_kernel_name(event.name);
}

}  // namespace sb::trace
