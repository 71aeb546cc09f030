#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""fault_server.py - a small HTTP upload server that misbehaves on purpose.

trapd's integration tests start it (through tests/servers/lib.sh, fault_start)
to see how the uploader copes with errors, hangs and slow peers. Python 3
standard library only.

    fault_server.py --dir DIR --port PORT [MODE...]

It accepts PUT and POST to any path. A request that succeeds has its body
stored as DIR/store/<path> (the query string is dropped) and is answered 201
(PUT) or 200 (POST). GET and HEAD serve what was stored; they are never
subject to the modes and never logged.

Every PUT and POST, whatever happened to it, is appended as one JSON line to
DIR/requests.log: time, method, path, query, the answer's status (null when
none was sent), the mode that decided it, the body bytes received, whether an
Authorization header was present (never its value) and the headers that an
uploader's tests look at (Content-Type, Content-Length, Content-Encoding,
Content-MD5, Transfer-Encoding, Expect, User-Agent, x-amz-*, x-ms-*,
x-trapd-*).

MODE is a list of steps taken in order; a step with a count N lasts for N
uploads, one without a count lasts for ever, and when every step is used up
the server succeeds:

    ok[:N]               succeed
    status:CODE[:N]      answer CODE (body read first, nothing stored)
    hang[:N]             read the request, never answer; the connection is
                         closed only when the client gives up
    slow:SECONDS[:N]     wait SECONDS before reading the body, then succeed
    close[:N]            read the request, then close without an answer

