"""Shared helpers of the reliability harnesses: start/stop the real server binary, and a tiny
HTTP/1.1 client over http.client that tells an acknowledged answer (status line, headers and the
whole body received) from an unknown outcome (any exception before that).

Standard library only. Loopback only.
"""

import http.client
import json
import os
import re
import signal
import subprocess
import time

LISTEN_RE = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")


class Server:
    """One `tokctl-server serve` process on DATA_DIR, logging to DATA_DIR/../NAME.log."""

    def __init__(self, binary, data_dir, log_path, extra_args=(), pidfile=None, listen="127.0.0.1:0"):
        self.binary = binary
        self.data_dir = data_dir
        self.log_path = log_path
        self.extra_args = list(extra_args)
        self.pidfile = pidfile
        self.listen = listen
        self.proc = None
        self.port = None

    def start(self, timeout=30.0):
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        log = open(self.log_path, "ab")
        args = [self.binary, "serve", "--listen", self.listen, "--data-dir", self.data_dir,
                "--rate-limit", "1000000000"] + self.extra_args
        env = dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "info"))
        start_offset = log.tell()
        self.proc = subprocess.Popen(args, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env)
        log.close()
        if self.pidfile:
            with open(self.pidfile, "a") as f:
                f.write(f"{self.proc.pid}\n")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log_path, "rb") as f:
                f.seek(start_offset)
                m = LISTEN_RE.search(f.read().decode("utf-8", "replace"))
            if m:
                self.port = int(m.group(1))
                return self.port
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode} before listening; see {self.log_path}")
            time.sleep(0.02)
        self.kill()
        raise RuntimeError(f"server did not say it is listening within {timeout}s; see {self.log_path}")

    def admin_key(self):
        with open(os.path.join(self.data_dir, "admin.key")) as f:
            return f.read().strip()

    def sigkill(self):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def sigterm(self, timeout=30.0):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.sigkill()
                return None
        return self.proc.returncode if self.proc else None

    def kill(self):
        self.sigkill()

    def log_text(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""


class Unknown(Exception):
    """The request may or may not have been applied: no complete answer was received."""


class Client:
    """One keep-alive connection; reconnects after an error."""

    def __init__(self, port, key, timeout=15.0):
        self.port = port
        self.key = key
        self.timeout = timeout
        self.conn = None

    def close(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:
                pass
            self.conn = None

    def request(self, method, path, body=None, key=None):
        """Returns (status, parsed JSON or None, raw bytes). Raises Unknown when the answer was
        not received whole."""
        headers = {"Authorization": f"Bearer {key or self.key}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            raw = resp.read()  # raises IncompleteRead if the body is cut short
            status = resp.status
            if resp.will_close:
                self.close()
        except Exception as err:  # connection refused/reset, timeout, IncompleteRead, ...
            self.close()
            raise Unknown(f"{type(err).__name__}: {err}") from None
        parsed = None
        if raw:
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
        return status, parsed, raw
