#!/usr/bin/env bash
# Benchmark (not a test): authenticated GET /v1/tokens/:id against a bare axum handler, and
# durable POST /v1/tokens per second, measured in one run on this machine with wrk.
# Usage: bench/run.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
conns=${2:-32}

if ! command -v wrk >/dev/null; then
  echo "installing wrk (Debian package)" >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq wrk >/dev/null; fi
fi
command -v curl >/dev/null || { echo "curl is required" >&2; exit 1; }

cargo build --release --quiet -p tokctl-server --bin tokctl-server --example bare
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# Waits for "listening on http://ADDR" in a log file and prints ADDR.
wait_addr() {
  for _ in $(seq 1 300); do
    addr=$(grep -o 'listening on http://[0-9.:]*' "$1" 2>/dev/null | head -1 | sed 's|.*http://||')
    [ -n "$addr" ] && { echo "$addr"; return 0; }
    sleep 0.1
  done
  echo "server did not start; log:" >&2; cat "$1" >&2; return 1
}

# Runs wrk and prints requests/s; fails if any response was not 2xx.
rps() {
  out=$(wrk "$@")
  if grep -q 'Non-2xx' <<<"$out"; then echo "$out" >&2; echo "non-2xx responses" >&2; return 1; fi
  awk '/Requests\/sec/ {print $2}' <<<"$out"
}

./target/release/examples/bare 127.0.0.1:0 >"$work/bare.log" 2>&1 & pids+=($!)
bare=$(wait_addr "$work/bare.log")
./target/release/tokctl-server serve --listen 127.0.0.1:0 --data-dir "$work/data" \
  --rate-limit 1000000000 >"$work/server.out" 2>"$work/server.log" & pids+=($!)
server=$(wait_addr "$work/server.log")
key=$(cat "$work/data/admin.key")
token_id=$(curl -sf -X POST "http://$server/v1/tokens" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' -d '{"name":"bench-read","scopes":["tokens:read"]}' |
  grep -o '"id":"tok_[0-9a-z]*"' | cut -d'"' -f4)

echo "machine: $(nproc) cores; wrk -t1 -c$conns -d${secs}s per run" >&2
# Warm both servers once so that the measured runs start equal.
wrk -t1 -c"$conns" -d2s "http://$bare/v1/tokens/$token_id" >/dev/null
wrk -t1 -c"$conns" -d2s -H "Authorization: Bearer $key" "http://$server/v1/tokens/$token_id" >/dev/null

bare_rps=$(rps -t1 -c"$conns" -d"${secs}s" "http://$bare/v1/tokens/$token_id")
read_rps=$(rps -t1 -c"$conns" -d"${secs}s" -H "Authorization: Bearer $key" \
  "http://$server/v1/tokens/$token_id")
create_rps=$(BENCH_KEY=$key BENCH_PREFIX="run$$" rps -t1 -c"$conns" -d"${secs}s" \
  -s bench/create.lua "http://$server")
created=$(curl -sf "http://$server/v1/tokens?per_page=1" -H "Authorization: Bearer $key" |
  grep -o '"total":[0-9]*' | cut -d: -f2)

ratio=$(awk -v a="$read_rps" -v b="$bare_rps" 'BEGIN {printf "%.1f", 100 * a / b}')
printf '%-48s %12s\n' "bare axum handler, GET (req/s)" "$bare_rps"
printf '%-48s %12s\n' "tokctl-server authenticated GET /v1/tokens/:id" "$read_rps"
printf '%-48s %11s%%\n' "  ratio to bare (target >= 50 %)" "$ratio"
printf '%-48s %12s\n' "tokctl-server durable POST /v1/tokens (req/s)" "$create_rps"
printf '%-48s %12s\n' "  tokens in the database after the run" "$created"
