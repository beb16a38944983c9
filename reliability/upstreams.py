"""Upstream fault harness for the chat gateway (run through upstreams.sh).

Two OpenAI-compatible upstreams on 127.0.0.1 (upstream_mock.py): `primary`, which `auto`
ranks first (quality 0.95, cheapest), and `fallback` (quality 0.6, dearer), always healthy. One
release server routes over them. For each fault, one phase: HEALTHY s all well, FAULT s with
primary refusing / hanging past its timeout_ms / answering 500 / 429 `Retry-After: 2` / cutting
answers half-way, then primary recovers; the phase ends AFTER s once its circuit shows closed.
CLIENTS threads send `model: auto` requests back to back all the while, a share STREAMED of
them streamed, each giving up after CLIENT_TIMEOUT s; a thread polls GET /v1/models (admin key)
every POLL s for primary's `health`. `--faults stall` (not in the default run) sends an answer's
head and then nothing: a stream's first-byte timeout.

Counted per phase (times are time.monotonic() in this process):
  ok        a whole answer: 200 with a message; a stream: 200 whose events end with a chunk with
            finish_reason and platform, then [DONE], and no error event. A stream cut half-way
            and relayed as such (it had started on primary, so no fallback) is not ok, nor is a
            request the client gave up on.
  open-violations  requests primary received while its circuit was open, other than one probe
            per half-open, by three rules that can only under-count (none flags a correct server):
            A. the request was sent after the server had shown the circuit open until U, and
               reached primary before U - 5 ms (or, when primary refused it so that it has no
               arrival, its whole answer came back before U - 5 ms): let through inside a
               deadline the server had published. Shown by: a poll answer (`open`, `open_until`
               U), or another request's answer "primary skipped: open for N s" (checked between
               its send s and its answer, with more than N - 1 s to go: U = s + N - 1 s);
            B. the probe of an opening is the first request to reach primary at or after its U;
               any other request sent after the probe reached primary, and reaching primary
               before the probe's verdict could exist (the moment primary started writing the
               bytes deciding it; for a hang, the probe's send time + timeout_ms), was let
               through while the probe was out. (Not for `refuse`: a refused try has no arrival.)
            C. the request's own answer says primary was skipped, yet primary received it.
            Not covered: the few ms from an opening to the first answer or poll showing it.
  tries b/a    requests sent during the fault that tried primary, before / after the first sign
               of open (after: probes, and requests after a probe closed the circuit)
  fail->open   earliest sign of open (a poll, or an answer saying primary was skipped as open)
               minus primary's first failing verdict of the phase (for refuse, the first try
               refused); resolution one poll interval
  rec->closed  first poll saying `closed` after primary recovered, minus the recovery
  latency      client time from sending to the last byte; healthy = requests sent before the
               fault, outage = requests sent while it lasted
Musts (exit 1): open-violations 0; outage p99 <= 5 x healthy p99 + 50 ms; the circuit opened
during each fault and closed after it; no panic in the server log.
"""

import argparse
import calendar
import http.client
import json
import os
import random
import re
import sys
import threading
import time

from common import Server
from upstream_mock import Upstream

MARGIN = 0.005
UTC = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z$")
FAULTS = ["refuse", "hang", "500", "429", "cut"]
SKIPPED = re.compile(r"primary skipped: open for (\d+) s")


def wall_to_mono(text, wall, mono):
    m = UTC.match(text)
    secs = calendar.timegm(tuple(int(g) for g in m.groups()[:6])) + float(m.group(7) or 0)
    return mono + (secs - wall)


