#!/bin/sh
# Regenerates the simulator kernel traces that tests/trace/load_test.cpp parses as real profiler output.
# Usage (from anywhere): tests/data/trace/sim/generate.sh path/to/servebench
# Each run of `servebench sim --cost engine --kernel-trace FILE` records one engine step (the row limit
# stops it after the first) between POST /start_profile and /stop_profile, and writes the sidecar
# FILE.servebench.json that marks the trace as simulated. Timestamps and unix_minus_trace_ns differ per run.
set -eu
BIN=$(realpath "$1")
OUT=$(cd "$(dirname "$0")" && pwd)
run() {  # run FORMAT GPU FILE
  log=$(mktemp)
  "$BIN" sim --port 0 --cost engine --model-preset llama-3.2-1b --gpu-preset "$2" --tensor-parallel-size 2 \
    --kernel-trace "$OUT/$3" --kernel-trace-format "$1" --kernel-trace-max-rows 250 >"$log" 2>&1 &
  pid=$!
  until grep -q listening "$log"; do sleep 0.1; done
  url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$log" | head -n1)
  curl -sf -X POST "$url/start_profile" >/dev/null
  curl -sf "$url/v1/completions" -H 'Content-Type: application/json' \
    -d '{"model":"sim-model","prompt":"hello world","max_tokens":3}' >/dev/null
  curl -sf -X POST "$url/stop_profile" >/dev/null
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  rm -f "$log"
}
run rocprof mi300x sim_results.csv
run rocprofv3 mi300x sim_kernel_trace.csv
run nsys h100 sim_cuda_gpu_trace.csv
