"""Webhook delivery harness for tokctl-server (run through webhooks.sh).

Five receivers on 127.0.0.1, each its own endpoint subscribed to `token.rotated`:
  healthy  answers 200 after 50 ms, always (so the SIGKILL can catch attempts in flight)
  down     port bound but not listening (connection refused) until DOWN_UNTIL, then 200
  slow     a request arriving before SLOW_UNTIL is held 12 s (past the server's 10 s attempt
           limit) before its 200, so the server times out; later requests get 200 at once
  flaky    500 until FLAKY_UNTIL, then 200
  gone     200 until GONE_500_FROM, then 500 (a backlog of pending retries builds up) until
           GONE_410_FROM, then 410 Gone to everything
(times are seconds after the rotations start). While ~ROTATIONS rotations run (4 clients, admin
key), the server is SIGKILLed once (mid-rotations, restarted on the same data dir) and later
stopped once with SIGTERM and restarted (during the retry phase).

Checks (any failure -> exit 1):
  * every request to every receiver carries `x-service-signature` = sha256=HMAC-SHA256(endpoint
    secret, exact body), `x-service-event-id` = body id, a sane `x-service-timestamp`, type
    `token.rotated`, data.id a token id, and no secret in the body;
  * the set of committed rotations is read from the audit log after the run (the event is
    written in the same transaction as the audit entry); per token: acknowledged rotations <=
    audit rotations == distinct events that `healthy` answered 2xx (so no acknowledged
    rotation's event is missing, and no event without a rotation);
  * `down`, `slow` and `flaky` each eventually answer 2xx to every event `healthy` got
    (event-id sets equal), within the drain deadline;
  * `gone`: after its first 410 was sent, no request arrives later than a 1 s grace (attempts
    already leased when the 410 came back); none at all after the grace; the endpoint shows
    `disabled`; every other endpoint stays `active`;
  * no 5xx from the API, no `panic` in the server log.
"""

import argparse
import hashlib
import hmac
import json
import os
import random
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from common import Client, Server, Unknown

DOWN_UNTIL = 30.0
SLOW_UNTIL = 25.0
FLAKY_UNTIL = 35.0
GONE_500_FROM = 5.0
GONE_410_FROM = 15.0
GRACE_410 = 1.0
TOKENS = 50
ROTATIONS = 400
ROTATORS = 4
ROTATION_SECONDS = 20.0
SCHEDULE = "1s,2s,3s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s"
TOKEN_ID = re.compile(r"^tok_[0-9a-z]{24}$")


