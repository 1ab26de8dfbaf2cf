#pragma once
// Which OpenAI-compatible API a run talks to. --backend openai|vllm -> completions, openai-chat -> chat.
namespace sb {

enum class Api { completions, chat };

}  // namespace sb
