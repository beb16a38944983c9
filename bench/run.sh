#!/usr/bin/env bash
# Benchmark (not a test): authenticated GET /v1/tokens/:id against a bare axum handler, a page
# of 20 tokens (GET /v1/tokens?per_page=20, 5 of them with a spending limit), the read of a
# token with a limit, and durable POST /v1/tokens per second, measured in one run on this
# machine with wrk.
#
# BACKEND=postgres measures the same reads and creates on PostgreSQL too, next to SQLite's in
# the same run: a fresh database on the server of $TOKCTL_BENCH_DATABASE_URL (default the local
# postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards. INSTANCES=2 serves it from
# two instances, each measurement's connections split between them (two wrk at once).
#
# BASELINE=path/to/an/older/tokctl-server measures that build's SQLite reads, lists and creates
# in the same run too (a build older than spending limits ignores them and lists plain tokens), in ROUNDS (default 3) of one run of each build, the order alternating from round
# to round (this machine's speed drifts within a run), and prints each round's ratios of this
# build to it and their medians.
#
# Usage: [BACKEND=postgres [INSTANCES=2]] [BASELINE=BIN] bench/run.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
conns=${2:-32}
backend=${BACKEND:-sqlite}
instances=${INSTANCES:-1}
admin_url=${TOKCTL_BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}

case "$backend" in sqlite | postgres) ;; *) echo "BACKEND is sqlite or postgres" >&2; exit 2 ;; esac
case "$instances" in 1 | 2) ;; *) echo "INSTANCES is 1 or 2" >&2; exit 2 ;; esac
if ! command -v wrk >/dev/null; then
  echo "installing wrk (Debian package)" >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq wrk >/dev/null; fi
fi
command -v curl >/dev/null || { echo "curl is required" >&2; exit 1; }
if [ "$backend" = postgres ]; then
  command -v psql >/dev/null || { echo "psql is required to make the benchmark's database" >&2; exit 1; }
fi

cargo build --release --quiet -p tokctl-server --bin tokctl-server --example bare
work=$(mktemp -d)
pids=()
database=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -n "$database" ]; then psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Waits for "listening on http://ADDR" in a log file and prints ADDR.
wait_addr() {
  for _ in $(seq 1 300); do
    addr=$(grep -o 'listening on http://[0-9.:]*' "$1" 2>/dev/null | head -1 | sed 's|.*http://||')
    [ -n "$addr" ] && { echo "$addr"; return 0; }
    sleep 0.1
  done
  echo "server did not start; log:" >&2; cat "$1" >&2; return 1
}

# Runs wrk and prints requests/s; fails if any response was not 2xx.
rps() {
  out=$(wrk "$@")
  if grep -q 'Non-2xx' <<<"$out"; then echo "$out" >&2; echo "non-2xx responses" >&2; return 1; fi
  awk '/Requests\/sec/ {print $2}' <<<"$out"
}

