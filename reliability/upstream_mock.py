"""An OpenAI-compatible upstream on 127.0.0.1 for reliability/upstreams.py, with a fault switch.

POST .../chat/completions answers whole (JSON) or streamed (SSE over chunked HTTP/1.1, with
keep-alive), after a short think time, in one of these modes:
  ok      the answer
  refuse  nothing listens on the port: connections are refused by the kernel (the port is
          kept; the listener comes back on `ok`)
  hang    reads the request and sends nothing until the caller hangs up
  stall   sends the answer's head (200; for a stream, SSE headers) and then nothing until the
          caller hangs up: a first-byte timeout (not in the default run, see upstreams.py)
  500     HTTP 500 with an error body
  429     HTTP 429 with `Retry-After: 2`
  cut     a whole answer's body stops half-way (its Content-Length not reached) and a stream
          stops after its first 2 of 7 events, without the chunked terminator
Each request that reaches it is logged: its tag (the `user` field the client set, which the
gateway passes through), when it arrived, its mode, whether streamed, and `decided`: the moment
just before the mock wrote (or cut) the bytes the gateway's verdict on that attempt rests on
(an error's head, a whole answer, a stream's first event, the cut of a whole answer), so the
gateway cannot have had the verdict earlier. Times are time.monotonic(). Standard library only.
"""

import json
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

THINK = 0.010  # before an answer's first byte
GAP = 0.002  # between streamed events
HANG_LIMIT = 150.0  # past the gateway's own 120 s quiet-gap limit


def chunk_event(obj):
    data = b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


class Upstream:
    def __init__(self, name):
        self.name = name
        self.mode = "ok"
        self.lock = threading.Lock()
        self.log = []  # dicts: tag, arrived, mode, stream, decided
        self.handlers = set()
        self.httpd = None
        self.thread = None
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._listen()

    def _listen(self):
        up = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.busy = False
                with up.lock:
                    up.handlers.add(self)

            def finish(self):
                with up.lock:
                    up.handlers.discard(self)
                try:
                    super().finish()
                except OSError:
                    pass

            def do_POST(self):
                self.busy = True
                try:
                    up.serve(self)
                except OSError:
                    self.close_connection = True
                finally:
                    self.busy = False
                    if up.httpd is None:  # refusing now: no keep-alive past this answer
                        self.close_connection = True

        for _ in range(50):  # the old listener's port may take a moment to free
            try:
                self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError(f"{self.name}: port {self.port} could not be bound again")
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def set_mode(self, mode):
        if mode == "refuse" and self.httpd is not None:
            httpd, self.httpd = self.httpd, None
            httpd.shutdown()
            httpd.server_close()
            with self.lock:
                idle = [h for h in self.handlers if not h.busy]
            for h in idle:  # pooled keep-alive connections: closed, so the next try is refused
                try:
                    h.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self.mode = mode
        if mode != "refuse" and self.httpd is None:
            self._listen()

    def close(self):
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()

    def serve(self, h):
        arrived = time.monotonic()
        body = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        try:
            req = json.loads(body)
        except ValueError:
            req = {}
        mode, stream = self.mode, bool(req.get("stream"))
        entry = {"tag": req.get("user"), "arrived": arrived, "mode": mode, "stream": stream, "decided": None}
        with self.lock:
            self.log.append(entry)
        if mode == "refuse":  # came on a connection kept from before the switch
            entry["decided"] = time.monotonic()
            h.close_connection = True
            h.connection.shutdown(socket.SHUT_RDWR)
            return
        if mode in ("hang", "stall"):
            h.close_connection = True
            if mode == "stall":
                h.send_response(200)
                h.send_header("Content-Type", "text/event-stream" if stream else "application/json")
                h.send_header("Transfer-Encoding" if stream else "Content-Length", "chunked" if stream else "1000")
                h.end_headers()
            end = arrived + HANG_LIMIT
            while time.monotonic() < end:
                readable, _, _ = select.select([h.connection], [], [], 0.5)
                if readable and not h.connection.recv(1024):
                    break  # the gateway gave up and hung up
            return
        time.sleep(THINK)
        if mode in ("500", "429"):
            status = int(mode)
            err = json.dumps({"error": {"message": f"injected {status}", "type": "harness"}}).encode()
            entry["decided"] = time.monotonic()
            h.send_response(status)
            if status == 429:
                h.send_header("Retry-After", "2")
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(err)))
            h.end_headers()
            h.wfile.write(err)
            return
        words = ["the", " answer", " from", " " + self.name]
        if not stream:
            answer = json.dumps({
                "id": "up-1", "object": "chat.completion", "created": int(time.time()), "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(words)},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 8, "completion_tokens": 4, "total_tokens": 12}}).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(answer)))
            h.end_headers()
            if mode == "cut":
                h.wfile.write(answer[: len(answer) // 2])
                h.wfile.flush()
                entry["decided"] = time.monotonic()
                self.abort(h)
                return
            entry["decided"] = time.monotonic()
            h.wfile.write(answer)
            return
        head = {"id": "up-1", "object": "chat.completion.chunk", "created": int(time.time()), "model": "m"}
        events = [dict(head, choices=[{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}])]
        events += [dict(head, choices=[{"index": 0, "delta": {"content": w}, "finish_reason": None}]) for w in words]
        events += [dict(head, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}]),
                   dict(head, choices=[], usage={"prompt_tokens": 8, "completion_tokens": 4, "total_tokens": 12})]
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for i, ev in enumerate(events):
            if mode == "cut" and i == 2:
                self.abort(h)
                return
            if i == 0:
                entry["decided"] = time.monotonic()
            h.wfile.write(chunk_event(ev))
            h.wfile.flush()
            time.sleep(GAP)
        h.wfile.write(chunk_event(b"[DONE]") + b"0\r\n\r\n")

    @staticmethod
    def abort(h):
        h.close_connection = True
        h.wfile.flush()
        h.connection.shutdown(socket.SHUT_RDWR)
