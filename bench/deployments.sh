#!/usr/bin/env bash
# Benchmark (not a test): what several deployments behind one model cost (issue 39). One server,
# one mock upstream, three models answered by it: `mock` (the upstream named in the model's own
# entry, as before deployments), `mock1` (one listed deployment) and `mock4` (four listed
# deployments, equal weights: the round robin runs on every request). In ROUNDS, the order
# rotating from round to round: added p50 over calling the upstream directly at 2,000 req/s,
# whole and streamed, and the ceiling at 32 connections; then the medians, and each model's p50
# and ceiling as a ratio of `mock`'s in the same round (the median of those).
#
# For this build beside an older one on `mock` (one deployment against the model of before), use
# bench/gateway.sh with BASELINE=path/to/older/tokctl-server.
#
# Usage: [ROUNDS=5] [IDLE=poll] bench/deployments.sh [SECONDS_PER_RUN]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
rounds=${ROUNDS:-5}

# shellcheck source=bench/common.sh
source bench/common.sh
find_oha
idle_poll

cargo build --release --quiet -p tokctl-server --bin tokctl-server --example mock_upstream
start_upstream
{
  mock_catalogue "$upstream"
  for n in 1 4; do
    printf '\n[[models]]\nid = "mock%s"\nprompt_price = 0.5\ncompletion_price = 1.5\nquality = 0.8\nlatency_ms = 1\n' "$n"
    for d in $(seq 1 "$n"); do
      printf '\n[[models.deployments]]\nname = "d%s"\nprovider = "openai"\nbase_url = "http://%s/v1"\nupstream_model = "mock"\n' "$d" "$upstream"
    done
  done
} >"$work/models.toml"
./target/release/tokctl-server serve --listen 127.0.0.1:0 --data-dir "$work/data" \
  --rate-limit 1000000000 --models "$work/models.toml" \
  >"$work/server.out" 2>"$work/server.log" & pids+=($!)
gateway=$(wait_addr "$work/server.log")
key=$(cat "$work/data/admin.key")

models=(mock mock1 mock4)
echo "machine: $(nproc) cores, $idle; oha -c 32, ${secs}s per run, $rounds rounds, order rotating"
printf '%-9s %5s  %-6s %10s %10s\n' mode round model added_p50 ceiling
for mode in whole streamed; do
  body() {
    local b="{\"model\":\"$1\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}],\"max_tokens\":16"
    [ "$mode" = streamed ] && b+=',"stream":true'
    echo "$b}"
  }
  for m in "${models[@]}"; do run "http://$gateway/v1/chat/completions" "$(body "$m")" -c 32 -q 500 >/dev/null; done
  declare -A rows=()
  for round in $(seq 1 "$rounds"); do
    read -r direct _ _ _ < <(run "http://$upstream/v1/chat/completions" "$(body mock)" -c 32 -q 2000 --latency-correction)
    for i in 0 1 2; do
      m=${models[$(( (i + round) % 3 ))]}
      read -r p50 _ _ ok < <(run "http://$gateway/v1/chat/completions" "$(body "$m")" -c 32 -q 2000 --latency-correction)
      [ "$ok" = 1.0000 ] || { echo "failed requests to $m ($ok)" >&2; exit 1; }
      read -r _ _ rps ok < <(run "http://$gateway/v1/chat/completions" "$(body "$m")" -c 32)
      [ "$ok" = 1.0000 ] || { echo "failed requests at $m's ceiling ($ok)" >&2; exit 1; }
      added=$(awk -v a="$p50" -v b="$direct" 'BEGIN{printf "%.4f", a-b}')
      rows[$m]+="$added,$rps "
      printf '%-9s %5s  %-6s %10s %10s\n' "$mode" "$round" "$m" "$added" "$rps"
    done
  done
  python3 - "$mode" "${rows[mock]}" "${rows[mock1]}" "${rows[mock4]}" <<'PY'
import statistics, sys
mode, rows = sys.argv[1], [[tuple(map(float, r.split(","))) for r in s.split()] for s in sys.argv[2:]]
names = ["mock", "mock1", "mock4"]
med = lambda xs: statistics.median(xs)
line = f"{mode}, medians of {len(rows[0])} rounds:"
for name, rs in zip(names, rows):
    line += f" {name} added p50 {1000 * med(a for a, _ in rs):.1f} us, ceiling {med(c for _, c in rs):.0f} req/s"
    if name != "mock":
        line += (f" (added p50 {1000 * med(a - b for (a, _), (b, _) in zip(rs, rows[0])):+.1f} us paired,"
                 f" ceiling x{med(c / d for (_, c), (_, d) in zip(rs, rows[0])):.3f} paired)")
    line += ";"
print(line)
PY
  unset rows
done
