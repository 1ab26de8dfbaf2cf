#!/bin/sh
# How base.json / tuned.json (and their per-request JSONL) were produced: two real sweeps of
# `servebench run` against `servebench sim` in fixed-cost mode, whose server-side slot limit makes the
# knee known in advance: --max-concurrency 8 (base) and 16 (tuned). Rerun from this folder:
#   ../../../../build/<dir>/servebench, passed as $1.
set -eu
B=$1
sweep() {
  "$B" sim --port 0 --cost fixed --ttft-ms 20 --itl-ms 4 --max-concurrency "$1" > "sim_$2.out" &
  pid=$!
  sleep 1
  port=$(head -1 "sim_$2.out" | grep -oE '[0-9]+$')
  "$B" run --base-url "http://127.0.0.1:$port" --dataset-name random --random-input-len 16 \
    --random-output-len 16 --num-prompts 64 --concurrency 1 2 4 8 16 32 --output-json "$2.json"
  kill "$pid"
  rm -f "sim_$2.out"
}
sweep 8 base
sweep 16 tuned
