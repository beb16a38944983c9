#!/usr/bin/env bash
# Benchmark (not a test): where the time goes at the gateway's ceiling, per request, for each of
# the operators' views (off, the request log, traces to a collector that takes every batch, traces
# to one that is down): the CPU time of the server (user and system), of the upstream (which is
# also the collector) and of oha, and the bytes loopback carried. At the ceiling the two cores are
# shared by all three processes, so a view's cost to the ceiling is its own CPU time plus what it
# makes the others and the kernel do; callgrind's counts (bench/gateway_instructions.sh) see only
# the server's user-space instructions. Each run is oha -c 32 on whole answers for SECONDS + 4
# seconds, measured over SECONDS after the first two (req/s is oha's, over the whole run); ROUNDS
# rounds, the order rotating; medians printed.
#
# Usage: [ROUNDS=3] bash bench/gateway_cost.sh [SECONDS]     (default 8)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-8}
rounds=${ROUNDS:-3}
# shellcheck source=bench/common.sh
source bench/common.sh
find_oha
cargo build --release --quiet -p tokctl-server --bin tokctl-server --example mock_upstream
start_upstream
mock_catalogue "$upstream" >"$work/models.toml"
tick=$(getconf CLK_TCK)
body='{"model":"mock","messages":[{"role":"user","content":"hello"}],"max_tokens":16}'

# cpu PID -> "user system" clock ticks so far
cpu() { awk '{print $14, $15}' "/proc/$1/stat"; }
lo_bytes() { awk '/^ *lo:/ {print $2}' /proc/net/dev; }

# run MODE -> one line: mode rps server_user_us server_sys_us upstream_us oha_us lo_bytes (per request)
run() {
  local mode=$1 dir extra=() pid addr key oha_pid s0 s1 u0 u1 o0 o1 l0 l1 rps
  dir=$(mktemp -d -p "$work")
  case $mode in
    log) extra=(--request-log) ;;
    traces) extra=(--otlp-endpoint "http://$upstream/v1/traces") ;;
    traces_down) extra=(--otlp-endpoint "http://127.0.0.1:9/v1/traces") ;;
  esac
  ./target/release/tokctl-server serve --listen 127.0.0.1:0 --data-dir "$dir/data" \
    --rate-limit 1000000000 --models "$work/models.toml" "${extra[@]}" >"$dir/out" 2>"$dir/err" &
  pid=$!; pids+=("$pid")
  addr=$(wait_addr "$dir/err")
  key=$(cat "$dir/data/admin.key")
  "$oha" -z "$((secs + 4))s" -c 32 --no-tui --output-format json -m POST \
    -H 'content-type: application/json' -H "authorization: Bearer $key" -d "$body" \
    "http://$addr/v1/chat/completions" >"$dir/oha.json" &
  oha_pid=$!
  sleep 2   # the warm-up, not a synchronisation: the window below is what is measured
  s0=$(cpu "$pid"); u0=$(cpu "$upstream_pid"); o0=$(cpu "$oha_pid"); l0=$(lo_bytes)
  sleep "$secs"
  s1=$(cpu "$pid"); u1=$(cpu "$upstream_pid"); o1=$(cpu "$oha_pid"); l1=$(lo_bytes)
  wait "$oha_pid"
  kill -TERM "$pid"; wait "$pid" || true
  rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["requestsPerSec"])' "$dir/oha.json")
  python3 - "$mode" "$rps" "$secs" "$tick" "$s0" "$s1" "$u0" "$u1" "$o0" "$o1" "$l0" "$l1" <<'PY'
import sys
mode, rps, secs, tick = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
s0, s1, u0, u1, o0, o1 = (list(map(int, a.split())) for a in sys.argv[5:11])
l0, l1 = int(sys.argv[11]), int(sys.argv[12])
n = rps * secs
us = lambda ticks: ticks / tick * 1e6 / n
print(mode, round(rps), f"{us(s1[0] - s0[0]):.2f}", f"{us(s1[1] - s0[1]):.2f}",
      f"{us(sum(u1) - sum(u0)):.2f}", f"{us(sum(o1) - sum(o0)):.2f}", round((l1 - l0) / n))
PY
}

modes=(off log traces traces_down)
echo "machine: $(nproc) cores; oha -c 32, whole answers, ${secs}s measured per run, $rounds rounds" >&2
printf '%-12s %8s %12s %11s %12s %8s %9s\n' mode req/s server_user server_sys upstream oha lo_bytes
for round in $(seq 1 "$rounds"); do
  for i in "${!modes[@]}"; do
    line=$(run "${modes[$(( (i + round) % ${#modes[@]} ))]}")
    echo "$line" >>"$work/rows"
    # shellcheck disable=SC2086
    printf '%-12s %8s %12s %11s %12s %8s %9s\n' $line
  done
done
echo "medians of $rounds rounds, per request (CPU in microseconds, loopback in bytes):"
python3 - "$work/rows" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    mode, *values = line.split()
    rows[mode].append(list(map(float, values)))
off = [statistics.median(c) for c in zip(*rows["off"])]
for mode in ("off", "log", "traces", "traces_down"):
    m = [statistics.median(c) for c in zip(*rows[mode])]
    server, server_off = m[1] + m[2], off[1] + off[2]
    print(f"{mode:12} {m[0]:8.0f} req/s  server {server:5.2f} us ({server / server_off - 1:+.1%}), "
          f"upstream {m[3]:5.2f} us, oha {m[4]:5.2f} us, loopback {m[5]:6.0f} bytes ({m[5] - off[5]:+.0f})")
PY
