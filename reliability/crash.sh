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
NAME=crash
# shellcheck source=reliability/common.sh
source "$HERE/common.sh"

start=$(date +%s)
timeout --signal=TERM 1800 python3 "$HERE/crash.py" --binary "$WORK/tokctl-server" --work "$WORK" \
  --trials "$TRIALS" --pidfile "$PIDFILE" ${SEED:+--seed "$SEED"} &
CHILD=$!
wait "$CHILD"
CHILD=""
echo "crash.sh: passed in $(( $(date +%s) - start ))s"
