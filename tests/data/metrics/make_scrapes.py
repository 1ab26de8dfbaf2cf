#!/usr/bin/python3
"""Writes vllm_v1_scrape.txt and vllm_v0_scrape.txt: /metrics pages shaped like vLLM's.

The layout follows prometheus_client's text exposition (format 0.0.4) as vLLM serves it: HELP/TYPE
before each family, labels sorted by name, counters exposed as NAME_total plus a NAME_created gauge,
histograms as cumulative _bucket{le} lines ending in +Inf, then _count and _sum. Metric names, label
keys and bucket bounds are vLLM's (vllm/v1/metrics/loggers.py for V1, vllm/engine/metrics.py for the
0.6-era V0 engine). The values come from the small synthetic workload below, so every number a test
checks can be recomputed by hand from this file.

Run: /usr/bin/python3 tests/data/metrics/make_scrapes.py  (writes next to this script)
"""
import os

MODEL = "acme/tiny-chat-7b"
TTFT_BOUNDS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
               10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_BOUNDS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
              20.0, 40.0, 80.0]
REQUEST_BOUNDS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
                  120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
STEP_BOUNDS = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]

# 30 finished requests: TTFT i*0.01 s (i = 1..30), 20 stopped, 10 hit max_tokens.
TTFTS = [i * 0.01 for i in range(1, 31)]
FINISHED = {"stop": 20, "length": 10, "abort": 0}
# 12 engine steps with these token counts.
STEPS = [512, 17, 17, 16, 300, 16, 8, 8, 2048, 1, 64, 64]
# Inter-token latencies of the decoded tokens: 100 of 0.02 s, 5 of 0.3 s (preemption stalls).
ITLS = [0.02] * 100 + [0.3] * 5
CREATED = 1764547200.25  # a fixed Unix time, so the files are reproducible


def num(v):
    """prometheus_client's floatToGoString: integral floats as 'N.0', else Python's repr."""
    if v == float("inf"):
        return "+Inf"
    v = float(v)
    return repr(v)


def labels(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in sorted(d.items())) + "}" if d else ""


class Page:
    def __init__(self, base):
        self.lines = []
        self.base = base

    def family(self, name, kind, help_text):
        self.lines.append(f"# HELP {name} {help_text}")
        self.lines.append(f"# TYPE {name} {kind}")

    def sample(self, name, value, extra=None):
        self.lines.append(f"{name}{labels({**self.base, **(extra or {})})} {num(value)}")

    def gauge(self, name, value, help_text, extra=None):
        self.family(name, "gauge", help_text)
        self.sample(name, value, extra)

    def counter(self, name, rows, help_text, created=True):
        """rows: list of (extra labels, value). prometheus_client's 0.0.4 writer names the family
        NAME_total in HELP/TYPE, and the creation times a separate NAME_created gauge family."""
        self.family(name + "_total", "counter", help_text)
        for extra, value in rows:
            self.sample(name + "_total", value, extra)
        if created:
            self.family(name + "_created", "gauge", help_text)
            for extra, _ in rows:
                self.sample(name + "_created", CREATED, extra)

    def histogram(self, name, bounds, values, help_text):
        self.family(name, "histogram", help_text)
        for b in bounds + [float("inf")]:
            self.sample(name + "_bucket", sum(1 for v in values if v <= b), {"le": num(b)})
        self.sample(name + "_count", len(values))
        self.sample(name + "_sum", sum(values))
        self.family(name + "_created", "gauge", help_text)
        self.sample(name + "_created", CREATED)

    def text(self):
        return "\n".join(self.lines) + "\n"


