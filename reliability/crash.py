"""Crash-consistency harness for tokctl-server (run through crash.sh).

Each trial: fresh data dir, start the server, 6 creator threads + 4 mutator threads (rotate or
revoke tokens acknowledged earlier in the trial, each token owned by one thread at a time so its
operations are totally ordered), SIGKILL the server at a random moment with requests in flight,
restart on the same data dir, and check only what an acknowledgement makes certain:

  create ack          -> GET /v1/tokens/{id} is 200 with the same name
  revoke ack          -> status `revoked`, and every secret ever returned for it is refused (401)
  rotation ack        -> every secret returned before it (create or earlier rotation) is refused
  no revoke attempted -> status `active`
  last op acknowledged (no rotation/revoke with a lost answer after it) and not revoked
                      -> the newest secret is accepted (200); otherwise it is not asserted, since
                         a rotation whose answer was lost may or may not have committed.

Also counted as failures: any 5xx answer, any 2xx/4xx answer that contradicts the model (e.g. 404
on rotating an active token we own), a panic in the server log.
"""

import argparse
import os
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from common import Client, Server, Unknown

CREATORS = 6
MUTATORS = 4


class Token:
    def __init__(self, tid, name, secret):
        self.id = tid
        self.name = name
        self.secrets = [secret]  # create secret, then each acknowledged rotation's secret
        self.ops = []  # ("rotate"|"revoke", "ack"|"unknown")


