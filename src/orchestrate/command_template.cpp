#include "orchestrate/command_template.hpp"

#include <cctype>

namespace sb::orchestrate {

namespace {

bool is_shell_operator(char c) {
  const std::string_view ops = "|&;<>()$`\n";
  return ops.find(c) != std::string_view::npos;
}

bool is_safe_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("_./:=,+@%-").find(c) != std::string_view::npos;
}

// The length of the placeholder `{NAME}` starting at text[i], or 0 when there is none there.
std::size_t placeholder_at(std::string_view text, std::size_t i) {
  if (text[i] != '{' || (i + 1 < text.size() && text[i + 1] == '{')) return 0;
  std::size_t j = i + 1;
  while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) != 0 || text[j] == '_')) ++j;
  return j > i + 1 && j < text.size() && text[j] == '}' ? j - i + 1 : 0;
}

// Inside double quotes a backslash escapes only these (POSIX); elsewhere it stays.
bool escapable_in_double_quotes(char c) { return c == '"' || c == '\\' || c == '$' || c == '`'; }

}  // namespace

SplitCommand split_command(std::string_view text) {
  SplitCommand out;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      if (in_word) out.words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const std::size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) return SplitCommand{{}, false, "unterminated ' quote"};
      word.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && escapable_in_double_quotes(text[j + 1]))
          ++j;
        else if (text[j] == '$' || text[j] == '`')
          out.needs_shell = true;
        word += text[j];
      }
      if (j >= text.size()) return SplitCommand{{}, false, "unterminated \" quote"};
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= text.size()) return SplitCommand{{}, false, "a trailing backslash"};
      word += text[++i];
    } else {
      if (is_shell_operator(c)) out.needs_shell = true;
      word += c;
    }
  }
  if (in_word) out.words.push_back(std::move(word));
  return out;
}

std::vector<std::string> scan_placeholders(std::string_view text) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (const std::size_t n = placeholder_at(text, i); n > 0) {
      names.emplace_back(text.substr(i + 1, n - 2));
      i += n - 1;
    } else if (text[i] == '{' || text[i] == '}') {
      if (i + 1 < text.size() && text[i + 1] == text[i]) ++i;  // {{ or }}
    }
  }
  return names;
}

std::string shell_quote(std::string_view text) {
  bool safe = !text.empty();
  for (const char c : text) safe = safe && is_safe_char(c);
  if (safe) return std::string(text);
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string fill_placeholders(std::string_view text, const Placeholders& values, bool shell_quote_values) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (const std::size_t n = placeholder_at(text, i); n > 0) {
      const auto it = values.find(std::string(text.substr(i + 1, n - 2)));
      if (it != values.end()) {
        out += shell_quote_values ? shell_quote(it->second) : it->second;
        i += n - 1;
        continue;
      }
    } else if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      ++i;  // {{ or }}: one literal brace
    }
    out += c;
  }
  return out;
}

LaunchCommand build_launch_command(std::string_view wrapper, std::string_view server, const Placeholders& values) {
  const SplitCommand w = split_command(wrapper), s = split_command(server);
  LaunchCommand out;
  if (w.needs_shell || s.needs_shell) {
    const std::string text = wrapper.empty() ? std::string(server) : std::string(wrapper) + " " + std::string(server);
    out.argv = {"/bin/sh", "-c", fill_placeholders(text, values, true)};
    out.via_shell = true;
    return out;
  }
  for (const SplitCommand* part : {&w, &s}) {
    for (const std::string& word : part->words) {
      std::string filled = fill_placeholders(word, values, false);
      // A word of placeholders only, all empty: "no flag" (--grid chunked=--enable-chunked-prefill,).
      if (filled.empty() && !word.empty()) continue;
      out.argv.push_back(std::move(filled));
    }
  }
  return out;
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += a.empty() ? "''" : shell_quote(a);
  }
  return out;
}

}  // namespace sb::orchestrate
