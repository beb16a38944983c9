#!/usr/bin/env bash
# Benchmark (not a test): tokctl-server's chat gateway side by side with two other gateways,
# LiteLLM's proxy (PyPI) and Portkey's gateway (npm), all three in front of the same mock upstream
# (server-mock/examples/mock_upstream.rs: OpenAI chat completions, whole and streamed, answered at
# once) on this machine, in one run, one gateway at a time with the other two stopped.
#
# For each gateway, whole and streamed answers, at 1, 8 and 32 connections:
#   - p50 and p99 latency through the gateway, and the same measured calling the mock directly
#     just before that gateway starts; "added" is the difference. Every point is a closed-loop
#     run (oha -c N, no rate limit): each connection sends its next request as soon as the last
#     answer is complete (for a stream: its last byte). At 8 and 32 connections a gateway that
#     is saturated queues requests, so those latencies include queueing, not just the hop.
#   - the throughput ceiling: the requests/s of the 32-connection run (as fast as it goes).
#   - memory: RSS summed over the gateway's whole process tree after its runs (LiteLLM runs a
#     supervisor, two workers and a resource tracker; Portkey and tokctl-server are one process).
#
# Usage: bash bench/peers.sh [SECONDS_PER_POINT]     (default 10; one run takes about
#        36 x SECONDS plus a minute: 7 minutes at 10 s, builds and installs not counted)
#   PEERS_DIR=DIR       where LiteLLM and Portkey are installed (default ~/.cache/tokctl-peers,
#                       reused between runs; reinstalled when the pinned versions change)
#   SKIP_BUILD=1        use the binaries already in target/release (say, while the tree does
#                       not compile); the table then names HEAD, which they may not match
#   TRACE_CONNECT=1     run every gateway under strace (connect, sendto, sendmsg) and fail if
#                       any of them reaches an address outside 127.0.0.0/8; slows them down,
#                       so the figures of such a run are not for comparison
#
# Loopback only: every gateway and the mock listen on 127.0.0.1, and the script checks with
# `ss` that each gateway's process tree listens nowhere else (Portkey 1.15 has no option for its
# address and listens on every interface: bench/peers/loopback-only.cjs, preloaded into node,
# makes it bind 127.0.0.1). LiteLLM is started with every local switch it has for what it would
# fetch (model cost map, blog posts, policy templates, autorouter presets, Anthropic beta
# headers) and LITELLM_MODE=PRODUCTION (no .env read); 1.106 has no telemetry left (its
# --telemetry flag is a no-op kept for old command lines), and its config sets it off anyway.
# After each gateway's runs the script fails if any TCP socket of its tree has a peer outside
# 127.0.0.0/8; short-lived connections and lookups are only caught by TRACE_CONNECT=1.
#
# Versions tested (pinned below): litellm[proxy] 1.106.2 on Python 3.11, every package pinned by
# bench/peers/litellm-constraints.txt (newer releases do not resolve against the package index
# here: 1.108.11 and 1.109.1 need certifi>=2026.10.19, which it lacks); @portkey-ai/gateway
# 1.15.2 on node 20, with @hono/node-server held at 1.14.1 (and @hono/node-ws at 1.2.0, the last
# that accepts it): from 1.14.2 on, Portkey's streamed answers fail with "TypeError: immutable"
# (Portkey-AI/gateway issue 1389). Portkey waits 25 ms on purpose before relaying a stream's
# first event (its stream relay does so for every provider but Bedrock), which its streamed
# figures include.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
peers=${PEERS_DIR:-$HOME/.cache/tokctl-peers}
trace=${TRACE_CONNECT:-0}
litellm_version=1.106.2
portkey_version=1.15.2
hono_node_server=1.14.1
hono_node_ws=1.2.0
hono=4.13.19
litellm_workers=2   # one per core; the mock and oha share the same two cores

for tool in curl python3 node npm ss; do
  command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done
