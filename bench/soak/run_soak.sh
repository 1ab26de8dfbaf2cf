#!/usr/bin/env bash
# Memory per request over a long stage (issue 13: constant memory per request; a 1,000,000-request
# run under 1 GiB RSS). Runs `servebench run --stage-seconds S` against a zero-cost simulator for
# each S given, with the dataset's 1000 prompts reused cyclically, and prints requests, the client's
# peak RSS and the marginal bytes per request between consecutive lengths (the run's fixed cost —
# threads, buffers, the dataset — cancels out). Usage:
#   bench/soak/run_soak.sh [BIN] [OUTPUT_TOKENS] [SECONDS...]     defaults: build/default/servebench 16 5 20
set -euo pipefail
bin="${1:-build/default/servebench}"
out_tokens="${2:-16}"
shift 2 2>/dev/null || shift $#
lengths=("$@")
[ ${#lengths[@]} -eq 0 ] && lengths=(5 20)
dir=$(mktemp -d)
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$dir"' EXIT
"$bin" sim --ttft-ms 0 --itl-ms 0 --port 0 > "$dir/sim.out" 2>&1 &
sim=$!
for _ in $(seq 100); do grep -q listening "$dir/sim.out" && break; sleep 0.05; done
port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$dir/sim.out" | head -1)
printf '%8s %10s %12s %14s\n' seconds requests peak_rss_MiB bytes/request
prev_n=0 prev_kb=0
for s in "${lengths[@]}"; do
  /usr/bin/time -f '%M' -o "$dir/rss" "$bin" run --port "$port" --stage-seconds "$s" --random-input-len 16 \
    --random-output-len "$out_tokens" --ignore-eos --concurrency 256 --no-selftest --no-preflight-request \
    --output-json "$dir/s.json" --requests-jsonl "$dir/r.jsonl" > "$dir/run.out" 2>&1
  n=$(grep -o 'Successful requests: *[0-9]*' "$dir/run.out" | grep -o '[0-9]*$')
  kb=$(cat "$dir/rss")
  per="-"
  [ "$prev_n" -gt 0 ] && per=$(( (kb - prev_kb) * 1024 / (n - prev_n) ))
  printf '%8s %10s %12.1f %14s\n' "$s" "$n" "$(echo "$kb / 1024" | bc -l)" "$per"
  prev_n=$n prev_kb=$kb
done