# Runs wrk against every address in $targets at once, the connections split between them, and
# prints the sum of their requests/s. Arguments: wrk options (without -c), then the path.
rps_all() {
  local path=${*: -1} opts=("${@:1:$#-1}") n=0 each sum=0
  read -ra addrs <<<"$targets"
  each=$((conns / ${#addrs[@]}))
  for addr in "${addrs[@]}"; do
    # Each wrk its own token names (create.lua), or two would create the same ones.
    BENCH_PREFIX="${BENCH_PREFIX:-bench}-$n" rps "${opts[@]}" -c"$each" "http://$addr$path" >"$work/rps.$n" &
    n=$((n + 1))
  done
  wait
  for i in $(seq 0 $((n - 1))); do sum=$(awk -v a="$sum" -v b="$(cat "$work/rps.$i")" 'BEGIN {print a + b}'); done
  echo "$sum"
}

# Starts a server on the data directory $1 with the arguments after it and adds its address to
# $targets (not in a subshell: its pid must reach $pids).
start_server() {
  local dir=$1
  shift
  ${server_bin:-./target/release/tokctl-server} serve --listen 127.0.0.1:0 --data-dir "$dir" \
    --rate-limit 1000000000 "$@" >"$dir.out" 2>"$dir.log" & pids+=($!)
  targets="${targets:+$targets }$(wait_addr "$dir.log")"
}

# Measures the servers in $targets (admin key $1): prints "READS LISTS LIMITED CREATES TOTAL"
# (LIMITED: reads of a token with a limit).
measure() {
  local key=$1 first token_id limited_id i limit reads lists limited creates total
  read -r first _ <<<"$targets"
  make_token() {
    curl -sf -X POST "http://$first/v1/tokens" -H "Authorization: Bearer $key" \
      -H 'Content-Type: application/json' -d "{\"name\":\"$1\",\"scopes\":[\"tokens:read\"]$2}" |
      grep -o '"id":"tok_[0-9a-z]*"' | cut -d'"' -f4
  }
  token_id=$(make_token bench-read "")
  # The listed page: 20 tokens, every fourth with a monthly limit.
  for i in $(seq 1 20); do
    limit=""
    [ $((i % 4)) = 0 ] && limit=',"credit_limit":25,"limit_reset":"monthly"'
    limited_id=$(make_token "bench-list-$i" "$limit")
  done
  # Warm once so that measured runs start equal.
  rps_all -t1 -d2s -H "Authorization: Bearer $key" "/v1/tokens/$token_id" >/dev/null
  reads=$(rps_all -t1 -d"${secs}s" -H "Authorization: Bearer $key" "/v1/tokens/$token_id")
  lists=$(rps_all -t1 -d"${secs}s" -H "Authorization: Bearer $key" "/v1/tokens?per_page=20")
  limited=$(rps_all -t1 -d"${secs}s" -H "Authorization: Bearer $key" "/v1/tokens/$limited_id")
  creates=$(BENCH_KEY=$key BENCH_PREFIX="run$$-$RANDOM" rps_all -t1 -d"${secs}s" -s bench/create.lua "")
  total=$(curl -sf "http://$first/v1/tokens?per_page=1" -H "Authorization: Bearer $key" |
    grep -o '"total":[0-9]*' | cut -d: -f2)
  echo "$reads $lists $limited $creates $total"
}

stop_servers() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
}

echo "machine: $(nproc) cores; wrk -t1 -c$conns -d${secs}s per run" >&2
./target/release/examples/bare 127.0.0.1:0 >"$work/bare.log" 2>&1 & bare_pid=$!
bare=$(wait_addr "$work/bare.log")
wrk -t1 -c"$conns" -d2s "http://$bare/v1/tokens/tok_0123456789abcdefghijklmn" >/dev/null
bare_rps=$(rps -t1 -c"$conns" -d"${secs}s" "http://$bare/v1/tokens/tok_0123456789abcdefghijklmn")
kill "$bare_pid"

targets=""
start_server "$work/sqlite"
read -r sqlite_reads sqlite_lists sqlite_limited sqlite_creates sqlite_total \
  < <(measure "$(cat "$work/sqlite/admin.key")")
stop_servers

# One SQLite measurement of build $1 on a fresh data directory $2: prints "READS LISTS CREATES".
sqlite_round() {
  targets=""
  server_bin=$1 start_server "$2"
  read -r reads lists _ creates _ < <(measure "$(cat "$2/admin.key")")
  stop_servers
  echo "$reads $lists $creates"
}

if [ -n "${BASELINE:-}" ]; then
  : >"$work/rounds"
  for round in $(seq 1 "${ROUNDS:-3}"); do
    if [ $((round % 2)) = 1 ]; then
      read -r b_reads b_lists b_creates < <(sqlite_round "$BASELINE" "$work/base$round")
      read -r n_reads n_lists n_creates < <(sqlite_round ./target/release/tokctl-server "$work/new$round")
    else
      read -r n_reads n_lists n_creates < <(sqlite_round ./target/release/tokctl-server "$work/new$round")
      read -r b_reads b_lists b_creates < <(sqlite_round "$BASELINE" "$work/base$round")
    fi
    echo "$round $n_reads $b_reads $n_lists $b_lists $n_creates $b_creates" >>"$work/rounds"
  done
fi

ratio=$(awk -v a="$sqlite_reads" -v b="$bare_rps" 'BEGIN {printf "%.1f", 100 * a / b}')
printf '%-56s %12s\n' "bare axum handler, GET (req/s)" "$bare_rps"
printf '%-56s %12s\n' "SQLite: authenticated GET /v1/tokens/:id (req/s)" "$sqlite_reads"
printf '%-56s %11s%%\n' "  ratio to bare (target >= 50 %)" "$ratio"
printf '%-56s %12s\n' "SQLite: GET /v1/tokens?per_page=20, 5 limited (req/s)" "$sqlite_lists"
printf '%-56s %12s\n' "SQLite: GET /v1/tokens/:id of a limited token (req/s)" "$sqlite_limited"
printf '%-56s %12s\n' "SQLite: durable POST /v1/tokens (req/s)" "$sqlite_creates"
printf '%-56s %12s\n' "  tokens in the database after the run" "$sqlite_total"
if [ -n "${BASELINE:-}" ]; then
  echo "SQLite, this build against the baseline build, round by round (req/s):"
  printf '  %-6s %9s %9s %7s %9s %9s %7s %9s %9s %7s\n' round reads base ratio lists base ratio \
    creates base ratio
  awk '{printf "  %-6s %9.0f %9.0f %6.1f%% %9.0f %9.0f %6.1f%% %9.0f %9.0f %6.1f%%\n", $1, $2, $3,
    100*$2/$3, $4, $5, 100*$4/$5, $6, $7, 100*$6/$7}' "$work/rounds"
  median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
  printf '%-56s %11s%%\n' "  median ratio, reads" \
    "$(awk '{printf "%.1f\n", 100*$2/$3}' "$work/rounds" | median)"
  printf '%-56s %11s%%\n' "  median ratio, lists" \
    "$(awk '{printf "%.1f\n", 100*$4/$5}' "$work/rounds" | median)"
  printf '%-56s %11s%%\n' "  median ratio, creates" \
    "$(awk '{printf "%.1f\n", 100*$6/$7}' "$work/rounds" | median)"
fi

if [ "$backend" = postgres ]; then
  database=tokctl_bench_$$
  psql -q "$admin_url" -c "CREATE DATABASE $database"
  url=$(sed -E "s|/[^/?]*(\\?.*)?$|/$database\\1|" <<<"$admin_url")
  targets=""
  start_server "$work/pg1" --database-url "$url"
  key=$(cat "$work/pg1/admin.key")
  if [ "$instances" = 2 ]; then
    start_server "$work/pg2" --database-url "$url" --webhook-key-file "$work/pg1/webhook.key"
  fi
  read -r pg_reads pg_lists pg_limited pg_creates pg_total < <(measure "$key")
  stop_servers
  label="PostgreSQL, $instances instance"
  [ "$instances" = 1 ] || label="${label}s"
  ratio=$(awk -v a="$pg_reads" -v b="$sqlite_reads" 'BEGIN {printf "%.1f", 100 * a / b}')
  printf '%-56s %12s\n' "$label: authenticated GET (req/s)" "$pg_reads"
  printf '%-56s %11s%%\n' "  ratio to SQLite reads (target >= 60 %)" "$ratio"
  printf '%-56s %12s\n' "$label: GET /v1/tokens?per_page=20 (req/s)" "$pg_lists"
  printf '%-56s %11s%%\n' "  ratio to SQLite lists" \
    "$(awk -v a="$pg_lists" -v b="$sqlite_lists" 'BEGIN {printf "%.1f", 100 * a / b}')"
  printf '%-56s %12s\n' "$label: GET of a limited token (req/s)" "$pg_limited"
  printf '%-56s %12s\n' "$label: durable POST /v1/tokens (req/s, target >= 2000)" "$pg_creates"
  printf '%-56s %12s\n' "  tokens in the database after the run" "$pg_total"
fi
