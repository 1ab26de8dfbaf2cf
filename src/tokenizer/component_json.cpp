#include "tokenizer/component_json.hpp"

#include <stdexcept>

namespace sb::tok {

using simdjson::dom::element;

namespace {

SplitBehavior parse_behavior(const JsonCtx& c, const std::string& b) {
  if (b == "Isolated") return SplitBehavior::isolated;
  if (b == "Removed") return SplitBehavior::removed;
  if (b == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
  if (b == "MergedWithNext") return SplitBehavior::merged_with_next;
  if (b == "Contiguous") return SplitBehavior::contiguous;
  c.fail("unsupported Split behavior '" + b + "'");
}

std::shared_ptr<const Regex> compile(const JsonCtx& c, const std::string& pattern, bool literal) {
  try {
    return std::make_shared<const Regex>(pattern, literal);
  } catch (const std::invalid_argument& ex) {
    c.fail("pre_tokenizer Split pattern: " + std::string(ex.what()));
  }
}

}  // namespace

void parse_normalizer(const JsonCtx& c, element e, std::vector<NormalizerStep>& out) {
  using K = NormalizerStep::Kind;
  const std::string type = c.str(e, "type", "normalizer");
  NormalizerStep s;
  if (type == "Sequence") {
    for (element n : c.arr(e, "normalizers", "normalizer Sequence")) parse_normalizer(c, n, out);
    return;
  }
  if (type == "NFC") s.kind = K::nfc;
  else if (type == "NFKC") s.kind = K::nfkc;
  else if (type == "NFD") s.kind = K::nfd;
  else if (type == "NFKD") s.kind = K::nfkd;
  else if (type == "Lowercase") s.kind = K::lowercase;
  else if (type == "Prepend") {
    s.kind = K::prepend;
    s.content = c.str(e, "prepend", "normalizer Prepend");
  } else if (type == "Replace") {
    s.kind = K::replace;
    s.pattern = c.string_pattern(e, "normalizer Replace");
    s.content = c.str(e, "content", "normalizer Replace");
  } else if (type == "Strip") {
    s.kind = K::strip;
    s.strip_left = c.boolean(e, "strip_left", false);
    s.strip_right = c.boolean(e, "strip_right", false);
  } else {
    c.fail("unsupported normalizer type '" + type + "'");
  }
  out.push_back(std::move(s));
}

void parse_pre_tokenizer(const JsonCtx& c, element e, std::vector<PreTokenizerStep>& out, bool& byte_level) {
  using K = PreTokenizerStep::Kind;
  const std::string type = c.str(e, "type", "pre_tokenizer");
  PreTokenizerStep s;
  if (type == "Sequence") {
    for (element p : c.arr(e, "pretokenizers", "pre_tokenizer Sequence")) parse_pre_tokenizer(c, p, out, byte_level);
    return;
  }
  if (type == "Split") {
    s.kind = K::split;
    const auto [pattern, literal] = c.pattern(e, "pre_tokenizer Split");
    s.regex = compile(c, pattern, literal);
    s.behavior = parse_behavior(c, c.str(e, "behavior", "pre_tokenizer Split"));
    s.invert = c.boolean(e, "invert", false);
  } else if (type == "ByteLevel") {
    s.kind = K::byte_level;
    s.add_prefix_space = c.boolean(e, "add_prefix_space", true);
    if (c.boolean(e, "use_regex", true)) s.regex = compile(c, gpt2_pattern(), false);
    byte_level = true;
  } else if (type == "Metaspace") {
    s.kind = K::metaspace;
    s.replacement = c.str(e, "replacement", "pre_tokenizer Metaspace");
    s.split_on_replacement = c.boolean(e, "split", true);
    const std::string scheme = c.opt_str(e, "prepend_scheme").value_or(c.boolean(e, "add_prefix_space", true) ? "always" : "never");
    if (scheme == "always") s.prepend = PreTokenizerStep::Prepend::always;
    else if (scheme == "first") s.prepend = PreTokenizerStep::Prepend::first;
    else if (scheme == "never") s.prepend = PreTokenizerStep::Prepend::never;
    else c.fail("unsupported Metaspace prepend_scheme '" + scheme + "'");
  } else if (type == "Digits") {
    s.kind = K::digits;
    s.individual_digits = c.boolean(e, "individual_digits", false);
  } else {
    c.fail("unsupported pre_tokenizer type '" + type + "'");
  }
  out.push_back(std::move(s));
}

void parse_decoder(const JsonCtx& c, element e, std::vector<DecoderStep>& out) {
  using K = DecoderStep::Kind;
  const std::string type = c.str(e, "type", "decoder");
  DecoderStep s;
  if (type == "Sequence") {
    for (element d : c.arr(e, "decoders", "decoder Sequence")) parse_decoder(c, d, out);
    return;
  }
  if (type == "ByteLevel") s.kind = K::byte_level;
  else if (type == "ByteFallback") s.kind = K::byte_fallback;
  else if (type == "Fuse") s.kind = K::fuse;
  else if (type == "Replace") {
    s.kind = K::replace;
    s.pattern = c.string_pattern(e, "decoder Replace");
    s.content = c.str(e, "content", "decoder Replace");
  } else if (type == "Strip") {
    s.kind = K::strip;
    s.content = c.str(e, "content", "decoder Strip");
    s.strip_start = static_cast<std::size_t>(c.integer(e, "start", "decoder Strip"));
    s.strip_stop = static_cast<std::size_t>(c.integer(e, "stop", "decoder Strip"));
  } else if (type == "Metaspace") {
    s.kind = K::metaspace;
    s.replacement = c.str(e, "replacement", "decoder Metaspace");
    const std::string scheme = c.opt_str(e, "prepend_scheme").value_or(c.boolean(e, "add_prefix_space", true) ? "always" : "never");
    s.metaspace_prepend = scheme != "never";
  } else {
    c.fail("unsupported decoder type '" + type + "'");
  }
  out.push_back(std::move(s));
}

void parse_post_processor(const JsonCtx& c, element e, TokenizerParts& parts) {
  const std::string type = c.str(e, "type", "post_processor");
  if (type == "ByteLevel") return;  // only adjusts offsets
  if (type == "Sequence") {
    for (element p : c.arr(e, "processors", "post_processor Sequence")) parse_post_processor(c, p, parts);
    return;
  }
  if (type != "TemplateProcessing") c.fail("unsupported post_processor type '" + type + "'");
  element specials = c.obj_elem(e, "special_tokens", "TemplateProcessing");
  std::vector<TemplatePiece> tpl;
  for (element item : c.arr(e, "single", "TemplateProcessing")) {
    TemplatePiece piece;
    if (auto seq = JsonCtx::field(item, "Sequence")) {
      piece.is_sequence = true;
    } else if (auto sp = JsonCtx::field(item, "SpecialToken")) {
      const std::string id = c.str(*sp, "id", "TemplateProcessing SpecialToken");
      auto entry = JsonCtx::field(specials, id);
      if (!entry) c.fail("TemplateProcessing special token '" + id + "' missing from special_tokens");
      for (element v : c.arr(*entry, "ids", "TemplateProcessing special_tokens")) {
        piece.ids.push_back(static_cast<std::int32_t>(c.as_int(v, "TemplateProcessing ids")));
      }
    } else {
      c.fail("TemplateProcessing: unknown template item");
    }
    tpl.push_back(std::move(piece));
  }
  parts.single_template = std::move(tpl);
}

}  // namespace sb::tok
