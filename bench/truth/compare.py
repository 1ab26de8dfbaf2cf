#!/usr/bin/env python3
"""Client-measured latencies against the simulator's own send times (issue 13, the truth suite).

compare.py SWEEP.json REQUESTS.jsonl TOKEN_LOG  -> one JSON line of error statistics (ms).

The simulator's --token-log has every token's send time (CLOCK_MONOTONIC ns); the run's JSONL has,
per request, its send time relative to the stage start, its TTFT and every ITL. The stage start is
placed on the same clock through the sweep's environment.clock_anchor (steady = CLOCK_MONOTONIC on
Linux). Errors, client minus truth, per request or per token pair:
  ttft: first token's arrival - its send  (what the client adds to the server's first token)
  itl:  client ITL - server ITL           (per consecutive token pair)
  e2el: last token's arrival - its send
Plain Python (no numpy): percentiles interpolate linearly, as numpy's default does.
"""
import json
import sys


def percentile(sorted_xs, p):
    if not sorted_xs:
        return float("nan")
    h = (len(sorted_xs) - 1) * p / 100.0
    lo = int(h)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (h - lo) * (sorted_xs[hi] - sorted_xs[lo])


def stats(xs):
    xs = sorted(xs)
    return {"n": len(xs), "p50": percentile(xs, 50), "p99": percentile(xs, 99),
            "max": xs[-1] if xs else float("nan")}


def main(sweep_path, jsonl_path, log_path):
    sweep = json.load(open(sweep_path))
    anchor = sweep["environment"]["clock_anchor"]
    starts_steady_ns = {}
    for i, st in enumerate(sweep["stages"]):
        start_unix_ns = st["servebench"]["start_unix_s"] * 1e9
        starts_steady_ns[st["servebench"].get("stage_index", i)] = start_unix_ns - anchor["unix_ns"] + anchor["steady_ns"]
    sends = {}
    with open(log_path) as f:
        for line in f:
            if not line or line[0] == "#":
                continue
            parts = line.split()
            if len(parts) != 3:
                continue
            sends.setdefault(parts[1], {})[int(parts[2])] = int(parts[0])
    ttft, itl, e2el = [], [], []
    matched = 0
    with open(jsonl_path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("outcome") != "ok" or r.get("ttft_ms") is None:
                continue
            s = sends.get(r["request_id"])
            if not s:
                continue
            matched += 1
            t0 = starts_steady_ns[r["stage"]]
            arrivals = [t0 + (r["sent_ms"] + r["ttft_ms"]) * 1e6]
            for gap in r["itl_ms"]:
                arrivals.append(arrivals[-1] + gap * 1e6)
            if len(arrivals) != len(s):
                continue  # a token event that carried several tokens: the pairs would not line up
            order = [s[k] for k in sorted(s)]
            ttft.append((arrivals[0] - order[0]) / 1e6)
            e2el.append((arrivals[-1] - order[-1]) / 1e6)
            for k in range(1, len(order)):
                itl.append(((arrivals[k] - arrivals[k - 1]) - (order[k] - order[k - 1])) / 1e6)
    st = sweep["stages"][0]["servebench"]
    lag = st.get("dispatch_lag_ms") or {}
    use = st.get("client_use") or {}  # the client's CPU over the stage, all its threads
    print(json.dumps({"requests": matched, "ttft_err_ms": stats(ttft), "itl_err_ms": stats([abs(x) for x in itl]),
                      "e2el_err_ms": stats(e2el), "dispatch_lag_ms": lag, "client_cpu_s": use.get("cpu_s")}))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: compare.py SWEEP.json REQUESTS.jsonl TOKEN_LOG")
    main(*sys.argv[1:])
