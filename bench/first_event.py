"""Time to the first event of a streamed answer, per inbound dialect (bench/gateway.sh
DIALECTS=only): from sending a request to receiving the first whole SSE event (the first blank
line after the response's headers), one request at a time on a keep-alive connection, in
ROUNDS with the order rotating. The client's own share (a few syscalls in Python) is in every
figure alike, so differences between paths are the gateway's.

Usage: first_event.py HOST:PORT KEY ROUNDS REQUESTS PATH=BODY...
Prints one line per path: the median over rounds of each round's p50, in microseconds.
"""

import socket
import statistics
import sys
import time


def connect(address):
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def request(path, key, body):
    body = body.encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def once(sock, raw):
    """Microseconds to the first whole event; the rest of the answer is read and dropped."""
    start = time.perf_counter_ns()
    sock.sendall(raw)
    seen = b""
    first = None
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise SystemExit("the gateway closed the connection")
        seen += chunk
        if first is None:
            head = seen.find(b"\r\n\r\n")
            if head >= 0 and seen.find(b"\n\n", head + 4) >= 0:
                first = (time.perf_counter_ns() - start) / 1000
                if not seen.startswith(b"HTTP/1.1 200"):
                    raise SystemExit(seen[:200].decode(errors="replace"))
        # A chunked body ends with an empty chunk.
        if first is not None and seen.endswith(b"\r\n0\r\n\r\n"):
            return first


def main(address, key, rounds, requests, *pairs):
    targets = [pair.split("=", 1) for pair in pairs]
    p50s = {path: [] for path, _ in targets}
    for round_ in range(int(rounds)):
        for i in range(len(targets)):
            path, body = targets[(i + round_) % len(targets)]
            # A connection of its own each time: an idle one would be closed by the server's
            # header timeout while the other paths run.
            sock = connect(address)
            raw = request(path, key, body)
            for _ in range(50):  # warm-up
                once(sock, raw)
            times = [once(sock, raw) for _ in range(int(requests))]
            sock.close()
            p50s[path].append(statistics.median(times))
    for path, _ in targets:
        print(f"{path} {statistics.median(p50s[path]):.1f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
