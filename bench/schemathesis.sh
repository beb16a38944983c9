#!/usr/bin/env bash
# The OpenAPI document is the contract: schemathesis (every check, all four phases: examples,
# coverage, fuzzing, stateful through the document's links) against a fresh release server, with
# a valid admin key. Ends with 0 failures, or exits non-zero. Loopback only.
#
# Exceptions, each named with its reason in bench/schemathesis/schemathesis.toml: a method a path
# does not route is a 404 (the spec has no 405); a revoked token stays readable (history is kept);
# 402 is a valid answer to a valid chat request over budget. bench/schemathesis/hooks.py narrows
# `expires_at` to future datetimes for the run (JSON Schema cannot say "in the future").
#
# Usage: bash bench/schemathesis.sh [MAX_EXAMPLES]        (default 100 per operation and phase)
#        SEED=n to replay a run (a seeded run also keeps no example database, so it is the same
#        run every time); SERVER=path/to/tokctl-server to test that build instead of
#        building a release one (.ci/run passes the debug build the test suite made).
set -euo pipefail
cd "$(dirname "$0")/.."
examples=${1:-100}
version=4.32.5
venv=${SCHEMATHESIS_DIR:-$HOME/.cache/tokctl-schemathesis}/venv

if [ ! -x "$venv/bin/schemathesis" ] || ! "$venv/bin/schemathesis" --version | grep -q "$version"; then
  echo "installing schemathesis $version from PyPI into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "schemathesis==$version"
fi

server_bin=${SERVER:-./target/release/tokctl-server}
[ -n "${SERVER:-}" ] || cargo build --release --quiet -p tokctl-server --bin tokctl-server

# The run happens in a network namespace of its own, where only loopback exists: the fuzzer
# creates webhook endpoints with made-up URLs, and the server would otherwise try to deliver to
# them. Root (or user namespaces) is needed for that.
if [ "${TOKCTL_IN_NETNS:-}" != 1 ]; then
  if ! unshare --net true 2>/dev/null; then
    echo "bench/schemathesis.sh needs a network namespace (unshare --net, as root) so that nothing leaves loopback" >&2
    exit 1
  fi
  exec unshare --net env TOKCTL_IN_NETNS=1 bash "$0" "$@"
fi
ip link set lo up

work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$server_bin" serve --listen 127.0.0.1:0 --data-dir "$work/data" \
  --rate-limit 1000000000 --leak-report-rate-limit 1000000000 --sim-token-delay-ms 0 >"$work/server.log" 2>&1 &
server=$!
addr=
for _ in $(seq 1 100); do
  addr=$(grep -o 'listening on http://[0-9.:]*' "$work/server.log" | head -1 | sed 's|.*http://||') || true
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { echo "the server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
key=$(cat "$work/data/admin.key")

status=0
PYTHONPATH=bench/schemathesis SCHEMATHESIS_HOOKS=hooks \
  "$venv/bin/schemathesis" --config-file bench/schemathesis/schemathesis.toml run \
  "http://$addr/v1/openapi.json" \
  --checks all --exclude-checks unsupported_method \
  --header "Authorization: Bearer $key" \
  --max-examples "$examples" ${SEED:+--seed "$SEED" --generation-database none} \
  --request-timeout 30 --workers 1 || status=$?

# The server must never have failed on its own: no 5xx, no panic in its log.
if grep -E 'panicked|answered with a server error' "$work/server.log" >&2; then
  echo "the server logged a panic or a server error" >&2
  status=1
fi
echo "schemathesis $version, $examples examples, $(nproc) cores, $(date -u +%F): exit $status"
exit "$status"
