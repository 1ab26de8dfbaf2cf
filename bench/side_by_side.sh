#!/usr/bin/env bash
# Side by side (issue 13 item 6): servebench and any other client against the same simulator, the
# simulator pinned to core 0 and each client in turn to core 1, so users can check our CPU and
# accuracy claims themselves. For each client: token events the simulator sent during its run (its
# --token-log), the client's CPU time (user + sys), CPU µs per event; for servebench also its error
# against the send times (bench/truth/compare.py).
#   bench/side_by_side.sh [-b BIN] [-s SECONDS] [-c STREAMS] [-i ITL_MS] [-t TOKENS] [-n [-g] [-w]] [-- OTHER COMMAND...]
# -n (issue 13 item 7): nginx instead of the simulator, serving one fixed vLLM completions SSE reply
#   (-t token chunks, a usage chunk, [DONE]) to every POST, so the server is not the bottleneck and
#   the figures are the client's ceiling on one core; see bench/nginx_sse.sh. Needs nginx
#   (Debian: apt-get install nginx-light); nothing in the test suite does. -g with -n: servebench's
#   instructions per event under callgrind instead (steady on a noisy machine; needs valgrind).
#   -w with -n: wrk (Debian: apt-get install wrk) as well, a client that parses nothing but the
#   HTTP framing, with -c connections on one thread (bench/wrk_post.lua makes it POST): the null
#   client's figures on the same replies.
# OTHER COMMAND runs as given with {port} replaced by the simulator's port, e.g.
#   bench/side_by_side.sh -- python3 benchmark_serving.py --backend vllm --port {port} --model sim-model \
#       --dataset-name random --random-output-len 64 --num-prompts 2000 --max-concurrency 100
# Give the other client a load like servebench's (-c streams, -t tokens per request) for a fair ratio.
set -euo pipefail
bin=build/default/servebench seconds=10 streams=100 itl=5 tokens=64
nginx_mode=0 callgrind=() wrk=0
while getopts "b:s:c:i:t:ngw" o; do
  case "$o" in b) bin=$OPTARG ;; s) seconds=$OPTARG ;; c) streams=$OPTARG ;; i) itl=$OPTARG ;; t) tokens=$OPTARG ;;
    n) nginx_mode=1 ;; g) callgrind=(--callgrind) ;; w) wrk=1 ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
other=("$@")
bin="$(realpath "$bin")"
here="$(cd "$(dirname "$0")" && pwd)"
if [ "$nginx_mode" = 1 ]; then
  if [ "$wrk" = 1 ] && [ ${#callgrind[@]} -eq 0 ]; then
    command -v wrk >/dev/null || { echo "side_by_side.sh: wrk not found (Debian: apt-get install wrk)" >&2; exit 2; }
    [ ${#other[@]} -gt 0 ] && { echo "side_by_side.sh: -w takes the place of OTHER COMMAND" >&2; exit 2; }
    other=(wrk -t1 "-c$streams" "-d${seconds}s" -s "$here/wrk_post.lua" "http://127.0.0.1:{port}/v1/completions")
  fi
  exec "$here/nginx_sse.sh" "${callgrind[@]}" "$bin" "$seconds" "$streams" "$tokens" "${other[@]}"
fi
dir=$(mktemp -d)
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$dir"' EXIT
ulimit -n 65536 2>/dev/null || true

start_sim() {
  rm -f "$dir/tokens.log" "$dir/sim.out"
  taskset -c 0 "$bin" sim --ttft-ms 5 --itl-ms "$itl" --token-log "$dir/tokens.log" --port 0 > "$dir/sim.out" 2>&1 &
  sim=$!
  for _ in $(seq 100); do grep -q listening "$dir/sim.out" && break; sleep 0.05; done
  port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$dir/sim.out" | head -1)
}
stop_sim() { kill "$sim"; wait "$sim" 2>/dev/null || true; }
report() {  # NAME: reads $dir/cpu (user sys) and the token log
  local events user sys
  events=$(grep -vc '^#' "$dir/tokens.log" || true)
  read -r user sys < "$dir/cpu"
  python3 -c "
e, u, s = $events, $user, $sys
print(f'{\"$1\":<12} {e:>10} events  cpu {u + s:8.3f} s  {1e6 * (u + s) / max(e, 1):8.3f} us/event')"
}

printf '# %s, %s cores; %s streams, ITL %s ms, %s tokens per request, %s s\n' "$(date -u +%FT%TZ)" "$(nproc)" \
  "$streams" "$itl" "$tokens" "$seconds"
start_sim
/usr/bin/time -f '%U %S' -o "$dir/cpu" taskset -c 1 "$bin" run --port "$port" --concurrency "$streams" \
  --stage-seconds "$seconds" --random-input-len 16 --random-output-len "$tokens" --ignore-eos --client-threads 1 \
  --no-selftest --no-preflight-request --output-json "$dir/s.json" --requests-jsonl "$dir/r.jsonl" --disable-tqdm \
  > "$dir/run.out" 2>&1
stop_sim
report servebench
echo "  error vs send times: $(python3 "$here/truth/compare.py" "$dir/s.json" "$dir/r.jsonl" "$dir/tokens.log")"
if [ ${#other[@]} -gt 0 ]; then
  start_sim
  cmd=("${other[@]//\{port\}/$port}")
  /usr/bin/time -f '%U %S' -o "$dir/cpu" taskset -c 1 "${cmd[@]}" > "$dir/other.out" 2>&1 || echo "other client exited non-zero: $(tail -1 "$dir/other.out")"
  stop_sim
  report "${cmd[0]##*/}"
fi
