#!/usr/bin/env python3
"""Writes the analyze/report test fixtures (run once; the outputs are committed).

Sweep documents are shaped per docs/results-format.md. Curves with known knees are constructed by
hand (the expected knee of each is written next to it below); the baseline/tuned pair is built from
seeded per-request records, and its stage summaries are computed from those records with numpy's
default (linear) percentile, so summary and JSONL agree. No numpy needed: percentile() is numpy's.
"""
import json
import math
import random
from collections import OrderedDict as OD
from pathlib import Path

HERE = Path(__file__).resolve().parent
PCTS = [50, 90, 95, 99]


def percentile(values, p):
    s = sorted(values)
    rank = p / 100 * (len(s) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (rank - lo) * (s[hi] - s[lo])


def stats_from(values):
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    out = OD(mean=mean, median=percentile(values, 50), std=std)
    for p in PCTS:
        out["p%d" % p] = percentile(values, p)
    return out


def stats_shaped(median):
    # Constructed curves: a plausible spread around the median.
    return OD(mean=median * 1.1, median=median, std=median * 0.3, p50=median, p90=median * 1.6,
              p95=median * 1.8, p99=median * 2.0)


def config(label, max_num_seqs, mode, values):
    return OD(backend="openai", base_url="http://127.0.0.1:8000", endpoint="/v1/completions",
              model="sim-llama-8b", served_model_name="sim-llama-8b", tokenizer="",
              dataset=OD(name="random", path=None, num_prompts=200, seed=0, random_input_len=512,
                         random_output_len=128, random_range_ratio=0.0, random_prefix_len=0,
                         sharegpt_output_len=None, custom_output_len=None),
              load=OD(mode=mode, values=values, request_rate="inf", burstiness=1.0, max_concurrency=None),
              ignore_eos=True, sampling=OD(), extra_body=None,
              headers=OD(Authorization="<redacted>"), timeout_s=600, num_warmups=0,
              percentile_metrics=["ttft", "tpot", "itl", "e2el"], metric_percentiles=[99],
              goodput=OD(ttft=None, tpot=None, e2el=None), metadata=OD(sim_max_num_seqs=str(max_num_seqs)))


def stage(i, mode, value, s):
    """s: dict with rps, completed, failed, duration, ttft/tpot/itl/e2el stats, out_len."""
    st = OD()
    st["date"] = "20261130-031500"
    st["endpoint_type"] = "openai"
    st["backend"] = "openai"
    st["label"] = s["label"]
    st["model_id"] = "sim-llama-8b"
    st["tokenizer_id"] = None
    st["num_prompts"] = s["num_prompts"]
    st["sim_max_num_seqs"] = str(s["max_num_seqs"])
    st["request_rate"] = value if mode == "request_rate" else "inf"
    st["burstiness"] = 1.0
    st["max_concurrency"] = value if mode == "concurrency" else None
    st["duration"] = s["duration"]
    st["completed"] = s["completed"]
    st["failed"] = s["failed"]
    st["total_input_tokens"] = 512 * s["completed"]
    st["total_output_tokens"] = s["out_len"] * s["completed"]
    st["request_throughput"] = s["completed"] / s["duration"]
    st["request_goodput"] = None
    st["output_throughput"] = st["total_output_tokens"] / s["duration"]
    st["total_token_throughput"] = (st["total_input_tokens"] + st["total_output_tokens"]) / s["duration"]
    st["max_output_tokens_per_s"] = st["output_throughput"] * 1.3
    st["max_concurrent_requests"] = int(value) if mode == "concurrency" else 8
    for x in ["ttft", "tpot", "itl", "e2el"]:
        for k, v in s[x].items():
            st["%s_%s_ms" % (k, x)] = v
    open_loop = mode == "request_rate"
    lag = OD(p50=0.2, p99=s.get("lag_p99", 1.0), max=3.0) if open_loop else None
    st["servebench"] = OD(
        stage_index=i, load_value=value, open_loop=open_loop, start_unix_s=1796000000.0 + 100 * i,
        end_unix_s=1796000000.0 + 100 * i + s["duration"], sent=s["completed"] + s["failed"], aborted=False,
        errors=OD(timeout=OD(count=s["failed"], sample="read timed out", http_statuses=OD()))
        if s["failed"] else OD(),
        token_count_source="usage", schedule_lag_ms=lag, client_saturated=s.get("saturated", False),
        ttft_from_intended_ms=None, e2el_from_intended_ms=None,
        client_queue_ms=OD(mean=0, median=0, std=0, p50=0, p90=0, p95=0, p99=0),
        in_flight=OD(mean=float(value) if not open_loop else 4.0, max=int(value) if not open_loop else 8),
        input_len=OD(requested=OD(mean=512, p50=512, p99=512), delivered=OD(mean=512, p50=512, p99=512)),
        output_len=OD(requested=OD(mean=128, p50=128, p99=128),
                      delivered=OD(mean=s["out_len"], p50=s["out_len"], p99=s["out_len"])))
    return st


def document(label, mode, values, stage_specs, max_num_seqs=64, requests_file=None):
    doc = OD()
    doc["schema_version"] = 1
    doc["kind"] = "servebench.sweep"
    doc["tool"] = OD(name="servebench", version="0.1.0")
    doc["created"] = "2026-11-30T03:15:00Z"
    doc["label"] = label
    doc["aborted"] = False
    doc["config"] = config(label, max_num_seqs, mode, values)
    doc["environment"] = OD(hostname="fixture", os="Linux", cpu_count=2, client_threads=1,
                            clock_anchor=OD(steady_ns=1, unix_ns=1796000000000000000))
    doc["load_mode"] = mode
    doc["requests_file"] = requests_file
    doc["stages"] = [stage(i, mode, v, s) for i, (v, s) in enumerate(zip(values, stage_specs))]
    doc["analysis"] = None
    return doc


def constructed(label, mode, values, rps, ttft_p99, num_prompts=200, failed=None, saturated=None):
    specs = []
    for i, (r, t) in enumerate(zip(rps, ttft_p99)):
        completed = num_prompts - (failed[i] if failed else 0)
        specs.append(dict(label=label, num_prompts=num_prompts, max_num_seqs=64, duration=completed / r,
                          completed=completed, failed=num_prompts - completed, out_len=128,
                          ttft=stats_shaped(t / 2), tpot=stats_shaped(20.0), itl=stats_shaped(20.0),
                          e2el=stats_shaped(t / 2 + 127 * 20.0), saturated=bool(saturated and saturated[i]),
                          lag_p99=50.0 if saturated and saturated[i] else 1.0))
    return document(label, mode, values, specs)


def paired_run(name, conc, ttft_mean, tpot_seed, seed, max_num_seqs):
    """Per-request records -> JSONL + summaries. TPOT samples come from tpot_seed only, so the two
    runs share them exactly (a difference that must be judged not significant)."""
    rng = random.Random(seed)
    lines, specs = [], []
    for si, c in enumerate(conc):
        tp_rng = random.Random(tpot_seed + si)
        ttfts, tpots, e2els = [], [], []
        for i in range(200):
            ttft = max(1.0, rng.gauss(ttft_mean[si], ttft_mean[si] * 0.1))
            tpot = max(1.0, tp_rng.gauss(20.0, 2.0))
            e2el = ttft + 127 * tpot
            ttfts.append(ttft), tpots.append(tpot), e2els.append(e2el)
            lines.append(json.dumps(OD(stage=si, index=i, request_id="r-%d-%d" % (si, i), outcome="ok",
                                       http_status=200, error="", intended_ms=0.0, sent_ms=0.0,
                                       first_byte_ms=ttft, done_ms=e2el, ttft_ms=ttft, e2el_ms=e2el,
                                       tpot_ms=tpot, itl_ms=[], prompt_tokens=512, output_tokens=128,
                                       expected_output_tokens=128, token_source="usage", aborted=False)))
        duration = 200 * (sum(e2els) / len(e2els)) / 1000.0 / c  # seconds; closed loop: Little's law
        specs.append(dict(label=name, num_prompts=200, max_num_seqs=max_num_seqs, duration=duration,
                          completed=200, failed=0, out_len=128, ttft=stats_from(ttfts), tpot=stats_from(tpots),
                          itl=stats_from(tpots), e2el=stats_from(e2els)))
    (HERE / (name + ".requests.jsonl")).write_text("\n".join(lines) + "\n")
    return document(name, "concurrency", conc, specs, max_num_seqs, name + ".requests.jsonl")


def vllm_file(c, rps, ttft_p99, detailed):
    d = OD(date="20250101-120000", endpoint_type="vllm", backend="vllm", label=None, model_id="meta/llama-3-8b",
           tokenizer_id="meta/llama-3-8b", num_prompts=100, request_rate="inf", burstiness=1.0,
           max_concurrency=c, duration=100 / rps, completed=100, failed=0, total_input_tokens=51200,
           total_output_tokens=12800, request_throughput=rps, request_goodput=None,
           output_throughput=128 * rps, total_token_throughput=640 * rps)
    if detailed:
        d["input_lens"] = [512] * 100
        d["output_lens"] = [128] * 100
        d["ttfts"] = [ttft_p99 / 2000.0] * 100
        d["itls"] = [[0.02] * 3] * 100  # shortened: ITL arrays are not read
        d["latencies"] = [ttft_p99 / 2000.0 + 127 * 0.02] * 100
        d["generated_texts"] = [""] * 100
        d["errors"] = [""] * 100
    d["max_output_tokens_per_s"] = 160 * rps
    d["max_concurrent_requests"] = c
    for x, v in [("ttft", ttft_p99 / 2), ("tpot", 20.0), ("itl", 20.0)]:
        for k, s in stats_shaped(v).items():
            if k in ("mean", "median", "std", "p99"):
                d["%s_%s_ms" % (k, x)] = s
    return d


def write(name, obj):
    (HERE / name).write_text(json.dumps(obj, indent=2) + "\n")


def main():
    conc = [1, 2, 4, 8, 16, 32, 64, 128]
    # Knee at concurrency 16 (stage 4): linear 2 req/s per slot up to 16, then < 50 % of linear.
    # TTFT p99 stays under 2x its 50 ms start until 32 (stage 5), then above for good.
    write("knee_c16.json", constructed("knee-c16", "concurrency", conc, [2, 4, 8, 16, 32, 34, 35, 33],
                                       [50, 50, 52, 55, 60, 200, 800, 2000]))
    # Noisy: a dip at 4 and a spike at 16 do not move the knee off 16 (stage 4).
    write("noisy.json", constructed("noisy", "concurrency", conc[:7], [2.1, 3.8, 7.0, 17.0, 33.0, 36.0, 35.0],
                                    [40, 44, 41, 47, 52, 130, 300]))
    # Non-monotone: peak at 16 (stage 4), then decline; knee at 8 (stage 3). Stage 5 has failures.
    write("nonmonotone.json", constructed("nonmonotone", "concurrency", conc[:7], [4, 8, 16, 30, 31, 24, 18],
                                          [30, 30, 31, 35, 90, 400, 900], failed=[0, 0, 0, 0, 0, 12, 40]))
    # No knee: linear to the last stage; 20 requests per stage (too few for p99).
    write("noknee.json", constructed("noknee", "concurrency", [1, 2, 4, 8], [3, 6, 12, 24], [30, 31, 30, 32],
                                     num_prompts=20))
    # Rate sweep: achieved follows offered up to 4 req/s, saturates after; knee at rate 8 (stage 3).
    # Stage 4's client could not keep the schedule.
    write("rate_sweep.json", constructed("rate", "request_rate", [1, 2, 4, 8, 16], [1, 2, 4, 6.5, 6.8],
                                         [40, 41, 45, 300, 2500], saturated=[0, 0, 0, 0, 1]))
    # Baseline vs tuned (e.g. --max-num-seqs 16 vs 64): tuned has lower TTFT, hence higher RPS;
    # identical TPOT samples.
    write("baseline.json", paired_run("baseline", [8, 16, 32], [200, 400, 800], 1000, 1, 16))
    write("tuned.json", paired_run("tuned", [8, 16, 32], [150, 300, 400], 1000, 2, 64))
    # vLLM's own files, one per concurrency, knee at 8; the 16 file carries --save-detailed arrays.
    for c, rps, t in [(4, 8.0, 100), (8, 16.0, 110), (16, 17.0, 400), (2, 4.0, 100)]:
        write("vllm/vllm-infqps-concurrency%d-llama-3-8b-20250101-120000.json" % c, vllm_file(c, rps, t, c == 16))


if __name__ == "__main__":
    main()
