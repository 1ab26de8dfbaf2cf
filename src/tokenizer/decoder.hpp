#pragma once
// HF decoders over the list of token strings: ByteLevel, Replace, ByteFallback, Fuse, Strip,
// Metaspace and Sequence (a flat list of steps). Without steps, tokens are joined with spaces.
#include <string>
#include <vector>

namespace sb::tok {

struct DecoderStep {
  enum class Kind { byte_level, replace, byte_fallback, fuse, strip, metaspace };
  Kind kind = Kind::byte_level;
  std::string pattern, content;  // replace: literal pattern -> content; strip: the character
  std::size_t strip_start = 0, strip_stop = 0;
  std::string replacement;       // metaspace
  bool metaspace_prepend = true; // metaspace: strip the prefix space of the first token
};

class Decoder {
 public:
  Decoder() = default;
  explicit Decoder(std::vector<DecoderStep> steps) : steps_(std::move(steps)), present_(true) {}

  std::string decode(std::vector<std::string> tokens) const;

 private:
  std::vector<DecoderStep> steps_;
  bool present_ = false;  // tokenizer.json had a decoder (even an empty Sequence)
};

}  // namespace sb::tok
