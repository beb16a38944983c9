#!/usr/bin/env bash
# Benchmark (not a test): latency the chat gateway adds over calling its upstream directly,
# p50 and p99, whole and streamed answers, at 500, 1,000 and 2,000 req/s; the throughput ceiling
# at 32 connections; and the gateway's memory. Auth, routing and the ledger are all on.
#
# Then p50 and p99 at low load (closed loop, 1 and 8 connections), where a periodic stall shows.
#
# BASELINE=path/to/an/older/tokctl-server measures that build beside this one instead, and
# AB=metrics this build with metrics on beside it with them off, in ROUNDS of one run of each,
# the order rotating from round to round (this machine's speed drifts within a run): added p50
# over the upstream at 2,000 req/s, whole and streamed, and the ceiling at 32 connections; it
# prints each round and the medians, with each build's difference from the first, then stops.
# AB=observe: the operators' views in the same rounds: this build with no request log and no
# traces (off, the default), with the request log (log: --request-log), with traces to a
# collector that takes every batch (traces: sample 1, the mock upstream's /v1/traces) and to one
# that is down (traces_down: a closed port), the last two without the request log.
# TAIL=only runs the low-load part alone (with BASELINE or AB, for each build in turn).
# CEILING=only (with BASELINE or AB) runs only the ceilings, whole then streamed, in ROUNDS
# rounds, each build's read against the first's round by round: the median and quartiles of
# those ratios (use many short rounds, say ROUNDS=40 with 2 s runs, on a machine that drifts).
# ANTHROPIC=only runs only the load to an Anthropic model (see anthropic_beside).
# DIALECTS=only runs only the inbound dialects side by side on a simulated model (see dialects).
#
# Usage: [ROUNDS=3] [IDLE=poll] [BASELINE=BIN] [AB=metrics|observe] [TAIL=only] [CEILING=only] [ANTHROPIC=only] [DIALECTS=only] bench/gateway.sh [SECONDS_PER_RUN]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${ROUNDS:-3}

# shellcheck source=bench/common.sh
source bench/common.sh
find_oha
command -v curl >/dev/null || { echo "curl is required" >&2; exit 1; }

# IDLE=poll: for the length of the run, ask the kernel (PM QoS, /dev/cpu_dma_latency) to keep
# idle CPUs polling instead of halting, as tuned's latency-performance profile does. On a VM that
# halts idle vCPUs at once, every wake-up otherwise costs the host bringing a vCPU back; this
# shows what the gateway adds without that cost. Needs root; the request ends when the script
# exits (the file descriptor closes).
idle_poll

cargo build --release --quiet -p tokctl-server --bin tokctl-server --example mock_upstream \
  --example bare_proxy --example byte_relay
start_upstream
./target/release/examples/bare_proxy 127.0.0.1:0 "$upstream" >"$work/proxy.log" 2>&1 & pids+=($!)
proxy=$(wait_addr "$work/proxy.log")
./target/release/examples/byte_relay 127.0.0.1:0 "$upstream" >"$work/relay.log" 2>&1 & pids+=($!)
relay=$(wait_addr "$work/relay.log")
mock_catalogue "$upstream" >"$work/models.toml"
{ echo; sim_catalogue; } >>"$work/models.toml"
./target/release/tokctl-server serve --listen 127.0.0.1:0 --data-dir "$work/data" \
  --rate-limit 1000000000 --models "$work/models.toml" --sim-token-delay-ms 0 \
  >"$work/server.out" 2>"$work/server.log" & pids+=($!)
gateway_pid=$!
gateway=$(wait_addr "$work/server.log")
key=$(cat "$work/data/admin.key")

whole='{"model":"mock","messages":[{"role":"user","content":"hello"}],"max_tokens":16}'
streamed='{"model":"mock","messages":[{"role":"user","content":"hello"}],"max_tokens":16,"stream":true}'


