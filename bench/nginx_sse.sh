#!/usr/bin/env bash
# The client's ceiling on one core (issue 13 item 7): nginx pinned to core 0 answers every POST with
# one fixed vLLM completions stream (TOKENS chunks of the shape vLLM streams, the last with
# finish_reason "length", a usage chunk, `data: [DONE]`), keep-alive on; each client in turn runs
# pinned to core 1. nginx sends a file, so it costs little per event and is not the limit: its own
# core's CPU use is printed to check that. Run through bench/side_by_side.sh -n, or directly:
#   bench/nginx_sse.sh [--callgrind] BIN SECONDS STREAMS TOKENS [OTHER COMMAND...]   ({port} -> the server's port)
# SERVER=fixed: bench/fixed_sse_server.cpp (compiled here with g++) in nginx's place: the same reply
# from one thread that reads only the framing of each request and sends head and body in one
# send(). On a 2-core VM nginx's core became the limit before the clients' did (wrk and, from
# 901ec60, servebench made it 99 % busy); this server costs less per request, so the client is.
# Events are token events: requests nginx answered (its access log) times TOKENS, over the
# client's wall time. CPU is the client's user + sys.
# --callgrind: instead, servebench's user-space instructions per event under valgrind, which are
# steady where wall and CPU time are not: two runs (1000 and 3000 requests) and the difference over
# the 2000 requests' events, so start-up cancels out (the end-of-run statistics and the dataset's
# 2000 extra prompts do not); also the worker thread's share of it (the client's hot path alone).
set -euo pipefail
callgrind=0
[ "$1" = --callgrind ] && { callgrind=1; shift; }
bin=$1 seconds=$2 streams=$3 tokens=$4
shift 4
other=("$@")
server=${SERVER:-nginx}
case "$server" in
  nginx) command -v nginx >/dev/null || { echo "nginx_sse.sh: nginx not found (Debian: apt-get install nginx-light)" >&2; exit 2; } ;;
  fixed) ;;
  *) echo "nginx_sse.sh: SERVER must be nginx or fixed, got '$server'" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "$0")" && pwd)"
dir=$(mktemp -d)
[ -n "${KEEP_DIR:-}" ] && echo "# files kept in $dir" >&2
server_pid=
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; [ -n "${KEEP_DIR:-}" ] || rm -rf "$dir"' EXIT
ulimit -n 65536 2>/dev/null || true

# The reply: what vLLM's /v1/completions streams with stream_options.include_usage.
mkdir -p "$dir/root/v1"
python3 - "$tokens" > "$dir/root/v1/completions" <<'EOF'
import json, sys
n = int(sys.argv[1])
head = {"id": "cmpl-nginx-1", "object": "text_completion", "created": 1796162920, "model": "sim-model"}
out = []
for i in range(n):
    choice = {"index": 0, "text": " tok", "logprobs": None, "finish_reason": "length" if i == n - 1 else None,
              "stop_reason": None}
    out.append("data: " + json.dumps({**head, "choices": [choice], "usage": None}, separators=(",", ":")) + "\n\n")
usage = {"prompt_tokens": 16, "total_tokens": 16 + n, "completion_tokens": n}
out.append("data: " + json.dumps({**head, "choices": [], "usage": usage}, separators=(",", ":")) + "\n\n")
out.append("data: [DONE]\n\n")
sys.stdout.write("".join(out))
EOF
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# One process (no master), so pinning it pins the worker. The static module refuses POST with 405;
# error_page turns that into the file, sent to GET and POST alike. open_file_cache keeps the file
# open (an open, fstat and close per request were most of nginx's cost: it was the limit for a
# null client, wrk) and tcp_nopush sends the head and the file in one segment.
cat > "$dir/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 16384; }
http {
  access_log $dir/access.log combined buffer=256k;
  keepalive_requests 1000000000;
  keepalive_timeout 300s;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  open_file_cache max=16;
  client_body_buffer_size 64k;
  server {
    listen 127.0.0.1:$port backlog=4096;
    root $dir/root;
    types { }
    default_type text/event-stream;
    location / { error_page 405 =200 \$uri; }
  }
}
EOF

if [ "$server" = fixed ]; then
  g++ -O2 -std=c++20 -o "$dir/fixed_sse_server" "$here/fixed_sse_server.cpp"
