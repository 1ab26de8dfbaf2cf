#!/usr/bin/env bash
# Dispatch lag of an open-loop run, measured as the truth suite's rate scenario is but without the
# simulator's token log (its tens of thousands of lines a second add disk stalls to the tails):
# `servebench sim --ttft-ms 10 --itl-ms 5` pinned to core 0, `servebench run --request-rate RATE
# --stage-seconds SECONDS --client-threads 1` pinned to core 1, then the percentiles of
# sent_ms - intended_ms over the requests of the JSONL (docs/accuracy.md, "Dispatch lag").
#   bench/truth/dispatch_lag.sh [BIN] [RATE] [SECONDS] [extra run flags, e.g. --dispatch-spin-us 150]
# SIM_CPUS and CLIENT_CPUS (taskset lists, defaults 0 and 1) place them on a bigger machine: the
# client's dispatcher is a thread of its own beside its worker, and with CLIENT_CPUS=0-1 it gets a
# core of its own (docs/accuracy.md: p99 0.046-0.064 ms that way on 16 cores, 0.55-0.88 ms on one).
set -euo pipefail
bin="$(realpath "${1:-build/default/servebench}")"
rate="${2:-1000}"
seconds="${3:-10}"
shift 3 2>/dev/null || shift $#
dir=$(mktemp -d)
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$dir"' EXIT
taskset -c "${SIM_CPUS:-0}" "$bin" sim --ttft-ms 10 --itl-ms 5 --port 0 > "$dir/sim.out" 2>&1 &
sim=$!
for _ in $(seq 100); do grep -q listening "$dir/sim.out" && break; sleep 0.05; done
port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$dir/sim.out" | head -1)
taskset -c "${CLIENT_CPUS:-1}" "$bin" run --port "$port" --request-rate "$rate" --stage-seconds "$seconds" --random-input-len 16 \
  --random-output-len 32 --ignore-eos --client-threads 1 --no-preflight-request --requests-jsonl "$dir/r.jsonl" \
  --output-json "$dir/s.json" --disable-tqdm "$@" > "$dir/run.out" 2>&1 || { tail -3 "$dir/run.out"; exit 1; }
python3 - "$dir/r.jsonl" "$dir/s.json" <<'PY'
import json, sys
lag = sorted(r["sent_ms"] - r["intended_ms"] for r in map(json.loads, open(sys.argv[1])))
use = json.load(open(sys.argv[2]))["stages"][0]["servebench"].get("client_use") or {}
q = lambda p: lag[min(len(lag) - 1, int(p * len(lag)))]
print("requests %d  lag ms: p50 %.4f p90 %.4f p95 %.4f p99 %.3f p99.9 %.3f max %.2f  late > 0.5 ms: %d  client CPU %.2f s"
      % (len(lag), q(.5), q(.9), q(.95), q(.99), q(.999), lag[-1], sum(x > 0.5 for x in lag), use.get("cpu_s") or -1))
PY