[ "$trace" = 1 ] && { command -v strace >/dev/null || { echo "TRACE_CONNECT=1 needs strace" >&2; exit 1; }; }
# shellcheck source=bench/common.sh
source bench/common.sh
find_oha

# --- installs (reused when the pinned versions are already there) ---
mkdir -p "$peers"
venv="$peers/litellm-venv"
if [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("litellm"))' 2>/dev/null)" != "$litellm_version" ]; then
  echo "installing litellm[proxy]==$litellm_version into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -c bench/peers/litellm-constraints.txt "litellm[proxy]==$litellm_version" >&2
fi
pk="$peers/portkey"
pk_pkg="$pk/node_modules/@portkey-ai/gateway/package.json"
pk_hns="$pk/node_modules/@hono/node-server/package.json"
version_of() { node -p "require('$1').version" 2>/dev/null || true; }
if [ "$(version_of "$pk_pkg")" != "$portkey_version" ] || [ "$(version_of "$pk_hns")" != "$hono_node_server" ]; then
  echo "installing @portkey-ai/gateway@$portkey_version into $pk" >&2
  rm -rf "$pk"
  mkdir -p "$pk"
  cat >"$pk/package.json" <<JSON
{"private": true,
 "dependencies": {"@portkey-ai/gateway": "$portkey_version"},
 "overrides": {"@hono/node-server": "$hono_node_server", "@hono/node-ws": "$hono_node_ws", "hono": "$hono"}}
JSON
  (cd "$pk" && npm install --no-audit --no-fund --loglevel=error >&2)
fi

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  cargo build --release --quiet -p tokctl-server --bin tokctl-server --example mock_upstream
fi
tree_state=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
git diff --quiet HEAD -- Cargo.toml Cargo.lock server-mock 2>/dev/null || tree_state="$tree_state with uncommitted changes"

