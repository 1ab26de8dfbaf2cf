// SSE parse + chunk decode cost per event, as the client pays it for every streamed token:
// SseParser::feed over socket-sized reads, then StreamDecoder::decode_chunk on each payload.
// Run: build with -DSB_BUILD_BENCH=ON, then ./sse_bench (items_per_second = events/s on one core).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "protocol/sse_parser.hpp"
#include "protocol/stream_decoder.hpp"

namespace {

// A vLLM-shaped completions stream of `events` token chunks plus the usage chunk and [DONE].
std::string completions_stream(int events) {
  std::string s;
  for (int i = 0; i < events; ++i) {
    s += R"(data: {"id":"cmpl-8d2f","object":"text_completion","created":1764470000,"model":"meta-llama/Llama-3.1-8B",)";
    s += R"("choices":[{"index":0,"text":" tok)" + std::to_string(i) + R"(","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null})";
    s += "\n\n";
  }
  s += R"(data: {"id":"cmpl-8d2f","object":"text_completion","choices":[],"usage":{"prompt_tokens":7,"total_tokens":71,"completion_tokens":64}})";
  s += "\n\ndata: [DONE]\n\n";
  return s;
}

std::string chat_stream(int events) {
  std::string s;
  for (int i = 0; i < events; ++i) {
    s += R"(data: {"id":"chatcmpl-9a","object":"chat.completion.chunk","created":1764470001,"model":"llama",)";
    s += R"("choices":[{"index":0,"delta":{"content":" w)" + std::to_string(i) + R"("},"logprobs":null,"finish_reason":null}]})";
    s += "\n\n";
  }
  s += "data: [DONE]\n\n";
  return s;
}

// Feeds `stream` in reads of `read_bytes` (1 event per read ~ real streaming; 16 KiB ~ a busy socket).
void run(benchmark::State& state, const std::string& stream, sb::Api api, std::size_t read_bytes) {
  sb::SseParser parser;
  sb::StreamDecoder decoder(api);
  std::int64_t events = 0, tokens = 0;
  for (auto _ : state) {
    for (std::size_t at = 0; at < stream.size(); at += read_bytes) {
      parser.feed(std::string_view(stream).substr(at, read_bytes), [&](const sb::SseParser::Event& e) {
        sb::ChunkInfo c;
        if (decoder.decode_chunk(e.data, c) && c.kind == sb::ChunkInfo::Kind::token) ++tokens;
        ++events;
      });
    }
    parser.finish([](const sb::SseParser::Event&) {});
  }
  benchmark::DoNotOptimize(tokens);
  state.SetItemsProcessed(events);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream.size()));
}

void BM_CompletionsPerEventReads(benchmark::State& state) {
  const std::string s = completions_stream(64);
  run(state, s, sb::Api::completions, s.size() / 66 + 1);
}
void BM_Completions16KiBReads(benchmark::State& state) {
  run(state, completions_stream(64), sb::Api::completions, 16 * 1024);
}
void BM_Chat16KiBReads(benchmark::State& state) { run(state, chat_stream(64), sb::Api::chat, 16 * 1024); }

void BM_ParseOnly(benchmark::State& state) {
  const std::string s = completions_stream(64);
  sb::SseParser parser;
  std::int64_t events = 0;
  for (auto _ : state) {
    parser.feed(s, [&](const sb::SseParser::Event& e) {
      benchmark::DoNotOptimize(e.data.data());
      ++events;
    });
  }
  state.SetItemsProcessed(events);
}

BENCHMARK(BM_CompletionsPerEventReads);
BENCHMARK(BM_Completions16KiBReads);
BENCHMARK(BM_Chat16KiBReads);
BENCHMARK(BM_ParseOnly);

}  // namespace

BENCHMARK_MAIN();
