#!/usr/bin/env bash
# The truth suite (issue 13 item 3): per-request client TTFT, ITL and E2EL against the simulator's
# own send times (--token-log), at several stream counts, ITLs and arrival modes. The simulator is
# pinned to core 0 and the client to core 1 (taskset), so that neither waits for the other's CPU.
# Run on purpose on a quiet machine; results go to docs/accuracy.md.
#   bench/truth/run_truth.sh [BIN] [SECONDS] [SCENARIO...]
# SCENARIO = streams:itl_ms (closed loop, that many in flight) or rate@R:itl_ms (Poisson, R req/s)
#            or inf@N:itl_ms (N requests all at once). Default: 1:20 100:20 1000:20 4000:50 rate@1000:5 inf@1000:20
# ARRIVAL_TIME=read measures with `run --arrival-time read` (the client's read times, as vLLM's
# client) instead of the default kernel receive times. DISPATCH_SPIN_US=N runs the rate scenarios
# with `--dispatch-spin-us N`.
# On a bigger machine: SIMS=N starts N simulators on one port (`sim --reuse-port`, each with its own
# token log), SIM_CPUS and CLIENT_CPUS are taskset lists (defaults 0 and 1), CLIENT_THREADS is the
# client's --client-threads (default 1).
set -euo pipefail
bin="$(realpath "${1:-build/default/servebench}")"
seconds="${2:-10}"
shift 2 2>/dev/null || shift $#
scenarios=("$@")
[ ${#scenarios[@]} -eq 0 ] && scenarios=(1:20 100:20 1000:20 4000:50 rate@1000:5 inf@1000:20)
here="$(cd "$(dirname "$0")" && pwd)"
dir=$(mktemp -d)
sims=()
trap 'kill "${sims[@]}" 2>/dev/null || true; rm -rf "$dir"' EXIT
ulimit -n 65536 2>/dev/null || true
tokens=32
arrival="${ARRIVAL_TIME:-kernel}"
nsims="${SIMS:-1}" sim_cpus="${SIM_CPUS:-0}" client_cpus="${CLIENT_CPUS:-1}" threads="${CLIENT_THREADS:-1}"
spin=()  # --dispatch-spin-us of the request-rate scenarios, when DISPATCH_SPIN_US is set
[ -n "${DISPATCH_SPIN_US:-}" ] && spin=(--dispatch-spin-us "$DISPATCH_SPIN_US")
echo "# $(date -u +%FT%TZ) $(git -C "$here" rev-parse --short HEAD 2>/dev/null) $(nproc) cores; $tokens tokens per request; --arrival-time $arrival; --dispatch-spin-us ${DISPATCH_SPIN_US:-0} (rate scenarios); $nsims simulator(s) on CPUs $sim_cpus; client: $threads thread(s) on CPUs $client_cpus"
for sc in "${scenarios[@]}"; do
  load="${sc%%:*}" itl="${sc##*:}"
  rm -f "$dir"/*
  sims=() port=0
  for k in $(seq "$nsims"); do
    reuse=()
    [ "$nsims" -gt 1 ] && reuse=(--reuse-port)
    taskset -c "$sim_cpus" "$bin" sim --ttft-ms 10 --itl-ms "$itl" --token-log "$dir/tokens.$k.log" --port "$port" \
      "${reuse[@]}" > "$dir/sim.$k.out" 2>&1 &
    sims+=($!)
    for _ in $(seq 100); do grep -q listening "$dir/sim.$k.out" && break; sleep 0.05; done
    port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$dir/sim.$k.out" | head -1)
  done
  case "$load" in
    rate@*) args=(--request-rate "${load#rate@}" --stage-seconds "$seconds" "${spin[@]}") ;;
    inf@*) args=(--request-rate inf --num-prompts "${load#inf@}") ;;
    *) args=(--concurrency "$load" --stage-seconds "$seconds") ;;
  esac
  taskset -c "$client_cpus" "$bin" run --port "$port" "${args[@]}" --random-input-len 16 --random-output-len "$tokens" \
    --ignore-eos --client-threads "$threads" --arrival-time "$arrival" --no-preflight-request --output-json "$dir/s.json" \
    --requests-jsonl "$dir/r.jsonl" --disable-tqdm > "$dir/run.out" 2>&1 || { echo "$sc: run failed"; tail -3 "$dir/run.out"; }
  kill "${sims[@]}"; wait "${sims[@]}" 2>/dev/null || true
  cat "$dir"/tokens.*.log > "$dir/tokens.log"
  echo "$sc $(python3 "$here/compare.py" "$dir/s.json" "$dir/r.jsonl" "$dir/tokens.log")"
done
