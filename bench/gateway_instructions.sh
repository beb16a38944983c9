#!/usr/bin/env bash
# Benchmark (not a test): instructions the server executes per chat completion through the
# gateway (an upstream on loopback, auth, routing, the ledger), whole and streamed, with metrics
# off and on (--metrics-listen, scraped once at the end), and for BASELINE (an older
# tokctl-server) when given. Counted by valgrind's callgrind over the whole process: they do not
# depend on what else the machine is doing, which moves req/s and p50 by 10 % or more here.
#
# Each count is a run of N2 requests minus a run of N1 (start-up, migrations, shutdown cancel
# out), divided by N2 - N1; four connections.
#
# OBSERVE=1 counts instead, metrics off, with no request log and no traces (off, the default),
# with the request log (log: --request-log) and with traces to a collector that takes every
# batch (the mock upstream's /v1/traces, sample 1, no request log).
#
# KINDS=whole (or streamed) counts only those answers with OBSERVE.
#
# Usage: [BASELINE=BIN] [OBSERVE=1 [KINDS=whole]] bash bench/gateway_instructions.sh [N1] [N2]     (default 1000 6000)
set -euo pipefail
cd "$(dirname "$0")/.."
n1=${1:-1000}
n2=${2:-6000}
command -v valgrind >/dev/null || { echo "valgrind is required (Debian package valgrind)" >&2; exit 1; }
# shellcheck source=bench/common.sh
source bench/common.sh
find_oha
cargo build --release --quiet -p tokctl-server --bin tokctl-server --example mock_upstream
start_upstream
mock_catalogue "$upstream" >"$work/models.toml"

# count BIN METRICS(off|on) KIND(whole|streamed) N -> instructions of the server process
count() {
  local bin=$1 metrics=$2 kind=$3 n=$4 dir pid addr key body extra=()
  dir=$(mktemp -d -p "$work")
  case $metrics in
    on) extra=(--metrics-listen 127.0.0.1:0) ;;
    log) extra=(--request-log) ;;
    traces) extra=(--otlp-endpoint "http://$upstream/v1/traces") ;;
  esac
  valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$bin" serve --listen 127.0.0.1:0 \
    --data-dir "$dir/data" --rate-limit 1000000000 --models "$work/models.toml" "${extra[@]}" \
    >"$dir/out" 2>"$dir/err" &
  pid=$!
  addr=$(wait_addr "$dir/err" 1200)
  key=$(cat "$dir/data/admin.key")
  body='{"model":"mock","messages":[{"role":"user","content":"hello"}],"max_tokens":16'
  [ "$kind" = streamed ] && body+=',"stream":true'
  "$oha" -n "$n" -c 4 --no-tui --output-format json -m POST -H 'content-type: application/json' \
    -H "authorization: Bearer $key" -d "$body}" "http://$addr/v1/chat/completions" |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; sys.exit(s["successRate"] != 1.0)'
  if [ "$metrics" = on ]; then
    curl -sf "$(grep -o 'metrics on http://[0-9.:]*/metrics' "$dir/err" | sed 's|metrics on ||')" >/dev/null
  fi
  kill -TERM "$pid"; wait "$pid" || true
  grep -E '^(summary|totals):' "$dir/cg.out" | head -1 | awk '{print $2}'
}

per_request() {  # BIN METRICS KIND -> instructions per request
  local a b
  a=$(count "$1" "$2" "$3" "$n1"); b=$(count "$1" "$2" "$3" "$n2")
  echo $(( (b - a) / (n2 - n1) ))
}

if [ -n "${OBSERVE:-}" ]; then
  echo "instructions per chat completion (callgrind, whole process, ($n2 - $n1) requests, 4 connections), metrics off"
  for kind in ${KINDS:-whole streamed}; do
    off=$(per_request ./target/release/tokctl-server off "$kind")
    line="$kind: off $off"
    for name in log traces; do
      n=$(per_request ./target/release/tokctl-server "$name" "$kind")
      line+=", $name $n ($(awk -v a="$n" -v b="$off" 'BEGIN{printf "%+d, %+.1f %%", a-b, (a-b)*100/b}'))"
    done
    echo "$line"
  done
  exit 0
fi
builds=("this ./target/release/tokctl-server")
[ -n "${BASELINE:-}" ] && builds+=("baseline $BASELINE")
echo "instructions per chat completion (callgrind, whole process, ($n2 - $n1) requests, 4 connections)"
for kind in whole streamed; do
  off=$(per_request ./target/release/tokctl-server off "$kind")
  on=$(per_request ./target/release/tokctl-server on "$kind")
  line="$kind: metrics off $off, on $on ($(awk -v a="$on" -v b="$off" 'BEGIN{printf "%+d, %+.1f %%", a-b, (a-b)*100/b}'))"
  if [ -n "${BASELINE:-}" ]; then
    base=$(per_request "$BASELINE" off "$kind")
    line+="; baseline $base (this with metrics off $(awk -v a="$off" -v b="$base" 'BEGIN{printf "%+d, %+.1f %%", a-b, (a-b)*100/b}'))"
  fi
  echo "$line"
done
