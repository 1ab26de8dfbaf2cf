// The file-reading dataset loaders (ShareGPT JSON array, custom JSONL) on arbitrary file contents:
// a one-line sb::UserError or requests, never a crash or another exception. The first byte picks
// the loader; the rest is the file.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "dataset/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static const std::string path = "/tmp/sb-dataset-fuzz-" + std::to_string(::getpid());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data) + 1, static_cast<std::streamsize>(size - 1));
  }
  sb::DatasetConfig cfg;
  cfg.name = data[0] & 1 ? "custom" : "sharegpt";
  cfg.path = path;
  cfg.num_prompts = 4;
  try {
    const sb::Dataset ds = sb::load_dataset(cfg, nullptr);
    if (ds.requests.size() > 4 && !(data[0] & 1)) __builtin_trap();  // sharegpt: exactly num_prompts at most
  } catch (const sb::UserError&) {
  }
  return 0;
}