work=$(mktemp -d)
groups=()   # process groups started here (each gateway and the mock run in their own session)
stop_group() {
  local g=$1
  kill -TERM -- "-$g" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 -- "-$g" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL -- "-$g" 2>/dev/null || true
}
cleanup() { for g in "${groups[@]}"; do stop_group "$g"; done; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME CMD... : runs CMD in a new session (its own process group), logs to $work/NAME.log
start() {
  local name=$1; shift
  if [ "$trace" = 1 ] && [ "$name" != upstream ]; then
    set -- strace -f -qq -e trace=connect,sendto,sendmsg -o "$work/$name.strace" "$@"
  fi
  setsid "$@" >"$work/$name.log" 2>&1 </dev/null &
  started=$!
  groups+=("$started")
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for WHAT SECONDS CMD... : until CMD succeeds
  local what=$1 limit=$2; shift 2
  for _ in $(seq 1 $((limit * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "$what did not start in ${limit}s; its log:" >&2; tail -30 "$work/$what.log" >&2; return 1
}
tree() {  # the pids of a process and all its descendants
  local all list=$1 frontier=$1
  all=$(ps -e -o pid=,ppid=)
  while [ -n "$frontier" ]; do
    frontier=$(awk -v f=" $frontier " 'index(f, " " $2 " ") {print $1}' <<<"$all" | paste -sd' ')
    list="$list $frontier"
  done
  echo $list
}
rss_mb() {  # total RSS of a process tree, MB, and how many processes
  local kb=0 n=0 r
  for p in $(tree "$1"); do
    r=$(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
    [ -n "$r" ] && { kb=$((kb + r)); n=$((n + 1)); }
  done
  echo "$((kb / 1024)) $n"
}
# Every listening socket (TCP and UDP) of the tree must be on 127.0.0.1, and at least one is.
check_loopback() {
  local name=$1 root=$2 pids bad listening
  pids=$(tree "$root" | tr " " "|")
  listening=$(ss -H -ltunp | grep -E "pid=($pids)," || true)
  [ -n "$listening" ] || { echo "$name: no listening socket found" >&2; return 1; }
  bad=$(echo "$listening" | awk '{print $5}' | grep -v '^127\.0\.0\.1:' || true)
  if [ -n "$bad" ]; then echo "$name listens beyond loopback: $bad" >&2; echo "$listening" >&2; return 1; fi
  echo "$name: listens on $(echo "$listening" | awk '{print $5}' | sort -u | paste -sd' ') only" >&2
}
check_peers() {  # no TCP socket of the tree talks to anything outside 127.0.0.0/8
  local name=$1 root=$2 pids bad
  pids=$(tree "$root" | tr " " "|")
  bad=$(ss -H -tanp | grep -E "pid=($pids)," | awk '{print $5}' | grep -v -E '^(127\.|\*:|0\.0\.0\.0:|\[::ffff:127\.)' || true)
  [ -z "$bad" ] || { echo "$name has sockets to non-loopback peers: $bad" >&2; return 1; }
}
check_trace() {  # every address the tree connected or sent a datagram to is a loopback one
  local name=$1 bad
  [ "$trace" = 1 ] || return 0
  bad=$(grep -o -E 'inet_addr\("[^"]*"\)|inet_pton\(AF_INET6, "[^"]*"' "$work/$name.strace" |
    grep -v -E '"127\.|"::1"|"::ffff:127\.' | sort -u || true)
  [ -z "$bad" ] || { echo "$name reached beyond loopback: $bad" >&2; return 1; }
  echo "$name: $(grep -c -E '^[0-9]+ +(connect|sendto|sendmsg)\(' "$work/$name.strace") connect/send calls traced, none beyond 127.0.0.1" >&2
}

start upstream ./target/release/examples/mock_upstream 127.0.0.1:0
upstream_pid=$started
wait_for upstream 30 grep -q 'listening on' "$work/upstream.log"
upstream=$(grep -o 'listening on http://[0-9.:]*' "$work/upstream.log" | sed 's|.*http://||')

whole='{"model":"mock","messages":[{"role":"user","content":"hello"}],"max_tokens":16}'
streamed='{"model":"mock","messages":[{"role":"user","content":"hello"}],"max_tokens":16,"stream":true}'

# run URL BODY CONNS SECONDS [header...] -> "p50_ms p99_ms req_per_s share_of_200"
run() {
  local url=$1 body=$2 conns=$3 s=$4 h=(); shift 4
  for x in "$@"; do h+=(-H "$x"); done
  "$oha" -z "${s}s" -c "$conns" --no-tui --output-format json -m POST \
    -H 'content-type: application/json' "${h[@]}" -d "$body" "$url" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); p=d["latencyPercentiles"]; s=d["summary"]
codes=d.get("statusCodeDistribution") or {}; total=sum(codes.values()) or 1
print("%.3f %.3f %.0f %.4f" % (p["p50"]*1000, p["p99"]*1000, s["requestsPerSec"], codes.get("200",0)/total*s["successRate"]))'
}
# answers NAME URL [header...]: one whole and one streamed answer must come back complete
answers() {
  local name=$1 url=$2 h=() w s; shift 2
  for x in "$@"; do h+=(-H "$x"); done
  w=$(curl -sf "$url" -H 'content-type: application/json' "${h[@]}" -d "$whole") || { echo "$name: whole answer failed" >&2; return 1; }
  s=$(curl -sfN "$url" -H 'content-type: application/json' "${h[@]}" -d "$streamed") || { echo "$name: streamed answer failed" >&2; return 1; }
  grep -q 'Hello from the mock upstream.' <<<"$w" || { echo "$name: unexpected whole answer: $w" >&2; return 1; }
  grep -q ' upstream.' <<<"$s" && grep -q '^data: \[DONE\]' <<<"$s" || { echo "$name: unexpected stream: $s" >&2; return 1; }
}

rows=()     # gateway mode conns dp50 dp99 drps gp50 gp99 grps ok
summary=()  # gateway ceiling_whole ceiling_streamed rss_mb processes
# measure NAME ROOT_PID URL [header...]
measure() {
  local name=$1 root=$2 url=$3; shift 3
  local mode body c g ceil_w=0 ceil_s=0
  for mode in whole streamed; do
    body=$whole; [ "$mode" = streamed ] && body=$streamed
    run "$url" "$body" 32 3 "$@" >/dev/null   # warm-up (JIT, pools, workers)
    for c in 1 8 32; do
      g=$(run "$url" "$body" "$c" "$secs" "$@")
      rows+=("$name $mode $c ${direct[$mode$c]} $g")
      echo "  $name $mode c=$c: direct ${direct[$mode$c]} / gateway $g" >&2
      [ "$c" = 32 ] && { [ "$mode" = whole ] && ceil_w=$(awk '{print $3}' <<<"$g") || ceil_s=$(awk '{print $3}' <<<"$g"); }
    done
  done
  summary+=("$name $ceil_w $ceil_s $(rss_mb "$root")")
}
declare -A direct
measure_direct() {
  local mode body c
  for mode in whole streamed; do
    body=$whole; [ "$mode" = streamed ] && body=$streamed
    run "http://$upstream/v1/chat/completions" "$body" 32 2 >/dev/null
    for c in 1 8 32; do
      direct[$mode$c]=$(run "http://$upstream/v1/chat/completions" "$body" "$c" "$secs" | awk '{print $1, $2, $3}')
    done
  done
}

echo "machine: $(nproc) cores; load before: $(uptime | sed 's/.*load average/load average/')" >&2
echo "closed loop, ${secs}s per point; mock upstream at $upstream" >&2
started_at=$(date +%s)

# --- tokctl-server ---
echo "tokctl-server: measuring the mock directly, then through the gateway" >&2
measure_direct
mkdir -p "$work/data"
mock_catalogue "$upstream" >"$work/models.toml"
start tokctl ./target/release/tokctl-server serve --listen 127.0.0.1:0 --data-dir "$work/data" \
  --rate-limit 1000000000 --models "$work/models.toml"
tokctl_pid=$started
wait_for tokctl 60 grep -q 'listening on http://' "$work/tokctl.log"
wait_for tokctl 30 test -s "$work/data/admin.key"
tokctl=$(grep -o 'listening on http://[0-9.:]*' "$work/tokctl.log" | head -1 | sed 's|.*http://||')
key=$(cat "$work/data/admin.key")
check_loopback tokctl-server "$tokctl_pid"
answers tokctl-server "http://$tokctl/v1/chat/completions" "authorization: Bearer $key"
measure tokctl-server "$tokctl_pid" "http://$tokctl/v1/chat/completions" "authorization: Bearer $key"
check_peers tokctl-server "$tokctl_pid"
stop_group "$tokctl_pid"; check_trace tokctl
tokctl_version=$(./target/release/tokctl-server --version 2>/dev/null | awk '{print $NF}' || true)
tokctl_version="${tokctl_version:-?} ($tree_state)"

# --- LiteLLM proxy ---
echo "LiteLLM: measuring the mock directly, then through the proxy" >&2
measure_direct
ll_port=$(free_port)
cat >"$work/litellm.yaml" <<YAML
model_list:
  - model_name: mock
    litellm_params:
      model: openai/mock
      api_base: http://$upstream/v1
      api_key: sk-mock
general_settings:
  master_key: sk-bench-master
litellm_settings:
  telemetry: false
YAML
# The local switches: everything LiteLLM would otherwise fetch at start or on demand comes from
# files in the package; LITELLM_MODE=PRODUCTION stops it loading a .env from the directory.
start litellm env LITELLM_MODE=PRODUCTION LITELLM_LOCAL_MODEL_COST_MAP=True \
  LITELLM_LOCAL_BLOG_POSTS=True LITELLM_LOCAL_POLICY_TEMPLATES=True LITELLM_LOCAL_AUTOROUTER_PRESETS=True \
  LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS=True LITELLM_DONT_SHOW_FEEDBACK_BOX=True \
  "$venv/bin/litellm" --config "$work/litellm.yaml" --host 127.0.0.1 --port "$ll_port" \
  --num_workers "$litellm_workers" --timeout_worker_healthcheck 120
litellm_pid=$started
ll_ready() { [ "$(grep -c 'Application startup complete' "$work/litellm.log")" -ge "$litellm_workers" ] &&
  curl -sf "http://127.0.0.1:$ll_port/health/liveliness"; }
wait_for litellm 300 ll_ready
check_loopback litellm "$litellm_pid"
answers litellm "http://127.0.0.1:$ll_port/v1/chat/completions" "authorization: Bearer sk-bench-master"
measure litellm "$litellm_pid" "http://127.0.0.1:$ll_port/v1/chat/completions" "authorization: Bearer sk-bench-master"
check_peers litellm "$litellm_pid"
stop_group "$litellm_pid"; check_trace litellm

# --- Portkey gateway ---
echo "Portkey: measuring the mock directly, then through the gateway" >&2
measure_direct
pk_port=$(free_port)
start portkey node --require "$PWD/bench/peers/loopback-only.cjs" \
  "$pk/node_modules/@portkey-ai/gateway/build/start-server.js" --headless "--port=$pk_port"
portkey_pid=$started
wait_for portkey 60 curl -sf "http://127.0.0.1:$pk_port/"
check_loopback portkey "$portkey_pid"
pk_headers=("x-portkey-provider: openai" "x-portkey-custom-host: http://$upstream/v1" "authorization: Bearer sk-mock")
answers portkey "http://127.0.0.1:$pk_port/v1/chat/completions" "${pk_headers[@]}"
measure portkey "$portkey_pid" "http://127.0.0.1:$pk_port/v1/chat/completions" "${pk_headers[@]}"
check_peers portkey "$portkey_pid"
stop_group "$portkey_pid"; check_trace portkey

elapsed=$(( $(date +%s) - started_at ))
echo "load after: $(uptime | sed 's/.*load average/load average/'); measuring took ${elapsed}s" >&2
[ "$trace" = 1 ] && echo "TRACE_CONNECT=1: gateways ran under strace, figures below are not for comparison" >&2

echo
echo "Closed loop, ${secs} s per point, $(nproc) cores shared by oha, the mock and the gateway; ms."
echo "Versions: tokctl-server $tokctl_version, LiteLLM $litellm_version ($litellm_workers workers), Portkey $portkey_version (node $(node --version))."
echo
echo "| gateway | answer | conns | direct p50 | direct p99 | gateway p50 | gateway p99 | **added p50** | **added p99** | gateway req/s | ok |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in "${rows[@]}"; do
  # shellcheck disable=SC2086
  set -- $r
  awk -v n="$1" -v m="$2" -v c="$3" -v d50="$4" -v d99="$5" -v g50="$7" -v g99="$8" -v rps="$9" -v ok="${10}" 'BEGIN {
    printf "| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | **%.3f** | **%.3f** | %d | %s |\n",
      n, m, c, d50, d99, g50, g99, g50 - d50, g99 - d99, rps, (ok == 1 ? "all" : sprintf("%.2f%%", ok * 100)) }'
done
echo
echo "| gateway | ceiling whole, 32 conns (req/s) | ceiling streamed (req/s) | RSS after the runs (MB) | processes |"
echo "|---|---:|---:|---:|---:|"
for s in "${summary[@]}"; do
  # shellcheck disable=SC2086
  set -- $s
  echo "| $1 | $2 | $3 | $4 | $5 |"
done
echo
echo "Mock alone at 32 connections, whole: $(awk '{print $3}' <<<"${direct[whole32]}") req/s (last direct run)."
