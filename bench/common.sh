# Shared by bench/gateway.sh, bench/gateway_cost.sh, bench/gateway_instructions.sh,
# bench/deployments.sh and bench/peers.sh (sourced).

# Sets $oha to an oha binary, installing it from crates.io first when there is none.
find_oha() {
  oha=$(command -v oha || echo "$HOME/.local/oha/bin/oha")
  if [ ! -x "$oha" ]; then
    echo "installing oha from crates.io (about 5 minutes on 2 cores)" >&2
    cargo install oha --locked --root "$HOME/.local/oha" >&2
    oha="$HOME/.local/oha/bin/oha"
  fi
}

# start_upstream: a work directory ($work) removed on exit with every process in $pids stopped,
# and the mock upstream (built already) started on loopback: $upstream its address,
# $upstream_pid its process.
start_upstream() {
  work=$(mktemp -d)
  pids=()
  trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
  ./target/release/examples/mock_upstream 127.0.0.1:0 >"$work/upstream.log" 2>&1 & pids+=($!)
  upstream_pid=$!
  upstream=$(wait_addr "$work/upstream.log")
}

# mock_catalogue UPSTREAM_ADDR: a catalogue entry (TOML, on stdout) for model `mock`, an
# OpenAI-compatible upstream at UPSTREAM_ADDR.
mock_catalogue() {
  cat <<TOML
[[models]]
id = "mock"
provider = "openai"
base_url = "http://$1/v1"
upstream_model = "mock"
prompt_price = 0.5
completion_price = 1.5
quality = 0.8
latency_ms = 1
TOML
}

# sim_catalogue: a catalogue entry (TOML, on stdout) for model `sim`, the simulated provider (no
# upstream: what is measured on it is all the gateway's).
sim_catalogue() {
  cat <<TOML
[[models]]
id = "sim"
provider = "simulated"
prompt_price = 0.5
completion_price = 1.5
quality = 0.5
latency_ms = 1
TOML
}

# wait_addr LOG [TRIES]: the address a process logged as "listening on http://ADDR", waiting up
# to TRIES tenths of a second (default 300) for it; prints the log and fails if it never comes.
wait_addr() {
  for _ in $(seq 1 "${2:-300}"); do
    addr=$(grep -o 'listening on http://[0-9.:]*' "$1" 2>/dev/null | head -1 | sed 's|.*http://||')
    [ -n "$addr" ] && { echo "$addr"; return 0; }
    sleep 0.1
  done
  echo "did not start: $1" >&2; cat "$1" >&2; return 1
}

# IDLE=poll: for the length of the run, ask the kernel (PM QoS, /dev/cpu_dma_latency) to keep
# idle CPUs polling instead of halting; sets $idle to say which. Needs root; the request ends
# when the script exits (file descriptor 3 closes).
idle_poll() {
  idle="machine default"
  if [ "${IDLE:-}" = poll ]; then
    exec 3>/dev/cpu_dma_latency || { echo "IDLE=poll needs write access to /dev/cpu_dma_latency" >&2; exit 1; }
    printf 0 >&3
    idle="idle CPUs poll (PM QoS 0 us)"
  fi
}

# run URL BODY [oha args...] -> "p50_ms p99_ms rps success_rate" (gateway requests carry the key)
run() {
  local url=$1 body=$2; shift 2
  "$oha" -z "${secs}s" --no-tui --output-format json -m POST \
    -H 'content-type: application/json' -H "authorization: Bearer $key" -d "$body" "$@" "$url" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); p=d["latencyPercentiles"]; s=d["summary"]
print("%.3f %.3f %.0f %.4f" % (p["p50"]*1000, p["p99"]*1000, s["requestsPerSec"], s["successRate"]))'
}
