#!/usr/bin/env bash
# Benchmark (not a test): `tokctl --version` start-up, and `tokctl tokens list --output json`
# against the local reference server compared with curl making the same request, in one run.
# Usage: bench/cli.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}

for tool in hyperfine curl; do
  if ! command -v "$tool" >/dev/null; then
    echo "installing $tool (Debian package)" >&2
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null
    else sudo apt-get update -qq && sudo apt-get install -y -qq "$tool" >/dev/null; fi
  fi
done

cargo build --release --quiet -p tokctl -p tokctl-server
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

./target/release/tokctl-server serve --listen 127.0.0.1:0 --data-dir "$work/data" \
  --rate-limit 1000000000 >"$work/server.out" 2>"$work/server.log" &
server_pid=$!
addr=""
for _ in $(seq 1 300); do
  addr=$(grep -o 'listening on http://[0-9.:]*' "$work/server.log" | sed 's|.*http://||' || true)
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { echo "server did not start" >&2; cat "$work/server.log" >&2; exit 1; }
key=$(cat "$work/data/admin.key")
export TOKCTL_BASE_URL="http://$addr/v1" TOKCTL_API_KEY="$key" TOKCTL_CONFIG="$work/config.toml"
for n in $(seq 1 50); do
  ./target/release/tokctl tokens create "bench-$n" --scope tokens:read -q >/dev/null 2>&1
done

# The same request the CLI makes for a one-page list (per_page=100).
url="$TOKCTL_BASE_URL/tokens?page=1&per_page=100"
hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/version.json" \
  './target/release/tokctl --version' >&2
hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/list.json" \
  './target/release/tokctl tokens list --output json' \
  "curl -sf -H 'Authorization: Bearer $key' $url" >&2

python3 - "$work/version.json" "$work/list.json" <<'PY'
import json, sys
version = json.load(open(sys.argv[1]))["results"][0]
cli, curl = json.load(open(sys.argv[2]))["results"]
ms = lambda r: r["mean"] * 1000
print(f"{'tokctl --version (mean)':<44} {ms(version):8.2f} ms   (target <= 3 ms)")
print(f"{'tokctl tokens list --output json (mean)':<44} {ms(cli):8.2f} ms")
print(f"{'curl, same request (mean)':<44} {ms(curl):8.2f} ms")
print(f"{'  ratio tokctl / curl':<44} {cli['mean'] / curl['mean']:8.2f} x    (target <= 1.3 x)")
PY
