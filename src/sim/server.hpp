#pragma once
// The simulator's OpenAI-compatible HTTP/1.1 front end (Boost.Asio/Beast, C++20 coroutines; all
// Asio code lives in server.cpp, server_session.cpp and server_hub.cpp). It talks to a
// sim::Backend only: submit on request arrival, cancel when the client goes away, and one timer
// re-armed to the earliest wake-up advance() returns; on each wake it writes the produced tokens
// to their streams.
//
// Threading: one io_context on one thread runs the acceptor, every connection and the backend, so
// the backend needs no locks. To stay off the critical path of the tests it pre-formats each
// request's chunk text once, coalesces all tokens of one stream due at the same wake into one
// write, and reuses one output buffer per connection (no allocation per token).
//
// Example (in-process, as the demo and the tests use it):
//   sb::sim::Server server({.port = 0}, std::make_unique<sb::sim::FixedCostBackend>(costs));
//   server.start();                        // background thread
//   auto url = "http://127.0.0.1:" + std::to_string(server.port());
//   ...
//   server.stop();
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sim/backend.hpp"
#include "sim/faults.hpp"

namespace sb {
class Tokenizer;
}

namespace sb::sim {

// Whose wire format the simulator speaks beyond the OpenAI shapes (--dialect).
enum class Dialect : std::uint8_t {
  vllm,       // vLLM's OpenAI-compatible server
  llama_cpp,  // plus llama.cpp's per-request `timings` object (docs/simulator.md)
};

struct ServerOptions {
  std::string host = "127.0.0.1";          // --host
  std::uint16_t port = 8000;               // --port; 0 = pick a free port
  std::string served_model_name = "sim-model";  // --served-model-name: the only accepted model id
  std::string model_root;                  // "root" in /v1/models; served name when empty
  int max_model_len = 32768;               // prompt + max_tokens above it -> 400 (0 = no check)
  int default_max_tokens = 16;             // when a request sets neither max_tokens nor max_completion_tokens
  std::string api_key;                     // --api-key; empty = no auth
  bool usage_in_last_chunk = false;        // --usage-in-last-chunk
  std::shared_ptr<const Tokenizer> tokenizer;  // --tokenizer; null = approximate prompt lengths
  std::string token_log_path;              // --token-log; empty = off
  FaultOptions faults;                     // --fail-ratio, --drop-ratio, --malformed-ratio, --seed
  std::uint64_t seed = 0;                  // per-request seeds derive from it
  int listen_backlog = 4096;
  // --reuse-port: SO_REUSEPORT, so several simulator processes listen on one port and the kernel
  // spreads new connections over them (one simulator thread holds about 80,000 token writes/s; a
  // many-core load check needs more than one).
  bool reuse_port = false;
  Dialect dialect = Dialect::vllm;         // --dialect
};

class Server {
 public:
  // Binds and listens (so port() is known at once). Throws sb::UserError naming host:port when the
  // address cannot be bound, or the option at fault.
  Server(ServerOptions opt, std::unique_ptr<Backend> backend);
  ~Server();  // stop()s
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::uint16_t port() const;
  void start();  // serves on a background thread
  void stop();   // closes the listener and every connection, joins; idempotent, any thread
  // Serves on the calling thread until SIGINT/SIGTERM or stop(). `on_ready` runs once the signal
  // handlers are in place, so a "listening on" line printed there is safe to act on at once.
  void run(const std::function<void()>& on_ready = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sb::sim
