#pragma once
// HF normalizers: NFC/NFKC/NFD/NFKD (utf8proc), Lowercase, Replace (literal), Prepend, Strip, and
// Sequence (a flat list of steps). Applied to each text segment between added tokens.
#include <string>
#include <string_view>
#include <vector>

namespace sb::tok {

struct NormalizerStep {
  enum class Kind { nfc, nfkc, nfd, nfkd, lowercase, replace, prepend, strip };
  Kind kind = Kind::nfc;
  std::string pattern;  // replace: literal text to find
  std::string content;  // replace: replacement; prepend: prefix
  bool strip_left = false, strip_right = false;
};

class Normalizer {
 public:
  Normalizer() = default;
  explicit Normalizer(std::vector<NormalizerStep> steps) : steps_(std::move(steps)) {}

  bool empty() const noexcept { return steps_.empty(); }
  // out = normalized(in). `scratch` is reused between steps to avoid reallocation.
  void apply(std::string_view in, std::string& out, std::string& scratch) const;

 private:
  std::vector<NormalizerStep> steps_;
};

// True when NFC leaves s unchanged for sure (a cheap sufficient test; false means "maybe").
// s must be valid UTF-8.
bool nfc_quick_yes(std::string_view s) noexcept;

}  // namespace sb::tok
