#!/usr/bin/env bash
# crash.sh - crash-consistency harness for tokctl-server.
#
# What it proves: an operation the server ACKNOWLEDGED (a complete 2xx answer) survives a
# SIGKILL of the server. For TRIALS trials (default 20): fresh data dir, start the release
# server, 6 threads create tokens (unique names) while 4 threads rotate or revoke tokens
# acknowledged earlier in the trial; SIGKILL the server at a random moment 0.5-2 s in, with
# requests in flight; restart on the same data dir and check: every acked create exists (same
# name), acked revocations are `revoked` with every known secret refused (401), every secret an
# acked rotation replaced is refused, untouched/fully-acked tokens are `active` and their newest
# secret accepted. Nothing is asserted about requests whose answer was lost. Any 5xx, unexpected
# answer or server panic also fails the run. Details: crash.py.
#
# Run from anywhere:   reliability/crash.sh
# Options (env):       TRIALS=20  SEED=<int>  KEEP=1 (keep the temp dir and server logs)
#                      SKIP_BUILD=1 BIN=/path/to/tokctl-server (use an existing binary)
# Needs: cargo, python3 (>= 3.8, standard library only). Loopback only. Exit 0 = nothing lost.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
TRIALS="${TRIALS:-20}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tokctl-crash.XXXXXX")"
PIDFILE="$WORK/server.pids"
CHILD=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$CHILD" ]; then kill "$CHILD" 2>/dev/null || true; wait "$CHILD" 2>/dev/null || true; fi
  # Servers this run started (only ours: the pid file is in our temp dir and the command line
  # names our temp dir).
  if [ -f "$PIDFILE" ]; then
    while read -r pid; do
      if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF "$WORK"; then
        kill -9 "$pid" 2>/dev/null || true
      fi
    done < "$PIDFILE"
  fi
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "building: cargo build --release -p tokctl-server --bin tokctl-server"
  (cd "$ROOT" && cargo build --release -p tokctl-server --bin tokctl-server)
  BIN="$ROOT/target/release/tokctl-server"
fi
BIN="${BIN:-$ROOT/target/release/tokctl-server}"
# Run a private copy, so a rebuild of the shared target/ during the run changes nothing.
cp "$BIN" "$WORK/tokctl-server"
echo "binary: $BIN (tree $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$( [ -n "$(git -C "$ROOT" status --porcelain -- server-mock Cargo.toml Cargo.lock 2>/dev/null)" ] && echo ', uncommitted server changes'))"

start=$(date +%s)
timeout --signal=TERM 1800 python3 "$HERE/crash.py" --binary "$WORK/tokctl-server" --work "$WORK" \
  --trials "$TRIALS" --pidfile "$PIDFILE" ${SEED:+--seed "$SEED"} &
CHILD=$!
wait "$CHILD"
CHILD=""
echo "crash.sh: passed in $(( $(date +%s) - start ))s"
