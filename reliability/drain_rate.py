"""How fast a webhook endpoint's backlog drains once its receiver is back.

  python3 reliability/drain_rate.py target/release/tokctl-server

An endpoint's receiver is down (port bound, not listening) while 200 tokens are rotated, then comes
up answering 200 at once; prints how long the 200 queued events take to arrive and the arrivals
per 0.5 s. Before the delivery worker was woken by each finished attempt it drained at 8 events/s
(4 attempts per 500 ms idle tick); now as fast as the receiver answers.
"""
import sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from common import Client, Server

arrivals = []
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        arrivals.append(time.monotonic())
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()

with tempfile.TemporaryDirectory() as d:
    srv = Server(sys.argv[1], d + "/data", d + "/log", ["--webhook-retry-schedule", "1s," * 30 + "1s"])
    srv.start()
    try:
        c = Client(srv.port, srv.admin_key())
        rx = ThreadingHTTPServer(("127.0.0.1", 0), H, bind_and_activate=False); rx.server_bind()
        st, _, _ = c.request("POST", "/v1/webhooks", {"url": f"http://127.0.0.1:{rx.server_address[1]}/h", "events": ["token.rotated"]})
        assert st == 201
        tid = c.request("POST", "/v1/tokens", {"name": "t", "scopes": ["tokens:read"]})[1]["id"]
        for _ in range(200):
            assert c.request("POST", f"/v1/tokens/{tid}/rotate")[0] == 200
        time.sleep(2)
        rx.server_activate(); threading.Thread(target=rx.serve_forever, daemon=True).start()
        up = time.monotonic()
        while len(arrivals) < 200 and time.monotonic() - up < 120:
            time.sleep(0.1)
        print(f"{len(arrivals)} of 200 queued events arrived in {arrivals[-1] - up:.1f}s "
              f"({len(arrivals) / (arrivals[-1] - up):.1f}/s)")
        buckets = [0] * (int((arrivals[-1] - up) / 0.5) + 1)
        for t in arrivals: buckets[int((t - up) / 0.5)] += 1
        print("arrivals per 0.5 s:", buckets[:24], "...")
    finally:
        srv.kill()
