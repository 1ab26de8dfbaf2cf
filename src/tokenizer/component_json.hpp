#pragma once
// tokenizer.json component sections (normalizer, pre_tokenizer, decoder, post_processor) -> the
// plain step lists the pipeline runs. Unsupported types fail through JsonCtx::fail (a UserError).
#include <vector>

#include "tokenizer/hf_tokenizer.hpp"
#include "tokenizer/json_fields.hpp"

namespace sb::tok {

void parse_normalizer(const JsonCtx& c, simdjson::dom::element e, std::vector<NormalizerStep>& out);
// Sets byte_level when a ByteLevel pre-tokenizer is present (the BPE vocab is then byte-mapped).
void parse_pre_tokenizer(const JsonCtx& c, simdjson::dom::element e, std::vector<PreTokenizerStep>& out,
                         bool& byte_level);
void parse_decoder(const JsonCtx& c, simdjson::dom::element e, std::vector<DecoderStep>& out);
void parse_post_processor(const JsonCtx& c, simdjson::dom::element e, TokenizerParts& parts);

}  // namespace sb::tok