class Receiver:
    def __init__(self, name, harness):
        self.name = name
        self.h = harness
        self.lock = threading.Lock()
        self.secret = None
        self.requests = []  # dicts: t, event_id, token_id, answered, in_time
        self.ok_events = {}  # event id -> token id, for 2xx answered in time
        self.first_ok = {}  # event id -> seconds after t0 of its first 2xx
        self.ok_answers = 0
        self.first_410_sent = None
        self.bad = []
        recv = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                recv.handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        self.httpd.daemon_threads = True
        self.httpd.server_bind()
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook/{name}"
        self.thread = None

    def listen(self):
        self.httpd.server_activate()
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.thread.start()

    def close(self):
        if self.thread:
            self.httpd.shutdown()
        self.httpd.server_close()

    def decide(self, now, event_id):
        """(status, delay) for a request arriving `now` seconds after the rotations start."""
        if self.name == "healthy":
            return 200, 0.05
        if self.name == "slow" and now < SLOW_UNTIL:
            return 200, 12.0
        if self.name == "flaky" and now < FLAKY_UNTIL:
            return 500, 0.0
        if self.name == "gone":
            if now < GONE_500_FROM:
                return 200, 0.0
            if now < GONE_410_FROM:
                return 500, 0.0
            return 410, 0.0
        return 200, 0.0

    def handle(self, req):
        arrived = time.monotonic()
        now = arrived - self.h.t0
        length = int(req.headers.get("Content-Length") or 0)
        body = req.rfile.read(length)
        sig = req.headers.get("x-service-signature", "")
        event_id = req.headers.get("x-service-event-id", "")
        ts = req.headers.get("x-service-timestamp", "")
        problems = []
        want = "sha256=" + hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(sig, want):
            problems.append(f"bad signature {sig[:20]}...")
        token_id = None
        try:
            ev = json.loads(body)
            token_id = ev.get("data", {}).get("id")
            if ev.get("id") != event_id:
                problems.append(f"header event id {event_id} != body id {ev.get('id')}")
            if ev.get("type") != "token.rotated":
                problems.append(f"type {ev.get('type')}")
            if not (isinstance(token_id, str) and TOKEN_ID.match(token_id)):
                problems.append(f"data.id {token_id!r}")
            if not str(ev.get("id", "")).startswith("evt_"):
                problems.append(f"event id {ev.get('id')!r}")
        except ValueError:
            problems.append("body is not JSON")
        try:
            if abs(int(ts) - time.time()) > 300:
                problems.append(f"timestamp {ts} far from now")
        except ValueError:
            problems.append(f"timestamp {ts!r}")
        text = body.decode("utf-8", "replace")
        if self.h.secret_prefix and self.h.secret_prefix in text or "whsec_" in text:
            problems.append("a secret in the body")
        status, delay = self.decide(now, event_id)
        if delay:
            time.sleep(delay)
        in_time = (time.monotonic() - arrived) < 9.0
        try:
            req.send_response(status)
            req.send_header("Content-Type", "text/plain")
            req.send_header("Content-Length", "2")
            req.end_headers()
            req.wfile.write(b"ok")
            req.wfile.flush()
            written = True
        except OSError:
            written = False
        done = time.monotonic()
        with self.lock:
            self.requests.append({"t": now, "event_id": event_id, "token_id": token_id,
                                  "status": status, "in_time": in_time and written})
            if problems:
                self.bad.append(f"{self.name} {event_id}: " + "; ".join(problems))
            if 200 <= status < 300 and in_time and written:
                self.ok_events[event_id] = token_id
                self.first_ok.setdefault(event_id, done - self.h.t0)
                self.ok_answers += 1
            if status == 410 and written and self.first_410_sent is None:
                self.first_410_sent = done - self.h.t0


