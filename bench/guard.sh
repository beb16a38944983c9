#!/usr/bin/env bash
# The CI guard on the hot paths' cost (run by .ci/run): instructions per request of a token
# read, a list page, a create, an authentication failure and a chat completion whole and
# streamed, counted by valgrind's callgrind on the debug build the test suite already made, and
# compared with bench/guard.baseline; fails when a path costs more than 10 % over its line there.
# BENCHMARKS.md ("The CI guard") says how it was checked against a real regression.
#
# Usage: bash bench/guard.sh [--update] [--only token_read,chat_whole,...]
#   --update   write the counts measured into bench/guard.baseline (commit it with the reason)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in valgrind callgrind_control python3; do
  command -v "$tool" >/dev/null || { echo "guard: $tool is required (Debian packages valgrind, python3)" >&2; exit 1; }
done
cargo build --locked --quiet -p tokctl-server --bin tokctl-server --example mock_upstream
exec python3 bench/guard.py target/debug/tokctl-server target/debug/examples/mock_upstream "$@"
