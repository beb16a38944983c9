"""Time to the first event of a streamed answer, per inbound dialect (bench/gateway.sh
DIALECTS=only): from sending a request to receiving the first whole SSE event (the first blank
line after the response's headers), one request at a time, each path on a keep-alive
connection of its own and the paths taking turns request by request, in ROUNDS with the order
rotating. The client's own share (a few syscalls in Python) is in every
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
        # One keep-alive connection per path, the paths taking turns request by request (the
        # order rotating from round to round), so that a drift in the machine's speed falls on
        # every path alike rather than on whichever ran during it.
        order = [targets[(i + round_) % len(targets)] for i in range(len(targets))]
        socks = [(path, connect(address), request(path, key, body)) for path, body in order]
        for _ in range(50):  # warm-up
            for _, sock, raw in socks:
                once(sock, raw)
        times = {path: [] for path, _ in targets}
        for _ in range(int(requests)):
            for path, sock, raw in socks:
                times[path].append(once(sock, raw))
        for path, sock, _ in socks:
            sock.close()
            p50s[path].append(statistics.median(times[path]))
    for path, _ in targets:
        print(f"{path} {statistics.median(p50s[path]):.1f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