def process_noise(page):
    """What every prometheus_client exporter adds; a scraper must skip it."""
    page.lines += [
        "# HELP python_gc_objects_collected_total Objects collected during gc",
        "# TYPE python_gc_objects_collected_total counter",
        'python_gc_objects_collected_total{generation="0"} 12345.0',
        'python_gc_objects_collected_total{generation="1"} 678.0',
        "# HELP process_resident_memory_bytes Resident memory size in bytes.",
        "# TYPE process_resident_memory_bytes gauge",
        "process_resident_memory_bytes 2.147483648e+09",
        "# HELP http_requests_total Total number of requests by method, status and handler.",
        "# TYPE http_requests_total counter",
        'http_requests_total{handler="/metrics",method="GET",status="2xx"} 9.0',
        'http_requests_total{handler="/v1/completions",method="POST",status="2xx"} 30.0',
    ]


def v1_page():
    page = Page({"engine": "0", "model_name": MODEL})
    process_noise(page)
    page.gauge("vllm:num_requests_running", 6, "Number of requests in model execution batches.")
    page.gauge("vllm:num_requests_waiting", 2, "Number of requests waiting to be processed.")
    page.gauge("vllm:kv_cache_usage_perc", 0.3125, "KV-cache usage. 1 means 100 percent usage.")
    page.counter("vllm:prefix_cache_queries", [({}, 4800.0)], "Prefix cache queries, in terms of number of queried tokens.")
    page.counter("vllm:prefix_cache_hits", [({}, 1200.0)], "Prefix cache hits, in terms of number of cached tokens.")
    page.counter("vllm:num_preemptions", [({}, 5.0)], "Cumulative number of preemption from the engine.")
    page.counter("vllm:prompt_tokens", [({}, 4800.0)], "Number of prefill tokens processed.")
    page.counter("vllm:generation_tokens", [({}, 105.0)], "Number of generation tokens processed.")
    page.counter("vllm:request_success",
                 [({"finished_reason": r}, float(n)) for r, n in FINISHED.items()],
                 "Count of successfully processed requests.")
    page.histogram("vllm:iteration_tokens_total", STEP_BOUNDS, STEPS, "Histogram of number of tokens per engine_step.")
    page.histogram("vllm:time_to_first_token_seconds", TTFT_BOUNDS, TTFTS, "Histogram of time to first token in seconds.")
    page.histogram("vllm:inter_token_latency_seconds", ITL_BOUNDS, ITLS, "Histogram of inter-token latency in seconds.")
    page.histogram("vllm:e2e_request_latency_seconds", REQUEST_BOUNDS, [t + 2.0 for t in TTFTS],
                   "Histogram of e2e request latency in seconds.")
    page.family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
    page.lines.append('vllm:cache_config_info{block_size="16",cache_dtype="auto",engine="0",'
                      'gpu_memory_utilization="0.9",num_gpu_blocks="4096",num_gpu_blocks_override="None"} 1.0')
    return page.text()


def v0_page():
    # V0 had no engine label and exposed counters without the _created twins this file checks.
    page = Page({"model_name": MODEL})
    page.gauge("vllm:num_requests_running", 3, "Number of requests currently running on GPU.")
    page.gauge("vllm:num_requests_swapped", 0, "Number of requests swapped to CPU.")
    page.gauge("vllm:num_requests_waiting", 1, "Number of requests waiting to be processed.")
    page.gauge("vllm:gpu_cache_usage_perc", 0.5, "GPU KV-cache usage. 1 means 100 percent usage.")
    page.gauge("vllm:avg_generation_throughput_toks_per_s", 412.5, "Average generation throughput in tokens/s.")
    page.counter("vllm:generation_tokens", [({}, 105.0)], "Number of generation tokens processed.", created=False)
    page.histogram("vllm:time_to_first_token_seconds", TTFT_BOUNDS, TTFTS[:10],
                   "Histogram of time to first token in seconds.")
    page.histogram("vllm:time_per_output_token_seconds", ITL_BOUNDS, ITLS[:50],
                   "Histogram of time per output token in seconds.")
    return page.text()


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, text in (("vllm_v1_scrape.txt", v1_page()), ("vllm_v0_scrape.txt", v0_page())):
        with open(os.path.join(here, name), "w", newline="\n") as f:
            f.write(text)
