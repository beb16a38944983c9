#!/usr/bin/env bash
# Benchmark (not a test): instructions the server executes per durable create and per
# authenticated read, counted by valgrind's callgrind, for this build and BASELINE (an older
# tokctl-server). Instruction counts do not depend on what else the machine is doing, so they
# tell a change in CPU work apart from the disk's and the scheduler's noise that moves req/s.
#
# Each count is the whole process (every thread) over a run of N requests, one keep-alive
# connection, minus a run of none (start-up, migrations, shutdown), divided by N. N stays under
# the default rate limit of 1,000 requests a minute.
#
# Usage: BASELINE=BIN bash bench/instructions.sh [N]     (default 900)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-900}
[ -x "${BASELINE:-}" ] || { echo "BASELINE=path/to/an/older/tokctl-server is required" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind is required (Debian package valgrind)" >&2; exit 1; }
cargo build --release --quiet -p tokctl-server --bin tokctl-server

# count BIN MODE N -> instructions of the server process for N requests of MODE (create, read)
count() {
  local bin=$1 mode=$2 requests=$3 dir addr pid
  dir=$(mktemp -d)
  valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$bin" serve --listen 127.0.0.1:0 \
    --data-dir "$dir/data" >"$dir/out" 2>"$dir/err" &
  pid=$!
  addr=""
  for _ in $(seq 1 600); do
    addr=$(grep -o 'listening on http://[0-9.:]*' "$dir/err" | head -1 | sed 's|.*http://||' || true)
    [ -n "$addr" ] && break
    sleep 0.2
  done
  [ -n "$addr" ] || { echo "$bin did not start under valgrind" >&2; cat "$dir/err" >&2; exit 1; }
  python3 - "$addr" "$(cat "$dir/data/admin.key")" "$mode" "$requests" <<'PY'
import http.client, json, sys
addr, key, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
host, port = addr.rsplit(":", 1)
c = http.client.HTTPConnection(host, int(port))
auth = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
def call(method, path, body=None, status=200):
    c.request(method, path, body=body, headers=auth)
    r = c.getresponse(); data = r.read()
    assert r.status == status, (r.status, data)
    return data
token = json.loads(call("POST", "/v1/tokens", json.dumps({"name": "read", "scopes": ["tokens:read"]}), 201))["id"]
for i in range(n):
    if mode == "create":
        call("POST", "/v1/tokens", json.dumps({"name": f"t{i}", "scopes": ["tokens:read"]}), 201)
    else:
        call("GET", "/v1/tokens/" + token)
PY
  kill -INT "$pid"
  wait "$pid" || true
  awk '/^summary:/ {print $2}' "$dir/cg.out"
  rm -rf "$dir"
}

echo "instructions per request (callgrind, whole process, N=$n, one connection)"
printf '%-8s %14s %14s %8s\n' request this baseline ratio
for mode in create read; do
  this=$(( ($(count target/release/tokctl-server "$mode" "$n") - $(count target/release/tokctl-server "$mode" 0)) / n ))
  base=$(( ($(count "$BASELINE" "$mode" "$n") - $(count "$BASELINE" "$mode" 0)) / n ))
  printf '%-8s %14s %14s %8s\n' "$mode" "$this" "$base" "$(awk -v a="$this" -v b="$base" 'BEGIN{printf "%.3f", a/b}')"
done