Examples: "status:503:2" fails twice then succeeds; "hang" never answers;
"ok:1 status:500" succeeds once, then always fails.
"""

import argparse
import datetime
import json
import os
import select
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOGGED_HEADERS = ("content-type", "content-length", "content-encoding",
                  "content-md5", "transfer-encoding", "expect", "user-agent")
LOGGED_PREFIXES = ("x-amz-", "x-ms-", "x-trapd-")
MAX_BODY = 256 << 20  # a hard cap: the server is for tests, not for storage


class Step:
    """One MODE step: what to do and for how many uploads (None: for ever)."""

    def __init__(self, text):
        parts = text.split(":")
        self.text = text
        self.kind = parts[0]
        self.arg = None
        want_arg = self.kind in ("status", "slow")
        if self.kind not in ("ok", "status", "hang", "slow", "close"):
            raise ValueError("unknown mode %r" % text)
        if want_arg:
            if len(parts) < 2 or not parts[1]:
                raise ValueError("mode %r needs a value" % text)
            self.arg = float(parts[1]) if self.kind == "slow" else int(parts[1])
            if self.kind == "status" and not 100 <= self.arg <= 599:
                raise ValueError("mode %r: status out of range" % text)
        rest = parts[2:] if want_arg else parts[1:]
        if len(rest) > 1:
            raise ValueError("mode %r: too many fields" % text)
        self.left = int(rest[0]) if rest else None
        if self.left is not None and self.left < 1:
            raise ValueError("mode %r: count must be at least 1" % text)


class Plan:
    """The MODE steps, consumed one upload at a time under a lock."""

    def __init__(self, texts):
        self.steps = [Step(t) for t in texts]
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            while self.steps:
                step = self.steps[0]
                if step.left is None:
                    return step.kind, step.arg, step.text
                step.left -= 1
                if step.left == 0:
                    self.steps.pop(0)
                return step.kind, step.arg, step.text
            return "ok", None, "ok"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "trapd-fault/1"

    def log_message(self, fmt, *args):
        pass  # requests.log is the record; keep stderr for errors

    # --- helpers ---------------------------------------------------------

    def _split_path(self):
        url = urllib.parse.urlsplit(self.path)
        return urllib.parse.unquote(url.path), url.query

    def _store_path(self, path):
        """Where PATH is stored, or None if it would leave DIR/store."""
        root = os.path.join(self.server.dir, "store")
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if not parts or ".." in parts:
            return None
        return os.path.join(root, *parts)

    def _read_body(self, delay=0.0):
        """Read the request body (Content-Length or chunked); returns bytes.
        Raises ConnectionError if the client goes away part way."""
        if delay:
            time.sleep(delay)
        te = self.headers.get("Transfer-Encoding", "").lower()
        chunks = []
        got = 0
        if "chunked" in te:
            while True:
                line = self.rfile.readline(1024)
                if not line:
                    raise ConnectionError("client closed in a chunk header")
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                data = self.rfile.read(size)
                if len(data) < size:
                    raise ConnectionError("client closed after %d bytes" % (got + len(data)))
                got += size
                if got > MAX_BODY:
                    raise ValueError("body over %d bytes" % MAX_BODY)
                chunks.append(data)
                self.rfile.readline(8)
        else:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                raise ValueError("body over %d bytes" % MAX_BODY)
            while got < length:
                data = self.rfile.read(min(65536, length - got))
                if not data:
                    raise ConnectionError("client closed after %d bytes" % got)
                chunks.append(data)
                got += len(data)
        self.body_len = got
        return b"".join(chunks)

    def _log(self, status, mode, error=None):
        path, query = self._split_path()
        headers = {}
        for k, v in self.headers.items():
            lk = k.lower()
            if lk in LOGGED_HEADERS or lk.startswith(LOGGED_PREFIXES):
                headers[lk] = v
        rec = {
            "time": datetime.datetime.now(datetime.timezone.utc)
                    .isoformat(timespec="milliseconds"),
            "method": self.command,
            "path": path,
            "query": query,
            "status": status,
            "mode": mode,
            "body_bytes": getattr(self, "body_len", 0),
            "authorization": "authorization" in
                             (k.lower() for k in self.headers.keys()),
            "headers": headers,
        }
        if error:
            rec["error"] = error
        line = json.dumps(rec, sort_keys=True) + "\n"
        with self.server.log_lock:
            with open(os.path.join(self.server.dir, "requests.log"), "a") as f:
                f.write(line)

    def _answer(self, code, body=b"", ctype="text/plain"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def _wait_for_client_close(self):
        """hang: hold the connection until the client closes it."""
        sock = self.connection
        while True:
            r, _, _ = select.select([sock], [], [], 1.0)
            if r:
                try:
                    if not sock.recv(65536):
                        break
                except OSError:
                    break
        self.close_connection = True

    # --- methods ---------------------------------------------------------

    def _upload(self):
        kind, arg, text = self.server.plan.next()
        path, _ = self._split_path()
        try:
            body = self._read_body(delay=arg if kind == "slow" else 0.0)
        except (ConnectionError, OSError, ValueError) as e:
            self._log(None, text, error=str(e))
            self.close_connection = True
            return
        if kind == "hang":
            self._log(None, text)
            self._wait_for_client_close()
            return
        if kind == "close":
            self._log(None, text)
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if kind == "status":
            self._log(arg, text)
            self._answer(arg, ("fault server: mode %s\n" % text).encode())
            return
        dest = self._store_path(path)
        if dest is None:
            self._log(400, text, error="bad path")
            self._answer(400, b"bad path\n")
            return
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        tmp = dest + ".part"
        with open(tmp, "wb") as f:
            f.write(body)
        os.replace(tmp, dest)
        code = 201 if self.command == "PUT" else 200
        self._log(code, text)
        self._answer(code)

    def do_PUT(self):
        self._upload()

    def do_POST(self):
        self._upload()

    def do_GET(self):
        path, _ = self._split_path()
        dest = self._store_path(path)
        if dest is None or not os.path.isfile(dest):
            self._answer(404, b"not found\n")
            return
        with open(dest, "rb") as f:
            data = f.read()
        self._answer(200, data, "application/octet-stream")

    def do_HEAD(self):
        self.do_GET()


def main():
    ap = argparse.ArgumentParser(description="fault-injecting upload server")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("mode", nargs="*", default=["ok"])
    args = ap.parse_args()
    try:
        plan = Plan(args.mode or ["ok"])
    except ValueError as e:
        print("fault_server: %s" % e, file=sys.stderr)
        return 2
    os.makedirs(os.path.join(args.dir, "store"), exist_ok=True)
    ThreadingHTTPServer.allow_reuse_address = True
    srv = ThreadingHTTPServer((args.host, args.port), Handler)
    srv.daemon_threads = True
    srv.dir = args.dir
    srv.plan = plan
    srv.log_lock = threading.Lock()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