# The same load to an Anthropic model (the mock's /v1/messages, the request and the answer
# translated through the internal form), this build only (an older one may not know the
# provider): added p50 over calling the mock's /v1/messages directly at 2,000 req/s, and the
# ceiling at 32 connections, whole and streamed, the median of ROUNDS.
anthropic_beside() {
  { cat "$work/models.toml"; cat <<TOML

[[models]]
id = "claude-mock"
provider = "anthropic"
base_url = "http://$upstream"
upstream_model = "claude-mock"
prompt_price = 0.5
completion_price = 1.5
quality = 0.8
latency_ms = 1
TOML
  } >"$work/models-anthropic.toml"
  ./target/release/tokctl-server serve --listen 127.0.0.1:0 --data-dir "$work/anthropic-data" \
    --rate-limit 1000000000 --models "$work/models-anthropic.toml" --sim-token-delay-ms 0 \
    >"$work/anthropic.out" 2>"$work/anthropic.log" & pids+=($!)
  local addr k mode body dp50 gp50 ok rps rows
  addr=$(wait_addr "$work/anthropic.log"); k=$(cat "$work/anthropic-data/admin.key")
  for mode in whole streamed; do
    # The same body is a chat request to the gateway and a Messages request to the mock.
    body='{"model":"claude-mock","messages":[{"role":"user","content":"hello"}],"max_tokens":16}'
    [ "$mode" = streamed ] && body=${body%\}}',"stream":true}'
    key=$k run "http://$addr/v1/chat/completions" "$body" -c 32 -q 500 >/dev/null   # warm-up
    rows=()
    for round in $(seq 1 "$rounds"); do
      read -r dp50 _ _ _ < <(run "http://$upstream/v1/messages" "$body" -c 32 -q 2000 --latency-correction)
      read -r gp50 _ _ ok < <(key=$k run "http://$addr/v1/chat/completions" "$body" -c 32 -q 2000 --latency-correction)
      [ "$ok" = 1.0000 ] || { echo "failed requests to the Anthropic model ($ok)" >&2; exit 1; }
      read -r _ _ rps ok < <(key=$k run "http://$addr/v1/chat/completions" "$body" -c 32)
      [ "$ok" = 1.0000 ] || { echo "failed requests at the Anthropic model's ceiling ($ok)" >&2; exit 1; }
      rows+=("$(awk -v a="$gp50" -v b="$dp50" 'BEGIN{printf "%.3f", a-b}') $rps")
      printf '%-9s %5s  %-12s %10s %11s\n' "$mode" "$round" anthropic "${rows[-1]% *}" "$rps"
    done
    echo "$mode to an Anthropic model (this build), medians of $rounds rounds: added p50 $(median 1 "${rows[@]}") ms, ceiling $(median 2 "${rows[@]}") req/s"
  done
}

# median COLUMN "a b" "a b" ... -> the median of that column
median() {
  local col=$1; shift
  printf '%s\n' "$@" | awk -v c="$col" '{print $c}' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}
