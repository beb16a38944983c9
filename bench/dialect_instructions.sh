#!/usr/bin/env bash
# Benchmark (not a test): instructions the server executes per request on each inbound dialect
# (chat completions, /v1/messages, /v1/responses) on the same simulated model (no upstream: all
# of it is the gateway's), a one-token stream and a whole 16-token answer, counted by valgrind's
# callgrind over the release build in one run (bench/dialect_instructions.py drives it). Counts
# do not move with the machine's load the way latency does; the run's spread shows in chat
# completions' stream counted twice.
#
# KEEP=DIR copies the callgrind files there (callgrind_annotate reads where each count went).
#
# Usage: [KEEP=DIR] bash bench/dialect_instructions.sh [N]     (requests per case, default 600)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-600}
command -v valgrind >/dev/null || { echo "valgrind is required (Debian package valgrind)" >&2; exit 1; }
# shellcheck source=bench/common.sh
source bench/common.sh
cargo build --release --quiet -p tokctl-server --bin tokctl-server
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
sim_catalogue >"$work/models.toml"
valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" ./target/release/tokctl-server serve \
  --listen 127.0.0.1:0 --data-dir "$work/data" --rate-limit 1000000000 --models "$work/models.toml" \
  --sim-token-delay-ms 0 >"$work/out" 2>"$work/err" &
pid=$!
addr=$(wait_addr "$work/err" 1200)
python3 bench/dialect_instructions.py "$addr" "$(cat "$work/data/admin.key")" "$work" "$n" "$pid"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$work"/cg.*.* "$KEEP"/
declare -A chat=()
for f in "$work"/cg.*.*; do
  name=$(grep -m1 '^desc: Trigger' "$f" | sed 's|.*/||')
  kind=${name%%_*}
  per=$(( $(grep -E '^(summary|totals):' "$f" | head -1 | awk '{print $2}') / n ))
  [ -z "${chat[$kind]:-}" ] && chat[$kind]=$per
  printf '%-40s %8d instructions a request (x%s of chat completions)\n' "$name" "$per" \
    "$(awk -v a="$per" -v b="${chat[$kind]}" 'BEGIN{printf "%.3f", a/b}')"
done
