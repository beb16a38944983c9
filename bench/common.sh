# Shared by bench/gateway.sh and bench/peers.sh (sourced).

# Sets $oha to an oha binary, installing it from crates.io first when there is none.
find_oha() {
  oha=$(command -v oha || echo "$HOME/.local/oha/bin/oha")
  if [ ! -x "$oha" ]; then
    echo "installing oha from crates.io (about 5 minutes on 2 cores)" >&2
    cargo install oha --locked --root "$HOME/.local/oha" >&2
    oha="$HOME/.local/oha/bin/oha"
  fi
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