fi
start_server() {
  if [ "$server" = fixed ]; then
    taskset -c 0 "$dir/fixed_sse_server" "$dir/root/v1/completions" "$port" > "$dir/server.out" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do grep -q listening "$dir/server.out" && break; sleep 0.05; done
    curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/v1/completions" &&
      curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/v1/completions" || { cat "$dir/server.out" >&2; exit 1; }
    return
  fi
  : > "$dir/access.log"
  taskset -c 0 nginx -p "$dir" -c "$dir/nginx.conf" > "$dir/nginx.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/v1/completions" && break; sleep 0.05; done
  curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/v1/completions" || { cat "$dir/nginx.out" "$dir/error.log" >&2; exit 1; }
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
stop_server() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=; }
measure() {  # NAME COMMAND...: runs the client pinned to core 1 and prints its figures and the server's
  local name=$1
  shift
  local before after
  start_server
  before=$(cpu_ticks "$server_pid")
  /usr/bin/time -f '%e %U %S' -o "$dir/cpu" taskset -c 1 "$@" > "$dir/client.out" 2>&1 ||
    echo "$name exited non-zero: $(tail -1 "$dir/client.out")"
  after=$(cpu_ticks "$server_pid")
  stop_server  # flushes nginx's access log
  local requests
  if [ "$server" = fixed ]; then
    requests=$(sed -n 's/^requests //p' "$dir/server.out")
  else
    requests=$(grep -c '" 200 ' "$dir/access.log" || true)
  fi
  requests=$((requests - 2))  # start_server's two probes
  read -r wall user sys < "$dir/cpu"
  python3 -c "
r, t, w, u, s, ng = $requests, $tokens, $wall, $user, $sys, ($after - $before) / $(getconf CLK_TCK)
e = r * t
print(f'{\"$name\":<12} {e:>10} events  {e / w / 1e6:6.3f} M events/s  cpu {u + s:7.3f} s  '
      f'{1e6 * (u + s) / max(e, 1):6.3f} us/event  (client core {100 * (u + s) / w:3.0f} %, server core {100 * ng / w:3.0f} %)')"
}

server_name=fixed_sse_server
[ "$server" = nginx ] && server_name="nginx $(nginx -v 2>&1 | sed 's/.*\///')"
printf '# %s, %s cores, %s; %s streams, %s tokens per reply, %s s\n' "$(date -u +%FT%TZ)" "$(nproc)" \
  "$server_name" "$streams" "$tokens" "$seconds"
servebench=("$bin" run --port "$port" --model sim-model --concurrency "$streams" --random-input-len 16
  --random-output-len "$tokens" --ignore-eos --client-threads 1 --no-selftest --no-preflight-request --disable-tqdm
  --output-json "$dir/s.json")
if [ "$callgrind" = 1 ]; then
  command -v valgrind >/dev/null || { echo "nginx_sse.sh: valgrind not found" >&2; exit 2; }
  start_server
  for n in 1000 3000; do
    taskset -c 1 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/cg.$n" "${servebench[@]}" \
      --num-prompts "$n" > "$dir/cg.$n.log" 2>&1
    grep -q "Successful requests: *$n\b" "$dir/cg.$n.log" || { echo "callgrind run of $n requests failed:" >&2; tail -5 "$dir/cg.$n.log" >&2; exit 1; }
  done
  stop_server
  python3 - "$dir" "$tokens" <<'EOF'
import glob, re, subprocess, sys
d, tokens = sys.argv[1], int(sys.argv[2])
def run(n):
    """(all threads, the worker thread) instructions of the run of n requests."""
    total = int(re.search(r'Collected : (\d+)', open(f'{d}/cg.{n}.log').read()).group(1))
    worker = 0
    for f in glob.glob(f'{d}/cg.{n}-*'):  # one file per thread (valgrind reuses a finished thread's number)
        text = open(f).read()
        if 'asio::detail::scheduler::run(' not in text:  # only worker threads run an event loop
            continue
        worker += int(re.search(r'^summary: (\d+)', text, re.M).group(1))
        # The run's preparation helper finished before the worker started and may share its number.
        out = subprocess.run(['callgrind_annotate', '--inclusive=yes', '--threshold=100', f],
                             capture_output=True, text=True).stdout
        m = re.search(r'^\s*([\d,]+) \(.*sb::pipeline::prepare_run\(', out, re.M)
        if m:
            worker -= int(m.group(1).replace(',', ''))
    return total, worker
(t1, w1), (t3, w3) = run(1000), run(3000)
events = 2000 * tokens
print(f'servebench   {(t3 - t1) / events:8.0f} instructions per event (callgrind, 3000 - 1000 requests)')
print(f'  of which   {(w3 - w1) / events:8.0f} on the worker thread, {(t3 - t1 - w3 + w1) / events:.0f} on the others '
      '(dispatcher, dataset, end-of-run statistics)')
EOF
  exit 0
fi
measure servebench "${servebench[@]}" --stage-seconds "$seconds"
# The same run's figures over its stage alone (the line above counts start-up and the end-of-run
# statistics in its wall and CPU time): the sweep's client_use, workers and dispatcher.
python3 - "$dir/s.json" <<'EOF'
import json, sys
stage = json.load(open(sys.argv[1]))['stages'][0]
use, events = stage['servebench']['client_use'], stage['total_output_tokens']
print(f'  its stage  {events:>10} events  {use["events_per_s"] / 1e6:6.3f} M events/s  cpu {use["cpu_s"]:7.3f} s  '
      f'{1e6 * use["cpu_s"] / max(events, 1):6.3f} us/event  (client_use)')
EOF
if [ ${#other[@]} -gt 0 ]; then
  cmd=("${other[@]//\{port\}/$port}")
  measure "${cmd[0]##*/}" "${cmd[@]}"
fi