def pct(xs, p):
    xs = sorted(xs)
    return xs[max(0, -(-len(xs) * p // 100) - 1)] if xs else float("nan")


class Harness:
    def __init__(self, args):
        self.a = args
        self.polls = []  # (sent, recv, state, open_until mono or None)
        self.results = []
        self.stop_poll = threading.Event()
        self.failures = []

    # --- the gateway's side --------------------------------------------------------------
    def start(self):
        self.primary, self.fallback = Upstream("primary"), Upstream("fallback")
        a = self.a
        models = os.path.join(a.work, "models.toml")
        with open(models, "w") as f:
            for name, up, q, price, tmo in (("primary", self.primary, 0.95, 0.1, a.timeout_ms),
                                            ("fallback", self.fallback, 0.6, 0.5, 10000)):
                f.write(f'[[models]]\nid = "{name}"\nprovider = "openai"\n'
                        f'base_url = "http://127.0.0.1:{up.port}/v1"\nupstream_model = "m"\n'
                        f"prompt_price = {price}\ncompletion_price = {2 * price}\nquality = {q}\n"
                        f"latency_ms = 50\ntimeout_ms = {tmo}\n\n")
        self.settings = ["--breaker-cooldown", f"{a.cooldown:g}s", "--breaker-max-cooldown", f"{a.max_cooldown:g}s"]
        self.server = Server(a.binary, os.path.join(a.work, "data"), os.path.join(a.work, "server.log"),
                             ["--models", models] + self.settings, pidfile=a.pidfile)
        self.port = self.server.start()
        self.key = self.server.admin_key()
        threading.Thread(target=self.poller, daemon=True).start()

    def conn(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def poller(self):
        c = self.conn()
        while not self.stop_poll.is_set():
            sent = time.monotonic()
            try:
                c.request("GET", "/v1/models", headers={"Authorization": f"Bearer {self.key}"})
                body = json.loads(c.getresponse().read())
                recv, wall = time.monotonic(), time.time()
                h = next(m["health"] for m in body["data"] if m["id"] == "primary")
                until = h.get("open_until")
                self.polls.append((sent, recv, h["state"], until and wall_to_mono(until, wall, recv)))
            except Exception:
                c.close()
                c = self.conn()
            time.sleep(max(0.0, self.a.poll - (time.monotonic() - sent)))

    def state_after(self, t, state, limit):
        """Waits until a poll sent after `t` says `state`; its answer time, or None."""
        end = time.monotonic() + limit
        while time.monotonic() < end:
            for sent, recv, st, _ in reversed(self.polls):
                if sent < t:
                    break
                if st == state:
                    return min(r for s, r, x, _ in self.polls if s >= t and x == state)
            time.sleep(0.02)
        return None

    # --- clients -------------------------------------------------------------------------
    def client(self, prefix, i, stop):
        rng = random.Random(f"{self.a.seed}-{prefix}-{i}")
        c, n = self.conn(self.a.client_timeout), 0
        while not stop.is_set():
            n += 1
            stream = rng.random() < self.a.streamed
            tag = f"{prefix}-{i}-{n}"
            body = {"model": "auto", "user": tag, "stream": stream, "max_tokens": 16,
                    "messages": [{"role": "user", "content": f"say something ({tag})"}]}
            rec = {"tag": tag, "stream": stream, "sent": time.monotonic(), "status": None, "ok": False,
                   "model": None, "reason": "", "kind": ""}
            try:
                c.request("POST", "/v1/chat/completions", body=json.dumps(body),
                          headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"})
                resp = c.getresponse()
                raw = resp.read()
                rec["status"] = resp.status
                self.read_answer(rec, resp, raw, stream)
            except Exception as err:
                rec["kind"] = f"no answer: {type(err).__name__}"
                c.close()
                c = self.conn(self.a.client_timeout)
            rec["done"] = time.monotonic()
            self.results.append(rec)

    @staticmethod
    def read_answer(rec, resp, raw, stream):
        if resp.status != 200:
            try:
                rec["reason"] = json.loads(raw)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                pass
            rec["kind"] = f"HTTP {resp.status}"
            return
        if not stream:
            ans = json.loads(raw)
            rec["model"] = ans.get("model")
            rec["reason"] = ans.get("platform", {}).get("route_reason", "")
            rec["ok"] = bool(ans.get("choices") and ans["choices"][0].get("message"))
            rec["kind"] = "" if rec["ok"] else "no message"
            return
        events = [e[6:] for e in raw.decode().split("\n\n") if e.startswith("data: ")]
        chunks = [json.loads(e) for e in events if e != "[DONE]"]
        errors = [ch for ch in chunks if "error" in ch]
        final = [ch for ch in chunks if ch.get("platform") and ch.get("choices") and ch["choices"][0].get("finish_reason")]
        models = [ch["model"] for ch in chunks if "model" in ch]
        rec["model"] = models[0] if models else None
        if final:
            rec["reason"] = final[0]["platform"]["route_reason"]
        rec["ok"] = bool(events and events[-1] == "[DONE]" and final and not errors)
        rec["kind"] = "" if rec["ok"] else ("cut mid-stream" if errors else "incomplete stream")

    # --- one phase -----------------------------------------------------------------------
    def phase(self, fault):
        a = self.a
        if self.state_after(time.monotonic(), "closed", a.max_cooldown + 5) is None:
            self.fail(f"{fault}: primary's circuit not closed before the phase")
        stop, first = threading.Event(), len(self.results)
        threads = [threading.Thread(target=self.client, args=(fault, i, stop), daemon=True) for i in range(a.clients)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(a.healthy)
        t_fault = time.monotonic()
        self.primary.set_mode(fault)
        time.sleep(a.fault)
        t_rec = time.monotonic()
        self.primary.set_mode("ok")
        closed = self.state_after(t_rec, "closed", a.max_cooldown + a.timeout_ms / 1000 + 5)
        time.sleep(a.after)
        stop.set()
        for t in threads:
            t.join(timeout=a.client_timeout + 5)
        return self.analyse(fault, t0, t_fault, t_rec, closed, self.results[first:])

    def fail(self, msg):
        self.failures.append(msg)
        print(f"FAIL: {msg}", flush=True)

    def analyse(self, fault, t0, t_fault, t_rec, closed, reqs):
        a, T = self.a, self.a.timeout_ms / 1000
        by_tag = {r["tag"]: r for r in reqs}
        arrivals = [e for e in list(self.primary.log) if e["tag"] in by_tag]
        arrivals.sort(key=lambda e: e["arrived"])
        for r in reqs:
            r["tried"] = (r["model"] == "primary" or "after primary (" in r["reason"]
                          or "failed: primary (" in r["reason"])
            r["skipped"] = "primary skipped:" in r["reason"]
        opens = [p for p in self.polls if p[2] == "open" and p[0] >= t_fault]

        def decided(e):
            return by_tag[e["tag"]]["sent"] + T if e["mode"] in ("hang", "stall") else e["decided"]

        violations = set()
        # Proofs of open: (known by, open at least until). A poll: its answer time, open_until.
        # An answer saying "primary skipped: open for N s": the check was made between its send
        # and its answer, with more than N - 1 s to go, so open until send + N - 1 s.
        proofs = [(p[1], p[3]) for p in self.polls if p[2] == "open"]
        for r in self.results:
            m = SKIPPED.search(r["reason"])
            if m:
                proofs.append((r["done"], r["sent"] + int(m.group(1)) - 1))

        def deadline_at(t):
            us = [u for known, u in proofs if known <= t]
            return max(us) if us else None

        arrived_tags = {e["tag"] for e in arrivals}
        for e in arrivals:  # Rule C: the answer says primary was skipped, yet it got the request
            r = by_tag[e["tag"]]
            if r["skipped"] and not r["tried"]:
                violations.add(e["tag"])
        for e in arrivals:  # Rule A: sent after a proof of open, arrived before its deadline
            u = deadline_at(by_tag[e["tag"]]["sent"])
            if u is not None and e["arrived"] < u - MARGIN:
                violations.add(e["tag"])
        for r in reqs:  # tries with no arrival (refused): the answer came back inside it
            u = deadline_at(r["sent"])
            if r["tried"] and r["tag"] not in arrived_tags and u is not None and r["done"] < u - MARGIN:
                violations.add(r["tag"])
        # Rule B: beside a probe that is out.
        probes, episodes = 0, []
        for u in sorted(p[3] for p in opens):  # one opening's polls give U within microseconds
            if not episodes or u - episodes[-1] > 0.05:
                episodes.append(u)
        for u in episodes:
            q = next((e for e in arrivals if e["arrived"] >= u), None)
            if q is None or q["arrived"] > t_rec + a.max_cooldown + 2 * T + 1:
                continue
            probes += 1
            d = decided(q)
            for e in arrivals:
                if e["tag"] != q["tag"] and by_tag[e["tag"]]["sent"] >= q["arrived"] and d is not None and e["arrived"] < d:
                    violations.add(e["tag"])
        if fault == "refuse":
            probes = sum(1 for r in reqs if r["tried"] and r["sent"] >= t_fault and r["tag"] not in arrived_tags
                         and deadline_at(r["sent"]) is not None)
        # First failure, first sign of open, recovery.
        fails = [decided(e) for e in arrivals if e["mode"] == fault and e["arrived"] >= t_fault and decided(e)]
        fails += [max(r["sent"], t_fault) for r in reqs if fault == "refuse" and r["tried"] and r["sent"] >= t_fault - 1
                  and "refused" in r["reason"]]
        first_fail = min(fails) if fails else None
        signs = [p[1] for p in opens] + [r["done"] for r in reqs if r["skipped"] and r["sent"] >= t_fault]
        first_open = min(signs) if signs else None
        if first_open is None:
            self.fail(f"{fault}: primary's circuit never showed open during the fault")
        if closed is None:
            self.fail(f"{fault}: primary's circuit did not close after it recovered")
        healthy = [r for r in reqs if r["sent"] < t_fault]
        outage = [r for r in reqs if t_fault <= r["sent"] < t_rec]
        lat = lambda rs: [1000 * (r["done"] - r["sent"]) for r in rs]
        hp99, op99 = pct(lat(healthy), 99), pct(lat(outage), 99)
        if violations:
            self.fail(f"{fault}: {len(violations)} requests reached primary while its circuit was open: "
                      + ", ".join(sorted(violations)[:8]))
        if not op99 <= 5 * hp99 + 50:
            self.fail(f"{fault}: outage p99 {op99:.0f} ms > 5 x healthy p99 {hp99:.0f} ms + 50 ms")
        kinds = {}
        for r in outage:
            if not r["ok"]:
                kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
        tried_out = [r for r in outage if r["tried"]]
        before = [r for r in tried_out if first_open is None or r["sent"] < first_open]
        return {
            "fault": fault, "requests": len(reqs), "phase_ok": sum(r["ok"] for r in reqs),
            "outage": len(outage), "outage_ok": sum(r["ok"] for r in outage), "kinds": kinds,
            "tries": (len(before), len(tried_out) - len(before)), "probes": probes,
            "violations": len(violations),
            "to_open": None if first_open is None or first_fail is None else first_open - first_fail,
            "to_closed": None if closed is None else closed - t_rec,
            "healthy": (pct(lat(healthy), 50), hp99), "out": (pct(lat(outage), 50), op99, max(lat(outage) or [0])),
            "slow": sum(1 for x in lat(outage) if x >= 1000 * T),
        }

    def run(self):
        self.start()
        a = self.a
        print(f"settings: {a.clients} clients, `auto`, {100 * a.streamed:.0f}% streamed, giving up after {a.client_timeout:g} s; "
              f"primary timeout_ms {a.timeout_ms}; "
              f"{' '.join(self.settings)} (others default: 3 in a row, 50% of >= 10 in 60s); "
              f"phases {a.healthy:g}s healthy, {a.fault:g}s fault, until closed + {a.after:g}s; polls every {1000 * a.poll:.0f} ms",
              flush=True)
        rows = []
        for fault in a.faults.split(","):
            row = self.phase(fault)
            rows.append(row)
            print(f"  {fault}: {row['requests']} requests, {row['violations']} open-violations", flush=True)
        self.stop_poll.set()
        with open(os.path.join(a.work, "run.json"), "w") as f:  # for a closer look (KEEP=1)
            json.dump({"requests": self.results, "polls": self.polls, "primary": self.primary.log,
                       "fallback": self.fallback.log}, f)
        ms = lambda x: "-" if x is None else f"{1000 * x:.0f} ms" if x < 1 else f"{x:.2f} s"
        print(f"\n{'fault':7} {'ok in outage':>20} {'ok phase':>8} {'tries b/a':>9} {'probes':>6} {'open-viol':>9} "
              f"{'fail->open':>10} {'rec->closed':>11} {'healthy p50/p99':>15} {'outage p50/p99/max':>20} {'>=timeout':>9}")
        for r in rows:
            print(f"{r['fault']:7} {r['outage_ok']:>6}/{r['outage']:<5} {100 * r['outage_ok'] / max(1, r['outage']):6.2f}% "
                  f"{100 * r['phase_ok'] / max(1, r['requests']):7.2f}% {r['tries'][0]:>4}/{r['tries'][1]:<4} {r['probes']:>6} "
                  f"{r['violations']:>9} {ms(r['to_open']):>10} {ms(r['to_closed']):>11} "
                  f"{r['healthy'][0]:6.0f}/{r['healthy'][1]:.0f} ms {r['out'][0]:6.0f}/{r['out'][1]:.0f}/{r['out'][2]:.0f} ms "
                  f"{r['slow']:>9}")
            if r["kinds"]:
                print(f"{'':7} not ok in outage: " + ", ".join(f"{n} {k}" for k, n in sorted(r["kinds"].items())))
        if "panic" in self.server.log_text():
            self.fail("a panic in the server log")
        self.server.sigterm()
        self.primary.close()
        self.fallback.close()
        total = sum(r["violations"] for r in rows)
        print(f"\nupstreams: {sum(r['requests'] for r in rows)} requests over {len(rows)} faults; "
              f"requests to an open upstream (not probes): {total}; {len(self.failures)} failures")
        return 1 if self.failures else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--pidfile", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--faults", default=",".join(FAULTS))
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--timeout-ms", type=int, default=400)
    ap.add_argument("--cooldown", type=float, default=2)
    ap.add_argument("--max-cooldown", type=float, default=4)
    ap.add_argument("--healthy", type=float, default=3)
    ap.add_argument("--fault", type=float, default=8)
    ap.add_argument("--after", type=float, default=1.5)
    ap.add_argument("--streamed", type=float, default=0.5)
    ap.add_argument("--client-timeout", type=float, default=5)
    ap.add_argument("--poll", type=float, default=0.02)
    return Harness(ap.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
