#!/usr/bin/env bash
# x402_chain.sh - the chat gateway's x402 payments, end to end, against a real local EVM chain.
#
# What it proves: a workspace with x402 terms is paid by the official x402 Python client, and
# the money moves on a chain. anvil (from npm) on 127.0.0.1; Permit2 at its canonical address
# (Uniswap's runtime code from npm, patched for chain 31337), a replica of x402's upto proxy at
# its canonical address, an EIP-3009 test token (TestUSD); a facilitator built on the official
# `x402` Python package (2.25.0); the release tokctl-server with terms set by PUT /v1/x402. The
# client (x402HttpxClient) pays POST /v1/chat/completions naming agent_wallet: `upto` whole,
# `exact` whole, `upto` streamed; then two paid PAYMENT-SIGNATURE headers are sent again.
# Checks (with web3, on the chain): the payer's and pay_to's token balances moved by exactly
# the sum of what the gateway reported settled (PAYMENT-RESPONSE, platform.settlement); each
# settlement is one transaction with one Transfer(payer -> pay_to, amount); upto settled less
# than the maximum offered, for the amount the gateway asked /settle for; a replayed payment is
# refused (402) and moves nothing, and the facilitator's /verify finds it spent on the chain.
# Details: reliability/x402/chain_e2e.py; what is not canonical upstream code: RELIABILITY.md.
#
# Run from anywhere:   bash reliability/x402_chain.sh     (about 5 s after the build; a first run
#                      installs for about 40 s more)
# Options (env):       X402_CACHE=DIR (default ~/.cache/tokctl-x402: anvil, the Permit2 code
#                      and the Python venv, reused between runs, refetched when the pins change)
#                      CREDIT_PRICE=1000000 (TestUSD atomic units a credit: 1 TUSD)
#                      KEEP=1 (keep the temp dir: logs, run.json, the facilitator's requests)
#                      SKIP_BUILD=1 BIN=/path/to/tokctl-server (use an existing binary)
# Installs (registries only): npm @foundry-rs/anvil-linux-<arch>@1.7.1 (the anvil binary),
# npm @uniswap/v4-periphery@1.0.3 (only its Permit2 runtime code is kept, MIT), PyPI
# x402[evm,httpx,fastapi,extensions]==2.25.0 and uvicorn==0.54.0 into a venv, every package
# pinned by reliability/x402/constraints.txt. No compiler: the contracts are deployed from
# reliability/x402/artifacts.json (reliability/x402/compile.sh made it).
# Needs: cargo, node and npm, python3 (>= 3.10) with venv. Loopback only. Exit 0 = every check holds.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
NAME=x402-chain
ANVIL_VERSION=1.7.1
V4_PERIPHERY_VERSION=1.0.3
X402_VERSION=2.25.0
UVICORN_VERSION=0.54.0
CACHE="${X402_CACHE:-$HOME/.cache/tokctl-x402}"

for tool in node npm python3 tar; do
  command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
  || { echo "python3 >= 3.10 is required (x402 needs it)" >&2; exit 1; }
case "$(uname -m)" in
  x86_64 | amd64) anvil_pkg=@foundry-rs/anvil-linux-amd64 ;;
  aarch64 | arm64) anvil_pkg=@foundry-rs/anvil-linux-arm64 ;;
  *) echo "no anvil package on npm for $(uname -m)" >&2; exit 1 ;;
esac

# shellcheck source=reliability/common.sh
source "$HERE/common.sh"
start=$(date +%s)

# --- installs (reused when the pinned versions are already there) ---
mkdir -p "$CACHE"
version_of() { node -p "require('$1').version" 2>/dev/null || true; }
anvil_dir="$CACHE/npm/node_modules/$anvil_pkg"
if [ "$(version_of "$anvil_dir/package.json")" != "$ANVIL_VERSION" ] || [ ! -x "$anvil_dir/bin/anvil" ]; then
  echo "installing $anvil_pkg@$ANVIL_VERSION (npm) into $CACHE/npm"
  rm -rf "$CACHE/npm"
  mkdir -p "$CACHE/npm"
  npm install --prefix "$CACHE/npm" --no-audit --no-fund --loglevel=error "$anvil_pkg@$ANVIL_VERSION" >/dev/null
fi
ANVIL="$anvil_dir/bin/anvil"

permit2="$CACHE/permit2-v4-periphery-$V4_PERIPHERY_VERSION"
if [ ! -s "$permit2/permit2-runtime.hex" ]; then
  echo "fetching Permit2's runtime code from @uniswap/v4-periphery@$V4_PERIPHERY_VERSION (npm)"
  rm -rf "$permit2"
  mkdir -p "$WORK/pack" "$permit2"
  (cd "$WORK/pack" && npm pack --silent "@uniswap/v4-periphery@$V4_PERIPHERY_VERSION" >/dev/null)
  tar -xzf "$WORK"/pack/*.tgz -C "$WORK/pack" \
    package/lib/permit2/test/utils/DeployPermit2.sol package/lib/permit2/LICENSE
  # The file etches Permit2 with vm.etch(PERMIT2_ADDRESS, hex"..."): its one hex literal.
  grep -o 'hex"[0-9a-fA-F]*"' "$WORK/pack/package/lib/permit2/test/utils/DeployPermit2.sol" \
    | sed 's/^hex"//; s/"$//' > "$permit2/permit2-runtime.hex.tmp"
  [ "$(wc -l < "$permit2/permit2-runtime.hex.tmp")" = 1 ] \
    || { echo "expected one hex literal in DeployPermit2.sol" >&2; exit 1; }
  cp "$WORK/pack/package/lib/permit2/LICENSE" "$permit2/LICENSE"
  mv "$permit2/permit2-runtime.hex.tmp" "$permit2/permit2-runtime.hex"
  rm -rf "$WORK/pack"
fi

venv="$CACHE/venv"
want="x402[evm,httpx,fastapi,extensions]==$X402_VERSION uvicorn==$UVICORN_VERSION $(python3 --version) $(sha256sum "$HERE/x402/constraints.txt" | cut -c1-16)"
if [ "$(cat "$venv/.installed" 2>/dev/null)" != "$want" ]; then
  echo "installing x402[evm,httpx,fastapi,extensions]==$X402_VERSION and uvicorn==$UVICORN_VERSION (PyPI) into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -c "$HERE/x402/constraints.txt" \
    "x402[evm,httpx,fastapi,extensions]==$X402_VERSION" "uvicorn==$UVICORN_VERSION"
  echo "$want" > "$venv/.installed"
fi
x402_version=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("x402"))')
echo "ready in $(( $(date +%s) - start ))s: anvil $("$ANVIL" --version | head -1 | sed 's/.*Version: //'), x402 $x402_version (Python), Permit2 code from @uniswap/v4-periphery@$V4_PERIPHERY_VERSION"

# --- the run ---
run_start=$(date +%s)
PYTHONDONTWRITEBYTECODE=1 timeout --signal=TERM 600 "$venv/bin/python" "$HERE/x402/chain_e2e.py" --anvil "$ANVIL" \
  --binary "$WORK/tokctl-server" --work "$WORK" --pidfile "$PIDFILE" \
  --permit2-runtime "$permit2/permit2-runtime.hex" --credit-price "${CREDIT_PRICE:-1000000}" \
  --x402-version "$x402_version" &
CHILD=$!
wait "$CHILD"
CHILD=""
echo "x402_chain.sh: passed in $(( $(date +%s) - start ))s (the run itself $(( $(date +%s) - run_start ))s)"
