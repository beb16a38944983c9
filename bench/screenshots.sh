#!/usr/bin/env bash
# Screenshots of every dashboard section, taken from the real dashboard in headless Chromium
# (Debian's chromium and chromium-driver): the reference server runs in-process on a temporary
# data directory filled through the public API, and a WebDriver session signs in and visits each
# section at 1280x800, then on a 390-pixel phone and with the dark preference.
#
#   bench/screenshots.sh [DIR]      (default docs/screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/screenshots}
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  echo "installing chromium and chromium-driver" >&2
  apt-get install -y -qq chromium chromium-driver >&2
fi
cargo run --quiet --locked -p tokctl-e2e --example screenshots -- "$out"
