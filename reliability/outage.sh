#!/usr/bin/env bash
# outage.sh - a PostgreSQL outage under load, as operators see it.
#
# What it shows: while the database is away every request is answered 503 (never a hang),
# /livez stays 200 and /readyz turns 503 and back, service resumes by itself, and the log says
# the outage twice (when it began, with the cause; when it ended, with how long and how many
# requests were refused), whatever the number of refused requests; the count it gives equals
# the non-2xx answers the load generator saw.
#
# How: a PostgreSQL of the run's own (initdb into the temp dir, as the `postgres` user when
# run as root; TLS on, the server connecting with sslmode=require), the release server on it,
# wrk with CONNECTIONS (default 32) for 16 s; 4 s in the database is stopped (pg_ctl stop -m
# fast), AWAY seconds later (default 6) started again.
#
# Run from anywhere:   reliability/outage.sh
# Options (env):       CONNECTIONS=32 AWAY=6 KEEP=1 SKIP_BUILD=1 BIN=/path/to/tokctl-server
# Needs: cargo, wrk, PostgreSQL's server binaries (initdb, pg_ctl), openssl. Loopback only.
# Exit 0 = two warnings, the count right, /livez always 200, service back.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
CONNECTIONS="${CONNECTIONS:-32}"
AWAY="${AWAY:-6}"
NAME=outage
# shellcheck source=reliability/common.sh
source "$HERE/common.sh"

command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)" >&2; exit 1; }
PGBIN="${TOKCTL_TEST_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
[ -x "$PGBIN/initdb" ] || { echo "PostgreSQL's initdb not found (set TOKCTL_TEST_PG_BIN)" >&2; exit 1; }

as_owner=()
if [ "$(id -u)" = 0 ]; then as_owner=(runuser -u postgres --); chown postgres "$WORK"; fi
pg() { "${as_owner[@]}" "$PGBIN/$1" "${@:2}"; }
DB="$WORK/db"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg initdb -D "$DB" -A trust -U postgres --no-sync >/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
  -keyout "$WORK/server.key" -out "$WORK/server.crt" 2>/dev/null
chmod 600 "$WORK/server.key"
[ "$(id -u)" = 0 ] && chown postgres "$WORK/server.key" "$WORK/server.crt"
cat >>"$DB/postgresql.conf" <<EOF
port = $PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$WORK'
ssl = on
ssl_cert_file = '$WORK/server.crt'
ssl_key_file = '$WORK/server.key'
EOF
pg pg_ctl -D "$DB" -l "$WORK/postgres.log" -w start >/dev/null
stop_db() { pg pg_ctl -D "$DB" -m "$1" -w stop >/dev/null 2>&1 || true; }
trap 'stop_db immediate; cleanup' EXIT

"$WORK/tokctl-server" serve --listen 127.0.0.1:0 --data-dir "$WORK/data" --rate-limit 1000000000 \
  --database-timeout 2s --database-url "postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=require" \
  >"$WORK/server.out" 2>"$WORK/server.log" &
echo $! >>"$PIDFILE"
disown
for _ in $(seq 1 100); do grep -q 'listening on' "$WORK/server.log" 2>/dev/null && break; sleep 0.1; done
ADDR=$(grep -o 'listening on http://[0-9.:]*' "$WORK/server.log" | sed 's|.*http://||')
KEY=$(cat "$WORK/data/admin.key")
grep 'PostgreSQL: ' "$WORK/server.log" | sed 's/^.*PostgreSQL: /connection: /'

wrk -t1 -c"$CONNECTIONS" -d16s -H "Authorization: Bearer $KEY" "http://$ADDR/v1/tokens" >"$WORK/wrk.out" 2>&1 &
WRK=$!
probe() { curl -s -o /dev/null -m 5 -w '%{http_code}' "http://$ADDR$1" || echo 000; }
live_bad=0
sleep 4
stop_db fast
echo "database stopped"
sleep 1
echo "during: /livez $(probe /livez), /readyz $(probe /readyz)"
for _ in $(seq 2 "$AWAY"); do [ "$(probe /livez)" = 200 ] || live_bad=$((live_bad + 1)); sleep 1; done
pg pg_ctl -D "$DB" -l "$WORK/postgres.log" -w start >/dev/null
echo "database started"
wait "$WRK"
echo "after:  /livez $(probe /livez), /readyz $(probe /readyz)"
sed -n '/requests in/p;/Non-2xx/p;/Requests\/sec/p' "$WORK/wrk.out"

refused_by_wrk=$(awk '/Non-2xx/ {print $NF}' "$WORK/wrk.out")
loud=$(grep -cE ' (WARN|ERROR) ' "$WORK/server.log" || true)
echo "server log: $(wc -l <"$WORK/server.log") lines, $loud at WARN or ERROR:"
grep -E ' (WARN|ERROR) ' "$WORK/server.log" | sed 's/^[^ ]* *//'
refused_by_log=$(grep -o 'refused=[0-9]*' "$WORK/server.log" | tail -1 | cut -d= -f2)
after=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" "http://$ADDR/v1/tokens")

ok=1
[ "$loud" = 2 ] || { echo "FAIL: $loud warnings, not 2" >&2; ok=0; }
[ "${refused_by_log:-x}" = "${refused_by_wrk:-y}" ] ||
  { echo "FAIL: the log counts ${refused_by_log:-none} refused, wrk saw ${refused_by_wrk:-none}" >&2; ok=0; }
[ "$live_bad" = 0 ] || { echo "FAIL: /livez was not 200 $live_bad times" >&2; ok=0; }
[ "$after" = 200 ] || { echo "FAIL: a request after the outage got $after" >&2; ok=0; }
[ "$ok" = 1 ] && echo "PASS: one outage, two warnings, $refused_by_log refused requests counted"
[ "$ok" = 1 ]
