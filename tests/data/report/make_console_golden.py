#!/usr/bin/python3
"""Writes console_vllm.golden with the print statements vLLM [N] uses for its result block
(vllm/benchmarks/serve.py), fed with the numbers of tests/report/sample_stage.hpp (max_concurrency 16, rate inf,
goodput on, --percentile-metrics ttft,tpot,itl,e2el, --metric-percentiles 99.9,99).
Run from the repository root: /usr/bin/python3 tests/data/report/make_console_golden.py
"""
import io

out = io.StringIO()


def p(*args):
    print(*args, file=out)


def section(header, name, base):
    p("{s:{c}^{n}}".format(s=header, n=50, c="-"))
    p("{:<40} {:<10.2f}".format(f"Mean {name} (ms):", base * 1.25))
    p("{:<40} {:<10.2f}".format(f"Median {name} (ms):", base))
    for pct, factor in ((99.9, 5), (99.0, 4)):
        p_word = str(int(pct)) if int(pct) == pct else str(pct)
        p("{:<40} {:<10.2f}".format(f"P{p_word} {name} (ms):", base * factor))


p("{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
p("{:<40} {:<10}".format("Successful requests:", 98))
p("{:<40} {:<10}".format("Failed requests:", 2))
p("{:<40} {:<10}".format("Maximum request concurrency:", 16))
p("{:<40} {:<10.2f}".format("Benchmark duration (s):", 12.5))
p("{:<40} {:<10}".format("Total input tokens:", 98 * 512))
p("{:<40} {:<10}".format("Total generated tokens:", 98 * 128))
p("{:<40} {:<10.2f}".format("Request throughput (req/s):", 7.84))
p("{:<40} {:<10.2f}".format("Request goodput (req/s):", 7.5))
p("{:<40} {:<10.2f}".format("Output token throughput (tok/s):", 1003.52))
p("{:<40} {:<10.2f}".format("Peak output token throughput (tok/s):", 1200.0))
p("{:<40} {:<10.2f}".format("Peak concurrent requests:", 16))
p("{:<40} {:<10.2f}".format("Total token throughput (tok/s):", 5017.6))
section("Time to First Token", "TTFT", 80)
section("Time per Output Token (excl. 1st token)", "TPOT", 12)
section("Inter-token Latency", "ITL", 11.5)
section("End-to-end Latency", "E2EL", 1600)
section("Client-side Queueing", "Client Queue Time", 900)
p("=" * 50)

with open("tests/data/report/console_vllm.golden", "w") as f:
    f.write(out.getvalue())
