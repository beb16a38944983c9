#!/usr/bin/env bash
# webhooks.sh - webhook delivery harness for tokctl-server.
#
# What it proves: `token.rotated` webhooks are delivered at least once, correctly signed, through
# receiver outages and server crashes. Five receivers on 127.0.0.1: healthy (200 after 50 ms); down (connection
# refused for 30 s, then up); slow (holds requests 12 s, past the 10 s attempt limit, for 25 s,
# then fast); flaky (500 for 35 s, then 200); gone (200 for 5 events, then 410 Gone). 400
# rotations over 20 s by 4 clients; the server is SIGKILLed once mid-rotations and restarted on
# the same data dir, then stopped with SIGTERM and restarted once during the retry phase.
# Checks: every request's HMAC-SHA256 signature (Python hmac) and headers; per token,
# acknowledged rotations <= rotations in the audit log == distinct events at `healthy`; down,
# slow and flaky end up with exactly healthy's event set; nothing reaches `gone` more than 1 s
# after its 410 and it shows `disabled`; no 5xx, no panic. Figures: events sent, received,
# duplicates, time to drain. Retry schedule 1s,2s,3s,5s x17 (about 90 s). Details: webhooks.py.
#
# Run from anywhere:   reliability/webhooks.sh          (about 2 minutes after the build)
# Options (env):       SEED=<int>  KEEP=1 (keep the temp dir and server log)  DRAIN_TIMEOUT=300
#                      SKIP_BUILD=1 BIN=/path/to/tokctl-server (use an existing binary)
# Needs: cargo, python3 (>= 3.8, standard library only). Loopback only. Exit 0 = all checks hold.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
NAME=webhooks
# shellcheck source=reliability/common.sh
source "$HERE/common.sh"

start=$(date +%s)
timeout --signal=TERM 900 python3 "$HERE/webhooks.py" --binary "$WORK/tokctl-server" --work "$WORK" \
  --pidfile "$PIDFILE" --drain-timeout "${DRAIN_TIMEOUT:-300}" ${SEED:+--seed "$SEED"} &
CHILD=$!
wait "$CHILD"
CHILD=""
echo "webhooks.sh: passed in $(( $(date +%s) - start ))s"
