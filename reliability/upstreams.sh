#!/usr/bin/env bash
# upstreams.sh - the chat gateway's upstream fault harness.
#
# What it shows: a failing upstream model's circuit opens, `auto` routing passes over it to the
# next candidate while it is open (no request but one probe at a time reaches it), clients keep
# getting answers about as fast as from a healthy upstream, and the circuit closes once the
# upstream is back. Two mock OpenAI-compatible upstreams on 127.0.0.1: `primary` (ranked first
# by `auto`) and `fallback` (always healthy). Five phases, one per fault of primary: refuse
# connections, hang past its timeout_ms (400 ms), answer 500, answer 429 with Retry-After: 2,
# cut answers half-way; each 3 s healthy, 8 s fault, then recovered until its circuit shows
# closed. Four clients send `model: auto` (half streamed) all the while. Printed per fault: share
# answered 200 (whole), requests that reached primary while its circuit was open other than
# probes (must be 0), time from the first failure to open, from recovery to closed, p50/p99
# latency healthy vs during the outage (p99 must stay within 5x healthy + 50 ms).
# Breaker settings: --breaker-cooldown 2s --breaker-max-cooldown 4s, the rest default. Counting
# rules: upstreams.py's docstring. Mocks: upstream_mock.py.
#
# Then one model over three deployments (deployments.py): `refusing`, `limited` (429 with
# Retry-After: 2) and `healthy`, weights 1,1,2, no other model: 10 s of four clients, then the
# three healthy and 1,200 requests. Printed: share answered (must be 100 %), requests that
# reached `limited` inside a Retry-After it gave (must be 0; its probes are counted apart), and
# each deployment's share beside its weight's (must be within 5 points).
#
# Run from anywhere:   reliability/upstreams.sh       (about 1.5 minutes after the build)
# Options (env):       PARTS=faults,deployments (either alone)  WEIGHTS=1,1,2 (deployments)
#                      FAULTS=refuse,hang,500,429,cut (also: stall, an answer's head then silence)
#                      CLIENTS=4  STREAMED=0.5 (share of streamed requests)  CLIENT_TIMEOUT=5 (s)
#                      KEEP=1 (keep the temp dir, server log and run.json)
#                      SKIP_BUILD=1 BIN=/path/to/tokctl-server (use an existing binary)
# FAULTS=stall STREAMED=1 once showed a missing first-byte timeout, fixed in 4ff5439 (RELIABILITY.md).
# Needs: cargo, python3 (>= 3.8, standard library only). Loopback only. Exit 0 = every must holds.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
NAME=upstreams
# shellcheck source=reliability/common.sh
source "$HERE/common.sh"

start=$(date +%s)
PARTS="${PARTS:-faults,deployments}"
if [[ ",$PARTS," == *,faults,* ]]; then
  timeout --signal=TERM 900 python3 "$HERE/upstreams.py" --binary "$WORK/tokctl-server" --work "$WORK" \
    --pidfile "$PIDFILE" ${FAULTS:+--faults "$FAULTS"} ${CLIENTS:+--clients "$CLIENTS"} \
    ${STREAMED:+--streamed "$STREAMED"} ${CLIENT_TIMEOUT:+--client-timeout "$CLIENT_TIMEOUT"} &
  CHILD=$!
  wait "$CHILD"
  CHILD=""
fi
if [[ ",$PARTS," == *,deployments,* ]]; then
  timeout --signal=TERM 300 python3 "$HERE/deployments.py" --binary "$WORK/tokctl-server" --work "$WORK" \
    --pidfile "$PIDFILE" ${WEIGHTS:+--weights "$WEIGHTS"} ${CLIENTS:+--clients "$CLIENTS"} \
    ${STREAMED:+--streamed "$STREAMED"} ${CLIENT_TIMEOUT:+--client-timeout "$CLIENT_TIMEOUT"} &
  CHILD=$!
  wait "$CHILD"
  CHILD=""
fi
echo "upstreams.sh: passed in $(( $(date +%s) - start ))s"
