#!/usr/bin/env bash
# Benchmark (not a test): `tokctl scan` over a generated text tree (default 1 GB in 1 MiB files:
# logs, source and JSON, with secrets planted at known lines, tokctl's from the server's own
# generator and providers' keys of every shape the scan knows, and near misses beside them),
# warm cache, both cores; compared in the same run with ripgrep searching for the same shapes
# (`rg -f pattern.txt`: tokctl's shape, which checks no checksum, or any provider's). Fails
# unless tokctl reports exactly the planted secrets, at their files and lines.
#
#   bench/scan.sh [SIZE_MB] [PLANTED] [RUNS]      (default 1000 300 5)
#
# The tree is kept in ${TMPDIR:-/tmp}/tokctl-scan-bench-v2-SIZE_MB for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1000}
planted=${2:-300}
runs=${3:-5}

for pkg in hyperfine ripgrep; do
  tool=${pkg/ripgrep/rg}
  if ! command -v "$tool" >/dev/null; then
    echo "installing $pkg (Debian package)" >&2
    if [ "$(id -u)" = 0 ]; then apt-get install -y -qq "$pkg" >/dev/null
    else sudo apt-get install -y -qq "$pkg" >/dev/null; fi
  fi
done

cargo build --release --quiet --locked -p tokctl
cargo build --release --quiet --locked -p tokctl-e2e --example scan_corpus
tokctl=$PWD/target/release/tokctl
dir=${TMPDIR:-/tmp}/tokctl-scan-bench-v2-$size
if [ ! -f "$dir/planted.tsv" ]; then
  echo "writing a ${size} MB tree with $planted planted secrets to $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  ./target/release/examples/scan_corpus "$dir" "$size" "$planted"
fi
cd "$dir"
bytes=$(du -sb tree | cut -f1)
files=$(find tree -type f | wc -l)
# Warm the page cache, as a second scan of the same tree would find it.
find tree -type f -exec cat {} + >/dev/null

# Correctness: exactly the planted secrets (file, line, masked secret), nothing else.
status=0
"$tokctl" scan --output plain tree >found.tsv 2>/dev/null || status=$?
[ "$status" = 3 ] || { echo "tokctl scan exited $status, expected 3" >&2; exit 1; }
cut -f1,2,4 found.tsv | sort >found.sorted
sort planted.tsv >planted.sorted
if ! diff -q planted.sorted found.sorted >/dev/null; then
  echo "tokctl scan did not report exactly the planted secrets:" >&2
  diff planted.sorted found.sorted | head -20 >&2
  exit 1
fi
shape_matches=$(rg --no-filename --count-matches -f pattern.txt tree | awk '{s+=$1} END {print s}')

hyperfine --style basic --warmup 1 --runs "$runs" --ignore-failure --export-json times.json \
  -n "tokctl scan" "$tokctl scan --quiet tree" \
  -n "rg" "rg -f pattern.txt tree" >hyperfine.txt
python3 - "$bytes" "$files" "$planted" "$shape_matches" <<'PY'
import json, sys
size, files, planted, shape = (int(a) for a in sys.argv[1:])
results = {r["command"]: r for r in json.load(open("times.json"))["results"]}
tok, rg = results["tokctl scan"], results["rg"]
def rate(r): return size / r["median"] / 1e6
print(f"tree: {size / 1e6:.0f} MB in {files} files, {planted} planted secrets")
print(f"tokctl scan: found exactly the {planted} planted (ripgrep's pattern matches {shape} places)")
print("| tool | median s | min s | MB/s (median) |")
print("|---|---|---|---|")
for name, r in (("tokctl scan", tok), ("rg -f pattern.txt (the same shapes)", rg)):
    print(f"| {name} | {r['median']:.3f} | {r['min']:.3f} | {rate(r):,.0f} |")
print(f"tokctl time / rg time: {tok['median'] / rg['median']:.2f}x (target <= 1.5x); "
      f"tokctl {rate(tok):,.0f} MB/s (target >= 500)")
PY
