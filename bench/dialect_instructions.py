"""Driver for bench/dialect_instructions.sh: on a server running under callgrind, warms every
path (so that the ledger's table has grown to its working depth before anything is counted),
then for each case zeroes the counters, sends N requests one at a time on one keep-alive
connection and dumps the counts to OUTDIR/CASE. Chat completions' stream is counted again at the
end, which shows the run's own spread.

Usage: dialect_instructions.py HOST:PORT KEY OUTDIR N PID
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from first_event import connect, once, request  # noqa: E402

CHAT = '{"model":"sim","messages":[{"role":"user","content":"hello"}],"max_tokens":%d%s}'
RESPONSES = '{"model":"sim","input":[{"role":"user","content":"hello"}],"max_output_tokens":%d%s}'


def whole_once(sock, raw):
    """Sends `raw` and reads the whole (Content-Length) answer."""
    sock.sendall(raw)
    seen = b""
    while True:
        seen += sock.recv(1 << 16)
        head = seen.find(b"\r\n\r\n")
        if head >= 0:
            length = re.search(rb"content-length: (\d+)", seen[:head].lower())
            if length and len(seen) >= head + 4 + int(length.group(1)):
                if not seen.startswith(b"HTTP/1.1 200"):
                    raise SystemExit(seen[:300].decode(errors="replace"))
                return


def main(addr, key, outdir, n, pid):
    cases = []
    for kind, tokens, stream in [("stream1", 1, ',"stream":true'), ("whole16", 16, "")]:
        cases += [
            (kind, "/v1/chat/completions", CHAT % (tokens, stream)),
            (kind, "/v1/messages", CHAT % (tokens, stream)),
            (kind, "/v1/responses", RESPONSES % (tokens, stream)),
        ]
    for kind, path, body in cases:
        sock = connect(addr)
        send = once if kind == "stream1" else whole_once
        for _ in range(400):
            send(sock, request(path, key, body))
        sock.close()
    seen = set()
    for kind, path, body in cases + cases[:1]:
        sock = connect(addr)
        raw = request(path, key, body)
        send = once if kind == "stream1" else whole_once
        for _ in range(30):
            send(sock, raw)
        subprocess.run(["callgrind_control", "--zero", pid], check=True, capture_output=True)
        for _ in range(int(n)):
            send(sock, raw)
        name = f"{kind}{path.replace('/', '_')}" + ("_again" if (kind, path) in seen else "")
        seen.add((kind, path))
        subprocess.run(
            ["callgrind_control", f"--dump={outdir}/{name}", pid], check=True, capture_output=True
        )
        sock.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
