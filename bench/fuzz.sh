#!/usr/bin/env bash
# Long fuzzing runs on the stable toolchain: the suite's proptest properties (named `fuzz_*`),
# run round after round with fresh seeds for SECONDS each per area, in an optimised build with
# overflow checks and debug assertions on (profile `fuzz`). Areas: the upstream SSE reader, the
# webhook signature verifier (SDK), the request decoders (chat requests, names, webhook URLs,
# credit amounts) and the model catalogue parser. A failure stops the run; proptest writes its
# input under proptest-regressions/ (commit it: the suite replays it first from then on).
#
# Usage: bash bench/fuzz.sh [SECONDS_PER_AREA]      (default 180)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-180}
cases=${CASES:-2000}

areas=(
  "sse|tokctl-server|chat::fuzz::fuzz_upstream_sse"
  "signatures|tokctl-sdk|webhooks::fuzz::"
  "requests|tokctl-server|chat::fuzz::fuzz_chat_request chat::fuzz::fuzz_a_chat_request chat::fuzz::fuzz_a_well_shaped_chat_request openapi::tests::fuzz_ credits::tests::fuzz_"
  "catalogue|tokctl-server|chat::fuzz::fuzz_catalogue"
)

cargo test --profile fuzz --quiet --locked -p tokctl-server -p tokctl-sdk --lib --no-run

summary=()
for area in "${areas[@]}"; do
  IFS='|' read -r name package filters <<<"$area"
  start=$SECONDS
  rounds=0
  targets=0
  while [ $((SECONDS - start)) -lt "$seconds" ]; do
    # shellcheck disable=SC2086 # several filters, one word each
    out=$(PROPTEST_CASES=$cases cargo test --profile fuzz --quiet --locked -p "$package" --lib \
      -- $filters 2>&1) || { echo "$out"; echo "fuzz: $name failed" >&2; exit 1; }
    targets=$(grep -oE '[0-9]+ passed' <<<"$out" | head -1 | cut -d' ' -f1)
    rounds=$((rounds + 1))
  done
  elapsed=$((SECONDS - start))
  line="$name: $targets properties x $((rounds * cases)) cases each in ${elapsed} s, 0 failures"
  echo "$line"
  summary+=("$line")
done
echo
echo "fuzz.sh, $(nproc) cores, $(date -u +%F), $cases cases a round:"
printf '  %s\n' "${summary[@]}"
