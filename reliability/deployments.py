"""One model, three deployments (run through upstreams.sh, after the fault phases).

Three OpenAI-compatible upstreams on 127.0.0.1 (upstream_mock.py) behind one catalogue model
`pool`, as `[[models.deployments]]` `refusing`, `limited` and `healthy` (weights WEIGHTS, default
1,1,2), and no other model: nothing but `pool`'s own deployments can answer. Two phases:

  faults  FAULT s: `refusing` refuses connections, `limited` answers 429 `Retry-After: 2`,
          `healthy` answers. CLIENTS threads send `model: pool` back to back (a share STREAMED
          of them streamed).
  shares  all three answer; once /v1/models shows no deployment open (closed, or half-open
          waiting for its probe, which the next request to it is), the clients send SHARES
          requests and each mock counts what reached it.

Counted:
  answered      a whole answer: 200 with a message; a stream: 200 ending with a chunk with
                finish_reason and platform, then [DONE], no error event
  inside        requests that reached `limited` inside a Retry-After it had answered: after a
                429 was decided at d (the moment the mock wrote it), an arrival in
                (d + SEEN, d + 2 s - 5 ms), SEEN = 50 ms for the gateway to read the 429 (a
                request admitted before that may still arrive); the first arrival after the
                window is the probe, not counted
  shares        each deployment's share of the shares phase's arrivals, beside its weight's
Musts (exit 1): answered 100 % in both phases; inside = 0; every share within 5 points of its
weight's; no panic in the server log.
"""

import argparse
import http.client
import json
import os
import random
import sys
import threading
import time

from common import Server
from upstream_mock import Upstream
from upstreams import MARGIN, Harness as Faults

SEEN = 0.050
NAMES = ["refusing", "limited", "healthy"]