class Trial:
    def __init__(self, idx, binary, work, rng, pidfile):
        self.idx = idx
        self.rng = rng
        self.data = os.path.join(work, f"trial-{idx:02d}", "data")
        self.log = os.path.join(work, f"trial-{idx:02d}", "server.log")
        self.server = Server(binary, self.data, self.log, pidfile=pidfile)
        self.lock = threading.Lock()
        self.tokens = {}  # id -> Token (acknowledged creates only)
        self.pool = []  # ids free for a mutator to take
        self.stop = threading.Event()
        self.inflight = 0
        self.unknown = {"create": 0, "rotate": 0, "revoke": 0}
        self.acks = {"create": 0, "rotate": 0, "revoke": 0}
        self.failures = []

    def fail(self, msg):
        with self.lock:
            self.failures.append(msg)

    def _send(self, client, method, path, body=None):
        with self.lock:
            self.inflight += 1
        try:
            return client.request(method, path, body)
        finally:
            with self.lock:
                self.inflight -= 1

    def creator(self, n):
        client = Client(self.server.port, self.key, timeout=10)
        seq = 0
        while not self.stop.is_set():
            seq += 1
            name = f"t{self.idx}-c{n}-{seq}"
            try:
                status, body, _ = self._send(client, "POST", "/v1/tokens",
                                             {"name": name, "scopes": ["tokens:read"]})
            except Unknown:
                with self.lock:
                    self.unknown["create"] += 1
                if self.stop.is_set():
                    break
                time.sleep(0.05)
                continue
            if status == 201 and body and body.get("id") and body.get("token"):
                tok = Token(body["id"], name, body["token"])
                with self.lock:
                    self.tokens[tok.id] = tok
                    self.pool.append(tok.id)
                    self.acks["create"] += 1
            else:
                self.fail(f"create {name}: unexpected {status} {body}")
        client.close()

    def mutator(self, n):
        client = Client(self.server.port, self.key, timeout=10)
        rng = random.Random(self.rng.random())
        while not self.stop.is_set():
            with self.lock:
                tid = self.pool.pop(rng.randrange(len(self.pool))) if self.pool else None
            if tid is None:
                time.sleep(0.002)
                continue
            tok = self.tokens[tid]
            op = "rotate" if rng.random() < 0.7 else "revoke"
            try:
                if op == "rotate":
                    status, body, _ = self._send(client, "POST", f"/v1/tokens/{tid}/rotate")
                else:
                    status, body, _ = self._send(client, "DELETE", f"/v1/tokens/{tid}")
            except Unknown:
                with self.lock:
                    self.unknown[op] += 1
                tok.ops.append((op, "unknown"))
                # Outcome unknown: never touch this token again, so what we assert stays certain.
                if self.stop.is_set():
                    break
                time.sleep(0.05)
                continue
            if op == "rotate" and status == 200 and body and body.get("token"):
                tok.secrets.append(body["token"])
                tok.ops.append(("rotate", "ack"))
                with self.lock:
                    self.acks["rotate"] += 1
                    self.pool.append(tid)
            elif op == "revoke" and status == 204:
                tok.ops.append(("revoke", "ack"))
                with self.lock:
                    self.acks["revoke"] += 1
            else:
                self.fail(f"{op} {tid}: unexpected {status} {body}")
        client.close()

    def run(self):
        os.makedirs(os.path.dirname(self.data), exist_ok=True)
        self.server.start()
        self.key = self.server.admin_key()
        threads = [threading.Thread(target=self.creator, args=(i,), daemon=True) for i in range(CREATORS)]
        threads += [threading.Thread(target=self.mutator, args=(i,), daemon=True) for i in range(MUTATORS)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        kill_at = self.rng.uniform(0.5, 2.0)
        time.sleep(kill_at)
        with self.lock:
            inflight_at_kill = self.inflight
        self.server.sigkill()
        self.stop.set()
        for t in threads:
            t.join(timeout=30)
            if t.is_alive():
                self.fail("a client thread did not stop within 30 s")
        # Restart on the same data directory.
        self.server.start()
        lost, checks = self.verify()
        self.server.sigterm()
        log = self.server.log_text()
        if "panic" in log.lower():
            self.fail(f"'panic' in server log {self.log}")
        return kill_at, inflight_at_kill, lost, checks

    def verify(self):
        lost = []
        checks = [0]
        clock = threading.Lock()
        local = threading.local()

        def client():
            if not hasattr(local, "c"):
                local.c = Client(self.server.port, self.key, timeout=15)
            return local.c

        def call(method, path, key=None):
            for _ in range(3):
                try:
                    return client().request(method, path, key=key)
                except Unknown:
                    time.sleep(0.2)
            raise RuntimeError(f"{method} {path}: no answer from the restarted server")

        def secret_status(secret):
            status, _, _ = call("GET", "/v1/scopes", key=secret)
            return status

        def one(tok):
            found = []
            n = 0
            status, body, _ = call("GET", f"/v1/tokens/{tok.id}")
            n += 1
            if status != 200 or not body:
                found.append(f"LOST create {tok.id} ({tok.name}): GET -> {status}")
                with clock:
                    checks[0] += n
                return found
            if body.get("name") != tok.name:
                found.append(f"create {tok.id}: name {body.get('name')!r} != {tok.name!r}")
            kinds = [(op, res) for op, res in tok.ops]
            revoke_ack = ("revoke", "ack") in kinds
            revoke_tried = any(op == "revoke" for op, _ in kinds)
            last_unknown = bool(kinds) and kinds[-1][1] == "unknown"
            if revoke_ack:
                n += 1
                if body.get("status") != "revoked":
                    found.append(f"LOST revoke {tok.id}: status {body.get('status')}")
                for i, s in enumerate(tok.secrets):
                    n += 1
                    st = secret_status(s)
                    if st != 401:
                        found.append(f"revoked {tok.id}: secret #{i} -> {st} (want 401)")
            else:
                if not revoke_tried:
                    n += 1
                    if body.get("status") != "active":
                        found.append(f"{tok.id}: status {body.get('status')} but never revoked")
                # Every secret before the newest acknowledged one was replaced by an acked rotation.
                for i, s in enumerate(tok.secrets[:-1]):
                    n += 1
                    st = secret_status(s)
                    if st != 401:
                        found.append(f"LOST rotation {tok.id}: old secret #{i} -> {st} (want 401)")
                if not last_unknown:
                    n += 1
                    st = secret_status(tok.secrets[-1])
                    if st != 200:
                        found.append(f"{tok.id}: newest acked secret #{len(tok.secrets)-1} -> {st} (want 200)")
            with clock:
                checks[0] += n
            return found

        with ThreadPoolExecutor(max_workers=6) as ex:
            for res in ex.map(one, list(self.tokens.values())):
                lost.extend(res)
        return lost, checks[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--pidfile", default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    print(f"crash: seed {seed}, {args.trials} trials, {CREATORS} creators + {MUTATORS} rotate/revoke clients")
    totals = {"create": 0, "rotate": 0, "revoke": 0}
    unknown_total = {"create": 0, "rotate": 0, "revoke": 0}
    all_lost, all_fail, total_checks = [], [], 0
    started = time.monotonic()
    for i in range(1, args.trials + 1):
        trial = Trial(i, args.binary, args.work, random.Random(rng.random()), args.pidfile)
        try:
            kill_at, inflight, lost, checks = trial.run()
        finally:
            trial.server.kill()
        for k in totals:
            totals[k] += trial.acks[k]
            unknown_total[k] += trial.unknown[k]
        total_checks += checks
        all_lost += lost
        all_fail += trial.failures
        print(f"trial {i:2d}: SIGKILL at {kill_at:.2f}s with {inflight} requests in flight; acked "
              f"{trial.acks['create']} creates / {trial.acks['rotate']} rotations / {trial.acks['revoke']} revocations; "
              f"unknown outcome {trial.unknown['create']}/{trial.unknown['rotate']}/{trial.unknown['revoke']}; "
              f"{checks} checks after restart; lost {len(lost)}; other failures {len(trial.failures)}",
              flush=True)
        for line in (lost + trial.failures)[:20]:
            print(f"    {line}")
    elapsed = time.monotonic() - started
    print(f"crash: {args.trials} trials, {totals['create']} creates / {totals['rotate']} rotations / "
          f"{totals['revoke']} revocations acknowledged, {len(all_lost)} lost "
          f"({total_checks} checks; {sum(unknown_total.values())} requests with unknown outcome; "
          f"{len(all_fail)} other failures; {elapsed:.0f}s)")
    return 1 if (all_lost or all_fail) else 0


if __name__ == "__main__":
    sys.exit(main())
