"""The CI guard on the hot paths' cost: instructions per request, counted by valgrind's callgrind.

Started by bench/guard.sh (which builds the binaries). One server runs under callgrind beside a
mock OpenAI-compatible upstream; each path is sent over one keep-alive connection in two
batches, callgrind's counters dumped after each (`callgrind_control`), and the path's cost is
the difference between the batches divided by the difference in requests: start-up, warm-up and
whatever runs between batches cancel out. An instruction count is the same on a busy machine
and an idle one, so the guard cannot be fooled by noise; it fails when a path costs more than
TOLERANCE over the baseline committed in bench/guard.baseline.

Usage: python3 bench/guard.py SERVER UPSTREAM [--update] [--only PATH,...]
"""

import argparse
import hashlib
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time

BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard.baseline")
TOLERANCE = 0.10

CATALOGUE = """[[models]]
id = "mock"
provider = "openai"
base_url = "http://{upstream}/v1"
upstream_model = "mock"
prompt_price = 0.5
completion_price = 1.5
quality = 0.8
latency_ms = 1
"""


def wait_for(pattern, path, seconds=120):
    """The first match of `pattern` in the file at `path`, waiting for it to appear."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                found = re.search(pattern, f.read())
            if found:
                return found.group(1)
        except FileNotFoundError:
            pass
        time.sleep(0.1)
    with open(path) as f:
        sys.exit(f"guard: gave up waiting for /{pattern}/ in {path}:\n{f.read()}")


class Client:
    """One keep-alive HTTP/1.1 connection; every answer is read whole and its status checked."""

    def __init__(self, addr, key):
        host, port = addr.rsplit(":", 1)
        self.conn = http.client.HTTPConnection(host, int(port), timeout=600)
        self.key = key

    def call(self, method, path, body=None, status=200, key=None):
        headers = {"Authorization": "Bearer " + (key or self.key)}
        if body is not None:
            headers["Content-Type"] = "application/json"
            body = json.dumps(body)
        self.conn.request(method, path, body=body, headers=headers)
        answer = self.conn.getresponse()
        data = answer.read()
        if answer.status != status:
            sys.exit(f"guard: {method} {path} answered {answer.status}, not {status}: {data[:300]!r}")
        return data


def paths(client, ids):
    """Each guarded path: (name, what it is, requests per batch, a function sending one)."""
    created = iter(range(10**9))
    chat = {"model": "mock", "messages": [{"role": "user", "content": "hello"}], "max_tokens": 16}
    unknown = unknown_secret()

    responses = {"model": "mock", "input": [{"role": "user", "content": "hello"}], "max_output_tokens": 16}

    def streamed(path, body, last):
        def send():
            data = client.call("POST", path, {**body, "stream": True})
            assert last in data[-2000:], data[-200:]
        return send

    return [
        ("token_read", "GET /v1/tokens/:id, a token without a limit", 100,
         lambda: client.call("GET", f"/v1/tokens/{ids['plain']}")),
        ("token_read_limited", "GET /v1/tokens/:id, a token with a monthly limit", 100,
         lambda: client.call("GET", f"/v1/tokens/{ids['limited']}")),
        ("token_list", "GET /v1/tokens?per_page=20, 5 of the 20 with limits", 30,
         lambda: client.call("GET", "/v1/tokens?per_page=20")),
        ("token_create", "POST /v1/tokens, committed", 60,
         lambda: client.call("POST", "/v1/tokens",
                             {"name": f"made-{next(created)}", "scopes": ["tokens:read"]}, 201)),
        ("auth_failure", "GET /v1/tokens/:id with a well-formed unknown secret: 401", 100,
         lambda: client.call("GET", f"/v1/tokens/{ids['plain']}", status=401, key=unknown)),
        ("chat_whole", "POST /v1/chat/completions to an OpenAI-compatible upstream", 30,
         lambda: client.call("POST", "/v1/chat/completions", chat)),
        ("chat_streamed", "the same with \"stream\": true", 30,
         streamed("/v1/chat/completions", chat, b"data: [DONE]")),
        ("messages_whole", "POST /v1/messages (the same body) translated to the same upstream", 30,
         lambda: client.call("POST", "/v1/messages", chat)),
        ("messages_streamed", "the same with \"stream\": true", 30,
         streamed("/v1/messages", chat, b"event: message_stop")),
        ("responses_whole", "POST /v1/responses (the same turn) translated to the same upstream", 30,
         lambda: client.call("POST", "/v1/responses", responses)),
        ("responses_streamed", "the same with \"stream\": true", 30,
         streamed("/v1/responses", responses, b"event: response.completed")),
    ]


def unknown_secret():
    """A token secret in the issued format (tkt_ + 30 base62 + checksum) that was never issued.

    The checksum is secrets/src/lib.rs's (the first 4 bytes of SHA-256 of prefix and random
    part, in 6 base62 digits), so the request reaches the store rather than being refused on its
    shape alone.
    """
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    body = "tkt_" + "guard0unknown0secret0000000000"
    value = int.from_bytes(hashlib.sha256(body.encode()).digest()[:4], "big")
    digits = ""
    for _ in range(6):
        value, rem = divmod(value, 62)
        digits = alphabet[rem] + digits
    return body + digits


def control(pid, *args):
    subprocess.run(["callgrind_control", *args, str(pid)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def total(path):
    """The instruction total of one callgrind dump."""
    with open(path) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    sys.exit(f"guard: no total in {path}")


def measure(server, upstream_bin, only):
    work = tempfile.mkdtemp(prefix="tokctl-guard-")
    upstream = subprocess.Popen([upstream_bin, "127.0.0.1:0"], stdout=open(f"{work}/upstream.log", "w"),
                                stderr=subprocess.STDOUT)
    procs = [upstream]
    try:
        upstream_addr = wait_for(r"listening on http://([0-9.:]+)", f"{work}/upstream.log")
        with open(f"{work}/models.toml", "w") as f:
            f.write(CATALOGUE.format(upstream=upstream_addr))
        out = f"{work}/cg.out"
        vg = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", server, "serve",
             "--listen", "127.0.0.1:0", "--data-dir", f"{work}/data", "--rate-limit", "1000000000",
             "--models", f"{work}/models.toml"],
            stdout=open(f"{work}/server.out", "w"), stderr=open(f"{work}/server.log", "w"))
        procs.append(vg)
        addr = wait_for(r"listening on http://([0-9.:]+)", f"{work}/server.log", 600)
        with open(f"{work}/data/admin.key") as f:
            client = Client(addr, f.read().strip())
        ids = {}
        for i in range(20):
            body = {"name": f"listed-{i}", "scopes": ["tokens:read"]}
            if i % 4 == 3:
                body.update(credit_limit=25, limit_reset="monthly")
            made = json.loads(client.call("POST", "/v1/tokens", body, 201))
            ids["limited" if i % 4 == 3 else "plain"] = made["id"]
        results = {}
        dumps = 0
        for name, what, n, send in paths(client, ids):
            if only and name not in only:
                continue
            for _ in range(10):  # warm: caches filled, connections to the upstream open
                send()
            control(vg.pid, "--zero")
            counts = []
            for batch in (n, 3 * n):
                for _ in range(batch):
                    send()
                dumps += 1
                control(vg.pid, "--dump=" + name)
                counts.append(total(f"{out}.{dumps}"))
            results[name] = ((counts[1] - counts[0]) // (2 * n), what)
        return results
    finally:
        # SIGTERM: the server stops gracefully on it, and a process started in the background
        # of a shell script ignores SIGINT.
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        subprocess.run(["rm", "-rf", work])


def read_baseline():
    found = {}
    if os.path.exists(BASELINE):
        with open(BASELINE) as f:
            for line in f:
                line = line.split("#", 1)[0].split()
                if len(line) == 2:
                    found[line[0]] = int(line[1])
    return found


def write_baseline(results, kept):
    lines = [
        "# Instructions per request of each hot path, as bench/guard.sh counts them (callgrind, the",
        "# debug build the test suite uses). .ci/run fails when a path costs more than 10 % over its",
        "# line here. A deliberate change updates this file in the same commit (bash bench/guard.sh",
        "# --update) and says why in BENCHMARKS.md, \"The CI guard\".",
    ]
    merged = {**kept, **{name: count for name, (count, _) in results.items()}}
    width = max(len(name) for name in merged)
    lines += [f"{name:<{width}}  {merged[name]}" for name in merged]
    with open(BASELINE, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description="The CI guard on the hot paths' cost.")
    parser.add_argument("server", help="the tokctl-server binary")
    parser.add_argument("upstream", help="the mock_upstream example binary")
    parser.add_argument("--update", action="store_true", help="write the counts to the baseline")
    parser.add_argument("--only", default="", help="comma-separated paths to measure")
    args = parser.parse_args()
    update, only = args.update, set(filter(None, args.only.split(",")))
    started = time.monotonic()
    results = measure(args.server, args.upstream, only)
    baseline = read_baseline()
    if update:
        write_baseline(results, baseline)
    failed = []
    print(f"{'path':<20} {'baseline':>12} {'now':>12} {'change':>8}")
    for name, (count, what) in results.items():
        base = baseline.get(name)
        change = f"{100 * (count - base) / base:+.1f} %" if base else "new"
        print(f"{name:<20} {base or '-':>12} {count:>12} {change:>8}   {what}")
        if base and not update and count > base * (1 + TOLERANCE):
            failed.append((name, base, count, what))
        elif base and not update and count < base * (1 - TOLERANCE):
            print(f"  {name} is {100 * (base - count) / base:.0f} % cheaper than its baseline: "
                  "lower it (bash bench/guard.sh --update) so that later costs are measured from here")
    missing = [name for name in results if name not in baseline]
    print(f"({time.monotonic() - started:.0f} s)")
    if update:
        print(f"wrote {BASELINE}: commit it, with the reason in BENCHMARKS.md")
        return
    for name, base, count, what in failed:
        print(f"guard: {name} ({what}) costs {count:,} instructions a request, "
              f"{100 * (count - base) / base:.1f} % over its baseline of {base:,} "
              f"(more than {100 * TOLERANCE:.0f} %). If the change is deliberate, run "
              "`bash bench/guard.sh --update` and commit bench/guard.baseline with the reason "
              "in BENCHMARKS.md.", file=sys.stderr)
    if missing and not only:
        print(f"guard: no baseline for {', '.join(missing)}: run `bash bench/guard.sh --update`",
              file=sys.stderr)
    if failed or (missing and not only):
        sys.exit(1)


if __name__ == "__main__":
    main()
