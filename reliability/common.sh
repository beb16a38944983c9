# Shared by reliability/crash.sh and reliability/webhooks.sh (sourced): a temp dir of the run's
# own, cleanup of exactly the servers the run started, the release build, and a private copy of
# the binary. Set NAME before sourcing; it leaves WORK, PIDFILE and CHILD for the caller.
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tokctl-$NAME.XXXXXX")"
PIDFILE="$WORK/server.pids"
CHILD=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$CHILD" ]; then kill "$CHILD" 2>/dev/null || true; wait "$CHILD" 2>/dev/null || true; fi
  # Servers this run started (only ours: the pid file is in our temp dir and the command line
  # names our temp dir).
  if [ -f "$PIDFILE" ]; then
    while read -r pid; do
      if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF "$WORK"; then
        kill -9 "$pid" 2>/dev/null || true
      fi
    done < "$PIDFILE"
  fi
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "building: cargo build --release -p tokctl-server --bin tokctl-server"
  (cd "$ROOT" && cargo build --release -p tokctl-server --bin tokctl-server)
  BIN="$ROOT/target/release/tokctl-server"
fi
BIN="${BIN:-$ROOT/target/release/tokctl-server}"
# Run a private copy, so a rebuild of the shared target/ during the run changes nothing.
cp "$BIN" "$WORK/tokctl-server"
echo "binary: $BIN (tree $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$( [ -n "$(git -C "$ROOT" status --porcelain -- server-mock Cargo.toml Cargo.lock 2>/dev/null)" ] && echo ', uncommitted server changes'))"