class Harness:
    def __init__(self, args):
        self.args = args
        self.t0 = time.monotonic() + 3600  # set when rotations start
        self.secret_prefix = None
        self.port_lock = threading.Lock()
        self.failures = []
        self.api_5xx = []

    def fail(self, msg):
        self.failures.append(msg)
        print(f"FAIL: {msg}", flush=True)

    def client(self):
        return Client(self.server.port, self.key, timeout=15)

    def call(self, method, path, body=None, tries=20):
        for _ in range(tries):
            c = self.client()
            try:
                return c.request(method, path, body)
            except Unknown:
                time.sleep(0.5)
            finally:
                c.close()
        raise RuntimeError(f"{method} {path}: no answer")

    def rotator(self, n, count, rng):
        c = None
        port = None
        for i in range(count):
            # Pace the rotations over ROTATION_SECONDS.
            due = self.t0 + (i + rng.random()) * ROTATION_SECONDS / count
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            tid = rng.choice(self.token_ids)
            with self.port_lock:
                if port != self.server.port:
                    if c:
                        c.close()
                    port = self.server.port
                    c = Client(port, self.key, timeout=15)
            try:
                status, body, _ = c.request("POST", f"/v1/tokens/{tid}/rotate")
            except Unknown:
                with self.port_lock:
                    self.unknown += 1
                continue
            with self.port_lock:
                if status == 200 and body and body.get("token"):
                    self.acked[tid] = self.acked.get(tid, 0) + 1
                    self.acked_total += 1
                else:
                    if status >= 500:
                        self.api_5xx.append(f"rotate {tid}: {status} {body}")
                    self.fail(f"rotate {tid}: unexpected {status} {body}")
        if c:
            c.close()

    def audit_rotations(self):
        per_token = {}
        page = 1
        while True:
            status, body, _ = self.call("GET", f"/v1/audit?action=token.rotated&per_page=100&page={page}")
            if status != 200:
                raise RuntimeError(f"audit page {page}: {status} {body}")
            for e in body["data"]:
                per_token[e["token_id"]] = per_token.get(e["token_id"], 0) + 1
            if page * 100 >= body["meta"]["total"]:
                return per_token
            page += 1

    def run(self):
        a = self.args
        rng = random.Random(a.seed)
        self.receivers = {n: Receiver(n, self) for n in ("healthy", "down", "slow", "flaky", "gone")}
        for name, r in self.receivers.items():
            if name != "down":
                r.listen()
        data = os.path.join(a.work, "data")
        self.server = Server(a.binary, data, os.path.join(a.work, "server.log"),
                             extra_args=["--webhook-retry-schedule", SCHEDULE], pidfile=a.pidfile)
        self.server.start()
        self.key = self.server.admin_key()
        self.endpoint_ids = {}
        for name, r in self.receivers.items():
            status, body, _ = self.call("POST", "/v1/webhooks", {"url": r.url, "events": ["token.rotated"]})
            if status != 201:
                raise RuntimeError(f"create webhook {name}: {status} {body}")
            r.secret = body["secret"]
            self.endpoint_ids[name] = body["id"]
        self.token_ids = []
        for i in range(TOKENS):
            status, body, _ = self.call("POST", "/v1/tokens", {"name": f"wh-{i}", "scopes": ["tokens:read"]})
            if status != 201:
                raise RuntimeError(f"create token: {status} {body}")
            self.token_ids.append(body["id"])
            self.secret_prefix = body["token"][:4]
        self.acked, self.acked_total, self.unknown = {}, 0, 0
        print(f"webhooks: schedule {SCHEDULE}; receivers " +
              ", ".join(f"{n}=:{r.port}" for n, r in self.receivers.items()), flush=True)

        self.t0 = time.monotonic()
        per = ROTATIONS // ROTATORS
        threads = [threading.Thread(target=self.rotator, args=(i, per, random.Random(rng.random())), daemon=True)
                   for i in range(ROTATORS)]
        for t in threads:
            t.start()
        # SIGKILL mid-rotations.
        kill_at = rng.uniform(8.0, 12.0)
        time.sleep(max(0.0, self.t0 + kill_at - time.monotonic()))
        self.server.sigkill()
        print(f"  {time.monotonic()-self.t0:5.1f}s SIGKILL (acked so far {self.acked_total})", flush=True)
        time.sleep(1.0)
        with self.port_lock:
            self.server.start()
        print(f"  {time.monotonic()-self.t0:5.1f}s restarted on :{self.server.port}", flush=True)
        for t in threads:
            t.join(timeout=ROTATION_SECONDS + 60)
        rotations_end = time.monotonic()
        print(f"  {rotations_end-self.t0:5.1f}s rotations done: {self.acked_total} acknowledged, "
              f"{self.unknown} with no answer", flush=True)
        # Graceful restart during the retry phase.
        time.sleep(max(0.0, self.t0 + ROTATION_SECONDS + 5 - time.monotonic()))
        rc = self.server.sigterm(timeout=30)
        with self.port_lock:
            self.server.start()
        print(f"  {time.monotonic()-self.t0:5.1f}s SIGTERM (exit {rc}) and restarted on :{self.server.port}", flush=True)
        if rc != 0:
            self.fail(f"graceful stop exited with {rc}")
        # The down receiver comes up.
        time.sleep(max(0.0, self.t0 + DOWN_UNTIL - time.monotonic()))
        self.receivers["down"].listen()
        print(f"  {time.monotonic()-self.t0:5.1f}s receiver 'down' listening", flush=True)

        committed = self.audit_rotations()
        committed_total = sum(committed.values())
        healthy = self.receivers["healthy"]
        recovering = ["down", "slow", "flaky"]
        done_at = {}
        deadline = time.monotonic() + a.drain_timeout
        while time.monotonic() < deadline:
            with healthy.lock:
                hs = set(healthy.ok_events)
            now = time.monotonic()
            if "healthy" not in done_at and len(hs) >= committed_total:
                done_at["healthy"] = now
            for n in recovering:
                r = self.receivers[n]
                with r.lock:
                    rs = set(r.ok_events)
                if n not in done_at and len(hs) >= committed_total and hs <= rs:
                    done_at[n] = now
            if len(done_at) == 1 + len(recovering):
                break
            time.sleep(0.5)
        drained = time.monotonic()
        # Let anything late arrive (a stray delivery to `gone`, a duplicate).
        time.sleep(3.0)
        self.verify(committed, committed_total, done_at, rotations_end, drained)
        rc = self.server.sigterm(timeout=30)
        if "panic" in self.server.log_text().lower():
            self.fail("'panic' in the server log")
        return 1 if self.failures else 0

    def verify(self, committed, committed_total, done_at, rotations_end, drained):
        healthy = self.receivers["healthy"]
        for r in self.receivers.values():
            with r.lock:
                for b in r.bad[:5]:
                    self.fail(b)
                if len(r.bad) > 5:
                    self.fail(f"{r.name}: {len(r.bad) - 5} more malformed requests")
        # Per token: acked <= committed (audit) == distinct events delivered to healthy.
        with healthy.lock:
            events = dict(healthy.ok_events)
        per_token = {}
        for ev, tid in events.items():
            per_token[tid] = per_token.get(tid, 0) + 1
        missing_acked = 0
        for tid in set(self.token_ids) | set(committed) | set(per_token):
            ack, com, got = self.acked.get(tid, 0), committed.get(tid, 0), per_token.get(tid, 0)
            if ack > com:
                self.fail(f"{tid}: {ack} acknowledged rotations but {com} in the audit log (lost rotation)")
            if got < max(ack, com):
                missing_acked += max(ack, com) - got
                self.fail(f"{tid}: {got} events at healthy, {ack} acked / {com} committed rotations")
            if got > com:
                self.fail(f"{tid}: {got} events at healthy but only {com} committed rotations")
        # Recovering endpoints: same event set as healthy.
        for n in ("down", "slow", "flaky"):
            r = self.receivers[n]
            with r.lock:
                rs = set(r.ok_events)
            missing = set(events) - rs
            extra = rs - set(events)
            if missing:
                self.fail(f"{n}: {len(missing)} events never answered 2xx (e.g. {sorted(missing)[:3]})")
            if extra:
                self.fail(f"{n}: {len(extra)} events healthy never got (e.g. {sorted(extra)[:3]})")
        # gone: nothing after its first 410 (beyond the grace for attempts already in flight).
        gone = self.receivers["gone"]
        with gone.lock:
            t410 = gone.first_410_sent
            reqs = list(gone.requests)
        after = [q for q in reqs if t410 is not None and q["t"] > t410]
        late = [q for q in after if q["t"] > t410 + GRACE_410]
        if t410 is None:
            self.fail("gone never answered 410")
        if late:
            self.fail(f"gone: {len(late)} requests more than {GRACE_410}s after its 410 (first at "
                      f"+{late[0]['t'] - t410:.2f}s)")
        # Endpoint statuses.
        for n, eid in self.endpoint_ids.items():
            status, body, _ = self.call("GET", f"/v1/webhooks/{eid}")
            want = "disabled" if n == "gone" else "active"
            if status != 200 or body.get("status") != want:
                self.fail(f"endpoint {n}: {status} status {body.get('status') if body else None}, want {want}")
        # Figures. Completion: when the endpoint first answered 2xx to the last of healthy's events.
        print(f"  rotations: {ROTATIONS} attempted, {self.acked_total} acknowledged, {self.unknown} no answer, "
              f"{committed_total} committed (audit)")
        rot_end = rotations_end - self.t0
        recovery = {"healthy": 0.0, "down": DOWN_UNTIL, "slow": SLOW_UNTIL, "flaky": FLAKY_UNTIL}
        complete = {}
        for n, r in self.receivers.items():
            with r.lock:
                total = len(r.requests)
                distinct = len({q["event_id"] for q in r.requests})
                ok_distinct = len(r.ok_events)
                ok_answers = r.ok_answers
                non2xx = sum(1 for q in r.requests if not (200 <= q["status"] < 300))
                timed_out = sum(1 for q in r.requests if 200 <= q["status"] < 300 and not q["in_time"])
                first_ok = dict(r.first_ok)
            line = (f"  {n:8s} {total:4d} requests, {distinct:4d} distinct events, {ok_distinct:4d} answered 2xx, "
                    f"{ok_answers - ok_distinct:3d} duplicate 2xx, {total - distinct:4d} redeliveries, {non2xx:4d} non-2xx, "
                    f"{timed_out:3d} 2xx not received by the server (held past 10 s, or server killed)")
            if n in recovery and events and set(events) <= set(first_ok):
                complete[n] = max(first_ok[e] for e in events)
                line += f"; complete at +{complete[n]:.1f}s ({complete[n] - rot_end:+.1f}s after the last rotation)"
                if n != "healthy":
                    backlog = [t for t in first_ok.values() if t >= recovery[n]]
                    span = complete[n] - recovery[n]
                    if backlog and span > 0:
                        line += f"; {len(backlog)} events after its recovery at +{recovery[n]:.0f}s: {len(backlog)/span:.1f}/s"
            if n == "gone":
                line += (f"; first 410 at +{t410:.1f}s, {len(after)} requests after it "
                         f"({len(late)} beyond {GRACE_410}s grace)" if t410 is not None else "")
            print(line)
        for n, eid in self.endpoint_ids.items():
            status, body, _ = self.call("GET", f"/v1/webhooks/{eid}/deliveries?per_page=1")
            if status == 200:
                print(f"  server-recorded attempts {n}: {body['meta']['total']}")
        drain = (max(complete.values()) - rot_end) if len(complete) == 4 else None
        dup_h = healthy.ok_answers - len(healthy.ok_events)
        print(f"webhooks: {committed_total} events sent ({self.acked_total} rotations acknowledged), "
              f"healthy received {len(events)} distinct in {len(healthy.requests)} requests ({dup_h} duplicate 2xx), "
              f"missing {missing_acked}; "
              f"recovering endpoints complete: {sum(1 for n in ('down','slow','flaky') if n in complete)}/3; "
              f"drain {('%.1fs' % drain) if drain is not None else 'NOT DONE'} after the last rotation; "
              f"gone: {len(late)} late requests; {len(self.failures)} failures")
        if drain is None:
            self.fail(f"not drained within {self.args.drain_timeout}s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--pidfile", default=None)
    ap.add_argument("--drain-timeout", type=float, default=300.0)
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int(time.time())
    print(f"webhooks: seed {args.seed}")
    h = Harness(args)
    started = time.monotonic()
    try:
        rc = h.run()
    finally:
        try:
            h.server.kill()
        except Exception:
            pass
        for r in getattr(h, "receivers", {}).values():
            try:
                r.close()
            except Exception:
                pass
    print(f"webhooks: {'PASS' if rc == 0 else 'FAIL'} in {time.monotonic() - started:.0f}s")
    return rc


if __name__ == "__main__":
    sys.exit(main())