# by_round "A1 A2 ..." "B1 B2 ..." -> "median M (quartiles Q1 to Q3)" of the rounds' A over B,
# each round's pair measured minutes apart at most (this machine's speed drifts by more than
# that within a run)
by_round() {
  python3 -c 'import statistics, sys
a, b = ([float(x) for x in s.split()] for s in sys.argv[1:])
r = [x / y for x, y in zip(a, b)]
q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
print("median %.3f (quartiles %.3f to %.3f)" % (statistics.median(r), q[0], q[2]))' "$1" "$2"
}
# paired "P50,P99,RPS ..." "P50,P99,RPS ..." -> the median over rounds of the first's p50 over
# the second's (the two lists in round order)
paired() {
  python3 -c 'import statistics, sys
a, b = ([float(r.split(",")[0]) for r in s.split()] for s in sys.argv[1:])
print("%.3f" % statistics.median(x / y for x, y in zip(a, b)))' "$1" "$2"
}
# Each inbound dialect on the same simulated model (`sim`, no upstream: what is measured is all
# the gateway's), in ROUNDS, the order rotating: p50 and p99 at 2,000 req/s and the ceiling at
# 32 connections, whole and streamed (a stream's tokens 0 ms apart, so its whole time is its
# first event's plus the few more), chat completions first; each dialect's p50 and ceiling as a
# ratio of chat completions' in the same run; then each streamed one's time to its first event
# (bench/first_event.py).
dialects() {
  local paths=(/v1/chat/completions /v1/messages /v1/responses) mode round i path p50 p99 rps ok line
  declare -A bodies=()
  echo "machine: $(nproc) cores, $idle; oha -c 32, ${secs}s per run, $rounds rounds, order rotating" >&2
  printf '%-9s %5s  %-22s %8s %8s %10s\n' mode round path p50_ms p99_ms ceiling
  for mode in whole streamed; do
    # The same body is a chat completions request and a Messages request; Responses' says
    # the same in its own words.
    bodies[/v1/chat/completions]='{"model":"sim","messages":[{"role":"user","content":"hello"}],"max_tokens":16}'
    bodies[/v1/messages]=${bodies[/v1/chat/completions]}
    bodies[/v1/responses]='{"model":"sim","input":[{"role":"user","content":"hello"}],"max_output_tokens":16}'
    if [ "$mode" = streamed ]; then
      for path in "${paths[@]}"; do bodies[$path]=${bodies[$path]%\}}',"stream":true}'; done
    fi
    for path in "${paths[@]}"; do run "http://$gateway$path" "${bodies[$path]}" -c 32 -q 500 >/dev/null; done
    declare -A rows=()
    for round in $(seq 1 "$rounds"); do
      for i in $(seq 0 $((${#paths[@]} - 1))); do
        path=${paths[$(( (i + round) % ${#paths[@]} ))]}
        read -r p50 p99 _ ok < <(run "http://$gateway$path" "${bodies[$path]}" -c 32 -q 2000 --latency-correction)
        [ "$ok" = 1.0000 ] || { echo "failed requests on $path ($ok)" >&2; exit 1; }
        read -r _ _ rps ok < <(run "http://$gateway$path" "${bodies[$path]}" -c 32)
        [ "$ok" = 1.0000 ] || { echo "failed requests at $path's ceiling ($ok)" >&2; exit 1; }
        rows[$path]+="$p50,$p99,$rps "
        printf '%-9s %5s  %-22s %8s %8s %10s\n' "$mode" "$round" "$path" "$p50" "$p99" "$rps"
      done
    done
    line="$mode, medians of $rounds rounds:"
    local c50 cc m50 m99 mc
    for path in "${paths[@]}"; do
      # shellcheck disable=SC2086
      m50=$(printf '%s\n' ${rows[$path]} | cut -d, -f1 | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
      m99=$(printf '%s\n' ${rows[$path]} | cut -d, -f2 | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
      mc=$(printf '%s\n' ${rows[$path]} | cut -d, -f3 | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
      [ "$path" = /v1/chat/completions ] && { c50=$m50; cc=$mc; }
      line+=" $path p50 $m50 ms, p99 $m99 ms, ceiling $mc req/s"
      # The paired ratio: each round's p50 over chat completions' in the same round, the median
      # of those (steadier than the ratio of medians when the machine's speed drifts in a run).
      [ "$path" != /v1/chat/completions ] &&
        line+=" (p50 ratio $(awk -v a="$m50" -v b="$c50" 'BEGIN{printf "%.3f", a/b}'), paired $(paired "${rows[$path]}" "${rows[/v1/chat/completions]}"), ceiling ratio $(awk -v a="$mc" -v b="$cc" 'BEGIN{printf "%.3f", a/b}'))"
      line+=";"
    done
    echo "$line"
    unset rows
  done
  # Streamed, to the first whole event, one request at a time, 500 per path per round. The
  # answer is one token: the simulated model's tokens are all ready at once (0 ms apart), so the
  # first body frame holds the whole answer, and with one token that is the opening, the token
  # and the end: the gateway's work before a client sees anything. (With tokens 1 ms apart the
  # first token's timer, up to 2 ms, would swamp the figures.)
  local first=() c us
  line="streamed (one token), time to the first event, medians of $rounds rounds' p50:"
  for path in "${paths[@]}"; do first+=("$path=${bodies[$path]/:16,/:1,}"); done
  while read -r path us; do
    [ "$path" = /v1/chat/completions ] && c=$us
    line+=" $path $us us"
    [ "$path" != /v1/chat/completions ] &&
      line+=" (ratio $(awk -v a="$us" -v b="$c" 'BEGIN{printf "%.3f", a/b}'), $(awk -v a="$us" -v b="$c" 'BEGIN{printf "%+.0f", a-b}') us)"
    line+=";"
  done < <(python3 bench/first_event.py "$gateway" "$key" "$rounds" 500 "${first[@]}")
  echo "$line"
}
if [ "${DIALECTS:-}" = only ]; then
  dialects
  exit 0
fi
if [ "${ANTHROPIC:-}" = only ]; then
  echo "machine: $(nproc) cores, $idle; oha -c 32, ${secs}s per run, $rounds rounds" >&2
  anthropic_beside
  exit 0
fi
# A/B: this build beside others, in ROUNDS of one run of each, the order rotating from round to
# round. AB=metrics adds this build again with --metrics-listen (scraped every 5 s, as Prometheus
# would); BASELINE adds an older build. Prints each round and the medians, then stops.
if [ -n "${BASELINE:-}" ] || [ "${AB:-}" = metrics ] || [ "${AB:-}" = observe ]; then
  targets=("this $gateway $key")
  [ "${AB:-}" = metrics ] && targets=("metrics_off $gateway $key")
  [ "${AB:-}" = observe ] && targets=()
  start_other() {  # NAME BIN [ARGS...]: serves the same catalogue from a data directory of its own
    local name=$1 bin=$2; shift 2
    "$bin" serve --listen 127.0.0.1:0 --data-dir "$work/$name-data" --rate-limit 1000000000 \
      --models "$work/models.toml" --sim-token-delay-ms 0 "$@" >"$work/$name.out" 2>"$work/$name.log" & pids+=($!)
    targets+=("$name $(wait_addr "$work/$name.log") $(cat "$work/$name-data/admin.key")")
  }
  if [ "${AB:-}" = metrics ]; then
    start_other metrics_on ./target/release/tokctl-server --metrics-listen 127.0.0.1:0
    scrape=$(grep -o 'metrics on http://[0-9.:]*/metrics' "$work/metrics_on.log" | sed 's|metrics on ||')
    ( while sleep 5; do curl -sf "$scrape" >/dev/null || exit 0; done ) & pids+=($!)
  fi
  if [ "${AB:-}" = observe ]; then
    targets+=("off $gateway $key")
    start_other log ./target/release/tokctl-server --request-log
    start_other traces ./target/release/tokctl-server \
      --otlp-endpoint "http://$upstream/v1/traces"
    start_other traces_down ./target/release/tokctl-server \
      --otlp-endpoint "http://127.0.0.1:9/v1/traces"
  fi
  if [ -n "${BASELINE:-}" ]; then
    [ -x "$BASELINE" ] || { echo "BASELINE is not an executable: $BASELINE" >&2; exit 2; }
    start_other baseline "$BASELINE"
  fi
  # measure ADDR KEY BODY -> "added_p50_ms ceiling_rps" against the direct run just before it
  # ("- ceiling_rps" with CEILING=only: the ceiling alone)
  measure() {
    local addr=$1 k=$2 body=$3 dp50 gp50 ok rps
    if [ "${CEILING:-}" = only ]; then
      read -r _ _ rps ok < <(key=$k run "http://$addr/v1/chat/completions" "$body" -c 32)
      [ "$ok" = 1.0000 ] || { echo "failed requests at $addr's ceiling ($ok)" >&2; exit 1; }
      echo "- $rps"
      return
    fi
    read -r dp50 _ _ _ < <(run "http://$upstream/v1/chat/completions" "$body" -c 32 -q 2000 --latency-correction)
    read -r gp50 _ _ ok < <(key=$k run "http://$addr/v1/chat/completions" "$body" -c 32 -q 2000 --latency-correction)
    [ "$ok" = 1.0000 ] || { echo "failed requests at $addr ($ok)" >&2; exit 1; }
    read -r _ _ rps ok < <(key=$k run "http://$addr/v1/chat/completions" "$body" -c 32)
    [ "$ok" = 1.0000 ] || { echo "failed requests at $addr's ceiling ($ok)" >&2; exit 1; }
    awk -v a="$gp50" -v b="$dp50" -v r="$rps" 'BEGIN{printf "%.3f %.0f\n", a-b, r}'
  }
  n=${#targets[@]}
  if [ "${TAIL:-}" = only ]; then
    # Low load, closed loop, at 1 and 8 connections: in each round the upstream alone, then
    # every build in rotating order; p99 and what each adds over the direct run of its round.
    echo "machine: $(nproc) cores, $idle; oha closed loop, ${secs}s per run, $rounds rounds, order rotating; ${BASELINE:+baseline $BASELINE}" >&2
    printf '%-5s %5s  %-12s %8s %8s %10s\n' conns round build p50 p99 added_p99
    for c in 1 8; do
      for t in "${targets[@]}"; do   # warm-up, each
        read -r _ addr k <<<"$t"; key=$k run "http://$addr/v1/chat/completions" "$whole" -c "$c" >/dev/null
      done
      declare -A p99s=() added=()
      for round in $(seq 1 "$rounds"); do
        read -r dp50 dp99 _ _ < <(run "http://$upstream/v1/chat/completions" "$whole" -c "$c")
        printf '%-5s %5s  %-12s %8s %8s %10s\n' "$c" "$round" upstream "$dp50" "$dp99" -
        for i in $(seq 0 $((n - 1))); do
          read -r name addr k <<<"${targets[$(( (i + round) % n ))]}"
          read -r gp50 gp99 _ ok < <(key=$k run "http://$addr/v1/chat/completions" "$whole" -c "$c")
          [ "$ok" = 1.0000 ] || { echo "failed requests at $addr ($ok)" >&2; exit 1; }
          a99=$(awk -v a="$gp99" -v b="$dp99" 'BEGIN{printf "%.3f", a-b}')
          p99s[$name]+="$gp99 "; added[$name]+="$a99 "
          printf '%-5s %5s  %-12s %8s %8s %10s\n' "$c" "$round" "$name" "$gp50" "$gp99" "$a99"
        done
      done
      line="$c connection(s), medians of $rounds rounds:"
      for t in "${targets[@]}"; do
        read -r name _ <<<"$t"
        # shellcheck disable=SC2086
        line+=" $name p99 $(median 1 ${p99s[$name]// /$'\n'}) ms, added p99 $(median 1 ${added[$name]// /$'\n'}) ms;"
      done
      echo "$line"
    done
    exit 0
  fi
  echo "machine: $(nproc) cores, $idle; oha -c 32, ${secs}s per run, $rounds rounds, order rotating${CEILING:+, ceilings only}; ${BASELINE:+baseline $BASELINE}" >&2
  printf '%-9s %5s  %-12s %10s %11s\n' mode round build added_p50 ceiling
  for mode in whole streamed; do
    body=$whole; [ "$mode" = streamed ] && body=$streamed
    for t in "${targets[@]}"; do   # warm-up, each
      read -r _ addr k <<<"$t"; key=$k run "http://$addr/v1/chat/completions" "$body" -c 32 -q 500 >/dev/null
    done
    declare -A p50s=() ceils=()
    for round in $(seq 1 "$rounds"); do
      for i in $(seq 0 $((n - 1))); do
        read -r name addr k <<<"${targets[$(( (i + round) % n ))]}"
        read -r a50 rps < <(measure "$addr" "$k" "$body")
        p50s[$name]+="$a50 "; ceils[$name]+="$rps "
        printf '%-9s %5s  %-12s %10s %11s\n' "$mode" "$round" "$name" "$a50" "$rps"
      done
    done
    read -r first _ <<<"${targets[0]}"
    line="$mode, medians of $rounds rounds:"
    for t in "${targets[@]}"; do
      read -r name _ <<<"$t"
      # shellcheck disable=SC2086
      m50=$(median 1 ${p50s[$name]// /$'\n'}); mc=$(median 1 ${ceils[$name]// /$'\n'})
      if [ "${CEILING:-}" = only ]; then
        line+=" $name ceiling $mc req/s;"
        [ "$name" != "$first" ] && line+=" ($name vs $first round by round: $(by_round "${ceils[$name]}" "${ceils[$first]}"));"
        continue
      fi
      line+=" $name added p50 $m50 ms, ceiling $mc req/s;"
      if [ "$name" != "$first" ]; then
        # shellcheck disable=SC2086
        f50=$(median 1 ${p50s[$first]// /$'\n'}); fc=$(median 1 ${ceils[$first]// /$'\n'})
        line+=" ($name vs $first: p50 $(awk -v a="$m50" -v b="$f50" 'BEGIN{printf "%+.0f", (a-b)*1000}') us, ceiling ratio $(awk -v a="$mc" -v b="$fc" 'BEGIN{printf "%.3f", a/b}'), round by round $(by_round "${ceils[$name]}" "${ceils[$first]}"));"
      fi
    done
    echo "$line"
  done
  exit 0
fi
# Low load: closed loop (each connection sends its next request when the last is answered) at 1
# and 8 connections, direct and through the gateway alternating, ROUNDS times: p50 and p99 of
# each, and what the gateway adds. A stall that hits one request in a hundred shows in p99 here.
tail_latency() {
  local c t dp50 dp99 gp50 gp99 rows
  for c in 1 8; do
    run "http://$gateway/v1/chat/completions" "$whole" -c "$c" >/dev/null   # warm-up
    rows=()
    for t in $(seq 1 "$rounds"); do
      read -r dp50 dp99 _ _ < <(run "http://$upstream/v1/chat/completions" "$whole" -c "$c")
      read -r gp50 gp99 _ _ < <(run "http://$gateway/v1/chat/completions" "$whole" -c "$c")
      rows+=("$(awk -v a="$gp50" -v b="$dp50" -v c="$gp99" -v d="$dp99" 'BEGIN{printf "%.3f %.3f", a-b, c-d}') $dp99 $gp99")
      printf 'low load  c=%s round %s: direct p50 %s p99 %s; gateway p50 %s p99 %s (ms)\n' "$c" "$t" "$dp50" "$dp99" "$gp50" "$gp99"
    done
    echo "low load, $c connection(s), closed loop, whole answers, median of $rounds rounds: added p50 $(median 1 "${rows[@]}") ms, added p99 $(median 2 "${rows[@]}") ms (upstream alone p99 $(median 3 "${rows[@]}") ms, through the gateway $(median 4 "${rows[@]}") ms)"
  done
}
if [ "${TAIL:-}" = only ]; then
  echo "machine: $(nproc) cores, $idle; oha, ${secs}s per run, $rounds rounds" >&2
  tail_latency
  exit 0
fi
summary=()
echo "machine: $(nproc) cores, $idle; oha -c 32 --latency-correction, ${secs}s per run, $rounds rounds at 2000 req/s" >&2
printf '%-9s %6s  %9s %9s  %9s %9s  %10s %10s  %11s\n' mode rate direct_p50 direct_p99 gw_p50 gw_p99 added_p50 added_p99 proxy_added
for mode in whole streamed; do
  body=$whole; [ "$mode" = streamed ] && body=$streamed
  run "http://$upstream/v1/chat/completions" "$body" -c 32 -q 500 >/dev/null   # warm-up
  run "http://$gateway/v1/chat/completions" "$body" -c 32 -q 500 >/dev/null
  run "http://$proxy/v1/chat/completions" "$body" -c 32 -q 500 >/dev/null
  added=()
  # The target rate is measured in several rounds, direct, gateway and the pass-through proxy
  # alternating, because one run's p99 (its slowest 1 %) moves by 0.1 ms or more between runs
  # on this machine. The proxy's added p50 is the yardstick of the ratio.
  for rate in 500 1000 $(printf '2000 %.0s' $(seq 1 "$rounds")); do
    read -r dp50 dp99 _ dok < <(run "http://$upstream/v1/chat/completions" "$body" -c 32 -q "$rate" --latency-correction)
    read -r gp50 gp99 _ gok < <(run "http://$gateway/v1/chat/completions" "$body" -c 32 -q "$rate" --latency-correction)
    [ "$dok" = 1.0000 ] && [ "$gok" = 1.0000 ] || { echo "failed requests ($dok, $gok)" >&2; exit 1; }
    a50=$(awk -v a="$gp50" -v b="$dp50" 'BEGIN{printf "%.3f", a-b}')
    a99=$(awk -v a="$gp99" -v b="$dp99" 'BEGIN{printf "%.3f", a-b}')
    p50=-
    if [ "$rate" = 2000 ]; then
      read -r pp50 _ _ pok < <(run "http://$proxy/v1/chat/completions" "$body" -c 32 -q "$rate" --latency-correction)
      [ "$pok" = 1.0000 ] || { echo "failed requests through the proxy ($pok)" >&2; exit 1; }
      p50=$(awk -v a="$pp50" -v b="$dp50" 'BEGIN{printf "%.3f", a-b}')
      added+=("$a50 $a99 $p50")
    fi
    printf '%-9s %6s  %9s %9s  %9s %9s  %10s %10s  %11s\n' "$mode" "$rate" "$dp50" "$dp99" "$gp50" "$gp99" "$a50" "$a99" "$p50"
  done
  g50=$(median 1 "${added[@]}"); g99=$(median 2 "${added[@]}"); x50=$(median 3 "${added[@]}")
  ratio=$(awk -v a="$g50" -v b="$x50" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "n/a" }')
  summary+=("$mode at 2000 req/s, median of $rounds rounds: added p50 $g50 ms, p99 $g99 ms; the pass-through proxy adds $x50 ms p50; ratio gateway/proxy $ratio (target <= 1.5), p99 target <= 0.5 ms")
done
echo "(latencies in ms)"
printf '%s\n' "${summary[@]}"
tail_latency
# Where the added time goes: the gateway answering itself (simulated model: auth, routing,
# ledger, no upstream hop); a pass-through proxy with no work at all (the hop alone); a relay
# copying bytes (the least a process in between can cost); how long a woken thread waits for a
# CPU here; and a bare TCP round trip between two processes.
sim='{"model":"sim","messages":[{"role":"user","content":"hello"}],"max_tokens":16}'
read -r sp50 sp99 _ _ < <(run "http://$gateway/v1/chat/completions" "$sim" -c 32 -q 2000 --latency-correction)
echo "gateway answering from a simulated model at 2000 req/s: p50 $sp50 ms, p99 $sp99 ms (no upstream hop)"
run "http://$proxy/v1/chat/completions" "$whole" -c 32 -q 500 >/dev/null
read -r dp50 dp99 _ _ < <(run "http://$upstream/v1/chat/completions" "$whole" -c 32 -q 2000 --latency-correction)
read -r bp50 bp99 _ _ < <(run "http://$proxy/v1/chat/completions" "$whole" -c 32 -q 2000 --latency-correction)
echo "pass-through proxy (examples/bare_proxy.rs: axum + pooled hyper, no auth, no JSON, no ledger) at 2000 req/s: p50 $bp50 ms, p99 $bp99 ms; direct p50 $dp50 ms, p99 $dp99 ms: the hop alone adds $(awk -v a="$bp50" -v b="$dp50" 'BEGIN{printf "%.3f", a-b}') ms p50"
run "http://$relay/v1/chat/completions" "$whole" -c 32 -q 500 >/dev/null
read -r rp50 rp99 _ _ < <(run "http://$relay/v1/chat/completions" "$whole" -c 32 -q 2000 --latency-correction)
echo "byte relay (examples/byte_relay.rs: copies bytes, two blocking threads a connection, no HTTP) at 2000 req/s: p50 $rp50 ms, p99 $rp99 ms: a hop that only copies bytes adds $(awk -v a="$rp50" -v b="$dp50" 'BEGIN{printf "%.3f", a-b}') ms p50 here"
if command -v perf >/dev/null && perf sched record -a -o "$work/sched.data" -- true >/dev/null 2>&1; then
  # Scheduler events on every CPU while the gateway serves 2000 req/s for 3 seconds.
  perf sched record -a -o "$work/sched.data" -- "$oha" -z 3s --no-tui -m POST \
    -H 'content-type: application/json' -H "authorization: Bearer $key" -d "$whole" \
    -c 32 -q 2000 "http://$gateway/v1/chat/completions" >/dev/null 2>&1 || true
  delay=$(perf sched latency -i "$work/sched.data" 2>/dev/null | awk -F'|' '/tokio-rt-worker/ {print $4}' | grep -o '[0-9.]* ms' | head -1)
  echo "wake-up delay of tokio worker threads (gateway, upstream, oha) under that load, perf sched latency average: ${delay:-not measured}"
fi
if command -v perf >/dev/null && perf record -e raw_syscalls:sys_enter -o "$work/sys.data" -- true >/dev/null 2>&1; then
  # User time on a streamed request's path: from the system call that hands the gateway a
  # message (the client's request, the upstream's answer) to the one that sends the next.
  "$oha" -z 5s --no-tui -m POST -H 'content-type: application/json' -H "authorization: Bearer $key" \
    -d "$streamed" -c 32 -q 2000 "http://$gateway/v1/chat/completions" >/dev/null 2>&1 &
  sleep 1
  perf record -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -p "$gateway_pid" -o "$work/sys.data" -- sleep 3 >/dev/null 2>&1 || true
  wait $!
  perf script -i "$work/sys.data" -F tid,event,time,trace 2>/dev/null |
    UPSTREAM_PORT=${upstream##*:} GATEWAY_PID=$gateway_pid python3 -c '
import os, re, sys
# Sockets of the gateway connected to the upstream (the rest are clients).
port = "%04X" % int(os.environ["UPSTREAM_PORT"]); pid = os.environ["GATEWAY_PID"]
remote = {l.split()[9]: l.split()[2] for l in open("/proc/net/tcp").readlines()[1:]}
up = set()
for fd in os.listdir(f"/proc/{pid}/fd"):
    m = re.match(r"socket:\[(\d+)\]", os.readlink(f"/proc/{pid}/fd/{fd}"))
    if m and remote.get(m[1], "").endswith(":" + port): up.add(int(fd))
fds, got, gaps = {}, {}, {"request": [], "answer": []}
for line in sys.stdin:
    m = re.match(r"\s*(\d+)\s+([\d.]+):\s+raw_syscalls:(sys_enter|sys_exit):\s+NR (\d+) (.*)", line)
    if not m: continue
    tid, t, kind, nr, rest = m[1], float(m[2]), m[3], int(m[4]), m[5]
    if kind == "sys_exit":
        if nr == 45 and int(rest.split("= ")[1]) > 0: got[tid] = (t, fds.get(tid))
        continue
    if nr == 20 and tid in got:  # writev right after a read: the path this measures
        t0, fd = got[tid]; gaps["answer" if fd in up else "request"].append((t - t0) * 1e6)
    got.pop(tid, None)
    if nr == 45: fds[tid] = int(rest.split(",")[0].strip("("), 16)
mean = lambda v: sum(v) / max(len(v), 1)
print("user time on a streamed request path at 2000 req/s (perf, raw_syscalls): %.1f us from the request to the upstream request, %.1f us from the upstream answer to ours (means of %d and %d)" % (mean(gaps["request"]), mean(gaps["answer"]), len(gaps["request"]), len(gaps["answer"])))
' || true
fi
python3 - <<'PY'
import os, socket, time
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen()
if os.fork() == 0:
    c, _ = ls.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while (d := c.recv(64)): c.sendall(d)
    os._exit(0)
s = socket.create_connection(ls.getsockname()); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
rtts = []
for _ in range(20000):
    t = time.perf_counter(); s.sendall(b"x"); s.recv(64); rtts.append((time.perf_counter() - t) * 1e3)
rtts.sort()
print("bare TCP round trip between two processes (python, back to back): p50 %.3f ms, p99 %.3f ms" % (rtts[len(rtts) // 2], rtts[int(len(rtts) * 0.99)]))
PY
read -r _ _ ceiling_whole ok1 < <(run "http://$gateway/v1/chat/completions" "$whole" -c 32)
read -r _ _ ceiling_stream ok2 < <(run "http://$gateway/v1/chat/completions" "$streamed" -c 32)
read -r _ _ direct_ceiling _ < <(run "http://$upstream/v1/chat/completions" "$whole" -c 32)
echo "ceiling at 32 connections: gateway whole ${ceiling_whole} req/s (success $ok1), streamed ${ceiling_stream} req/s (success $ok2); upstream alone ${direct_ceiling} req/s"
rss=$(awk '/VmRSS/ {print $2}' "/proc/$gateway_pid/status")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$gateway_pid/status")
echo "gateway memory: RSS $((rss / 1024)) MB now, peak $((hwm / 1024)) MB"
requests=$(curl -sf "http://$gateway/v1/usage" -H "Authorization: Bearer $key" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["requests"])')
echo "ledger: $requests completions recorded"
