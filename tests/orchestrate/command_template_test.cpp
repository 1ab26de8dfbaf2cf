// Splitting the server command like a shell, without a shell; placeholders per word.
#include "orchestrate/command_template.hpp"

#include <gtest/gtest.h>

namespace sb::orchestrate {
namespace {

using Words = std::vector<std::string>;

TEST(CommandTemplate, SplitsQuotesAndBackslashesLikeAShell) {
  const SplitCommand s = split_command(R"(vllm serve 'my model' --x "a \"b\" \$c \n" d\ e '' f)");
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.words, (Words{"vllm", "serve", "my model", "--x", R"(a "b" $c \n)", "d e", "", "f"}));
  EXPECT_FALSE(s.needs_shell);
}

TEST(CommandTemplate, ShellSyntaxIsDetectedOnlyOutsideQuotes) {
  EXPECT_TRUE(split_command("cd /srv && vllm serve m").needs_shell);
  EXPECT_TRUE(split_command("vllm serve m 2>&1 | tee log").needs_shell);
  EXPECT_TRUE(split_command("vllm serve $MODEL").needs_shell);
  EXPECT_TRUE(split_command("vllm serve \"$MODEL\"").needs_shell);
  EXPECT_FALSE(split_command("vllm serve m --override-generation-config '{\"a\": 1}' 'a|b;c'").needs_shell);
}

TEST(CommandTemplate, UnterminatedQuotesAreErrors) {
  EXPECT_NE(split_command("vllm serve 'm").error.find("'"), std::string::npos);
  EXPECT_NE(split_command("vllm serve \"m").error.find("\""), std::string::npos);
  EXPECT_NE(split_command("vllm serve m\\").error.find("backslash"), std::string::npos);
}

TEST(CommandTemplate, PlaceholdersAreNamesInBracesOnly) {
  EXPECT_EQ(scan_placeholders("--port {port} --x {max_num_seqs}{port} {{literal}} '{\"t\": 0}' {} {a-b}"),
            (Words{"port", "max_num_seqs", "port"}));
}

TEST(CommandTemplate, ValuesFillWordsAndStayOneArgument) {
  const Placeholders v{{"port", "8123"}, {"dir", "/out/a b"}, {"seqs", "128"}, {"extra", ""}};
  const LaunchCommand c = build_launch_command("",
                                               "vllm serve m --port {port} --max-num-seqs={seqs} "
                                               "--x {dir}/trace {extra} '{{port}}' '{\"t\": {seqs}}'",
                                               v);
  EXPECT_FALSE(c.via_shell);
  EXPECT_EQ(c.argv, (Words{"vllm", "serve", "m", "--port", "8123", "--max-num-seqs=128", "--x", "/out/a b/trace",
                           "{port}", "{\"t\": 128}"}));
}

TEST(CommandTemplate, WrapperGoesInFront) {
  const Placeholders v{{"dir", "/out/c1"}, {"port", "9000"}};
  const LaunchCommand c =
      build_launch_command("rocprof --stats --timestamp on -o {dir}/vllm_trace.csv", "vllm serve m --port {port}", v);
  EXPECT_EQ(c.argv, (Words{"rocprof", "--stats", "--timestamp", "on", "-o", "/out/c1/vllm_trace.csv", "vllm", "serve",
                           "m", "--port", "9000"}));
}

TEST(CommandTemplate, ShellCommandsGetQuotedValues) {
  const Placeholders v{{"dir", "/out/it's here"}, {"port", "9000"}};
  const LaunchCommand c = build_launch_command("", "cd /srv && exec vllm serve m --port {port} > {dir}/x.log", v);
  ASSERT_TRUE(c.via_shell);
  EXPECT_EQ(c.argv, (Words{"/bin/sh", "-c", "cd /srv && exec vllm serve m --port 9000 > '/out/it'\\''s here'/x.log"}));
}

TEST(CommandTemplate, CommandTextCanBePastedBack) {
  const Words argv{"vllm", "serve", "my model", "", "--x=1"};
  EXPECT_EQ(command_text(argv), "vllm serve 'my model' '' --x=1");
  EXPECT_EQ(split_command(command_text(argv)).words, argv);
}

}  // namespace
}  // namespace sb::orchestrate
