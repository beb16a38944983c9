#!/usr/bin/env bash
# Compiles TestUSD.sol and x402UptoPermit2Proxy.sol into artifacts.json (ABI, creation bytecode,
# deployed bytecode, the sources' SHA-256) with solc-js and OpenZeppelin from npm, at the
# versions pinned below. reliability/x402_chain.sh deploys from artifacts.json and needs no
# compiler; it refuses an artifacts.json older than the sources (their SHA-256 differ).
#
#   bash reliability/x402/compile.sh           rewrite artifacts.json
#   bash reliability/x402/compile.sh --check   compile again and fail if artifacts.json differs
#
# artifacts.json was made with: solc 0.8.28 (npm `solc`, soljson
# 0.8.28+commit.7893614a.Emscripten.clang), @openzeppelin/contracts 5.1.0, optimizer on with
# 200 runs, evmVersion cancun (ReentrancyGuardTransient uses EIP-1153 transient storage),
# metadata as solc's default (an IPFS hash of the metadata appended to the code).
# Needs: node and npm (the two packages go to a temp dir; npm's own cache is reused).
set -euo pipefail
SOLC_VERSION=0.8.28
OZ_VERSION=5.1.0
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/x402-compile.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
  "solc@$SOLC_VERSION" "@openzeppelin/contracts@$OZ_VERSION" >&2
out="$HERE/artifacts.json"
[ "${1:-}" = --check ] && out="$tmp/artifacts.json"
NODE_PATH="$tmp/node_modules" SRC_DIR="$HERE" OUT="$out" OZ_VERSION="$OZ_VERSION" node - <<'JS'
const fs = require('fs'), path = require('path'), crypto = require('crypto');
const solc = require('solc');
const dir = process.env.SRC_DIR, nm = process.env.NODE_PATH;
const files = ['TestUSD.sol', 'x402UptoPermit2Proxy.sol'];
const settings = {
  optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
};
const input = { language: 'Solidity', sources: {}, settings };
const sha = {};
for (const f of files) {
  const text = fs.readFileSync(path.join(dir, f), 'utf8');
  input.sources[f] = { content: text };
  sha[f] = crypto.createHash('sha256').update(text).digest('hex');
}
const findImports = p => {
  try { return { contents: fs.readFileSync(path.join(nm, p), 'utf8') }; }
  catch (e) { return { error: 'not found: ' + p }; }
};
const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
let failed = false;
for (const e of out.errors || []) { console.error(e.formattedMessage); if (e.severity === 'error') failed = true; }
if (failed) process.exit(1);
const wanted = { 'TestUSD.sol': 'TestUSD', 'x402UptoPermit2Proxy.sol': 'x402UptoPermit2Proxy' };
const contracts = {};
for (const [f, name] of Object.entries(wanted)) {
  const c = out.contracts[f][name];
  contracts[name] = { source: f, sourceSha256: sha[f], abi: c.abi,
    bytecode: '0x' + c.evm.bytecode.object, deployedBytecode: '0x' + c.evm.deployedBytecode.object };
}
const art = { compiler: 'solc-js ' + solc.version(), openzeppelin: process.env.OZ_VERSION,
  settings: { optimizer: settings.optimizer, evmVersion: settings.evmVersion }, contracts };
fs.writeFileSync(process.env.OUT, JSON.stringify(art, null, 1) + '\n');
console.error('compiled ' + Object.keys(contracts).join(', ') + ' with ' + art.compiler + ', OpenZeppelin ' + art.openzeppelin);
JS
if [ "${1:-}" = --check ]; then
  cmp -s "$out" "$HERE/artifacts.json" && echo "artifacts.json is up to date" \
    || { echo "artifacts.json differs from a fresh compile" >&2; exit 1; }
fi