class Harness:
    def __init__(self, args):
        self.a = args
        self.weights = [int(w) for w in args.weights.split(",")]
        self.results = []
        self.failures = []

    def start(self):
        a = self.a
        self.ups = {name: Upstream(name) for name in NAMES}
        models = os.path.join(a.work, "deployments.toml")
        with open(models, "w") as f:
            f.write('[[models]]\nid = "pool"\nprompt_price = 0.1\ncompletion_price = 0.2\n'
                    'quality = 0.9\nlatency_ms = 50\n\n')
            for name, weight in zip(NAMES, self.weights):
                f.write(f'[[models.deployments]]\nname = "{name}"\nprovider = "openai"\n'
                        f'base_url = "http://127.0.0.1:{self.ups[name].port}/v1"\n'
                        f'upstream_model = "m"\nweight = {weight}\ntimeout_ms = 2000\n\n')
        settings = ["--breaker-cooldown", "2s", "--breaker-max-cooldown", "4s"]
        self.server = Server(a.binary, os.path.join(a.work, "deployments-data"),
                             os.path.join(a.work, "deployments.log"), ["--models", models] + settings,
                             pidfile=a.pidfile)
        self.port = self.server.start()
        self.key = self.server.admin_key()

    def conn(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.a.client_timeout)

    def client(self, phase, i, stop, budget):
        rng = random.Random(f"{self.a.seed}-{phase}-{i}")
        c, n = self.conn(), 0
        while not stop.is_set() and budget():
            n += 1
            stream = rng.random() < self.a.streamed
            tag = f"{phase}-{i}-{n}"
            body = {"model": "pool", "user": tag, "stream": stream, "max_tokens": 16,
                    "messages": [{"role": "user", "content": f"say something ({tag})"}]}
            rec = {"phase": phase, "tag": tag, "ok": False, "kind": "", "reason": ""}
            try:
                c.request("POST", "/v1/chat/completions", body=json.dumps(body),
                          headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"})
                resp = c.getresponse()
                Faults.read_answer(rec, resp, resp.read(), stream)
            except Exception as err:
                rec["kind"] = f"no answer: {type(err).__name__}"
                c.close()
                c = self.conn()
            self.results.append(rec)

    def run_clients(self, phase, seconds=None, requests=None):
        stop, sent, lock = threading.Event(), [0], threading.Lock()

        def budget():
            with lock:
                if requests is not None and sent[0] >= requests:
                    return False
                sent[0] += 1
                return True

        threads = [threading.Thread(target=self.client, args=(phase, i, stop, budget), daemon=True)
                   for i in range(self.a.clients)]
        for t in threads:
            t.start()
        if seconds is not None:
            time.sleep(seconds)
            stop.set()
        for t in threads:
            t.join(timeout=self.a.client_timeout + 30)

    def none_open(self, limit):
        end = time.monotonic() + limit
        c = self.conn()
        while time.monotonic() < end:
            c.request("GET", "/v1/models", headers={"Authorization": f"Bearer {self.key}"})
            body = json.loads(c.getresponse().read())
            pool = next(m for m in body["data"] if m["id"] == "pool")
            if all(d["health"]["state"] != "open" for d in pool["deployments"]):
                return True
            time.sleep(0.05)
        return False

    def fail(self, msg):
        self.failures.append(msg)
        print(f"FAIL: {msg}", flush=True)

    def run(self):
        a = self.a
        self.start()
        print(f"deployments: model pool over {', '.join(f'{n} (weight {w})' for n, w in zip(NAMES, self.weights))}; "
              f"{a.clients} clients, {100 * a.streamed:.0f}% streamed; --breaker-cooldown 2s --breaker-max-cooldown 4s",
              flush=True)
        self.ups["refusing"].set_mode("refuse")
        self.ups["limited"].set_mode("429")
        t0 = time.monotonic()
        self.run_clients("faults", seconds=a.fault)
        faults = [r for r in self.results if r["phase"] == "faults"]
        limited = sorted((e for e in self.ups["limited"].log if e["arrived"] >= t0), key=lambda e: e["arrived"])
        decided = [e["decided"] for e in limited if e.get("decided") is not None]
        inside = [e for e in limited
                  if any(d + SEEN < e["arrived"] < d + 2 - MARGIN for d in decided)]
        probes = len(limited) - len(inside)
        healthy_fault = sum(1 for e in self.ups["healthy"].log if e["arrived"] >= t0)

        for name in NAMES:
            self.ups[name].set_mode("ok")
        if not self.none_open(15):
            self.fail("a deployment's circuit stayed open 15 s after its upstream answered again")
        before = {name: len(self.ups[name].log) for name in NAMES}
        self.run_clients("shares", requests=a.shares)
        got = {name: len(self.ups[name].log) - before[name] for name in NAMES}
        total = sum(got.values())
        shares = [(name, 100 * got[name] / max(1, total), 100 * w / sum(self.weights))
                  for name, w in zip(NAMES, self.weights)]
        shared = [r for r in self.results if r["phase"] == "shares"]

        for phase, rs in (("faults", faults), ("shares", shared)):
            bad = [r for r in rs if not r["ok"]]
            if bad:
                kinds = {}
                for r in bad:
                    kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
                self.fail(f"{phase}: {len(bad)} of {len(rs)} not answered: {kinds}; first: {bad[0]['reason'][:300]}")
        if inside:
            self.fail(f"{len(inside)} requests reached limited inside its Retry-After")
        for name, got_share, want in shares:
            if abs(got_share - want) > 5:
                self.fail(f"{name}'s share {got_share:.1f}% is more than 5 points from its weight's {want:.1f}%")
        if "panic" in self.server.log_text():
            self.fail("a panic in the server log")
        self.server.sigterm()
        for up in self.ups.values():
            up.close()

        ok = lambda rs: sum(r["ok"] for r in rs)
        print(f"\n{'phase':7} {'answered':>16} {'to limited':>10} {'inside Retry-After':>18} {'probes':>6} {'to healthy':>10}")
        print(f"{'faults':7} {ok(faults):>6}/{len(faults):<5} {100 * ok(faults) / max(1, len(faults)):6.2f}% "
              f"{len(limited):>10} {len(inside):>18} {probes:>6} {healthy_fault:>10}")
        print(f"{'shares':7} {ok(shared):>6}/{len(shared):<5} {100 * ok(shared) / max(1, len(shared)):6.2f}% "
              + "  ".join(f"{name} {got[name]} ({s:.1f}% vs {w:.1f}%)" for name, s, w in shares))
        print(f"\ndeployments: {len(self.results)} requests; inside Retry-After (not probes): {len(inside)}; "
              f"{len(self.failures)} failures")
        return 1 if self.failures else 0



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--pidfile", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weights", default="1,1,2")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--fault", type=float, default=10)
    ap.add_argument("--shares", type=int, default=1200)
    ap.add_argument("--streamed", type=float, default=0.5)
    ap.add_argument("--client-timeout", type=float, default=5)
    return Harness(ap.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
