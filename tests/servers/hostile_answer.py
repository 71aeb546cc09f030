#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""hostile_answer.py - an upload server whose answers are written to attack
whoever shows them: terminal escape sequences (OSC title, CSI colours and
clear screen, a C1 CSI), a bidirectional override and bytes that are not
UTF-8, in the reason phrase and in an S3-style error body (<Code>,
<Message>), which trapd quotes in its log, its .failed markers and
`trapd status`. Used by tests/integration/test_secrets.sh.

    hostile_answer.py --port PORT [STATUS[:N]...]

Each upload (PUT or POST; the body is read) is answered with the next
STATUS: one with a count N is used for N uploads, the last one for ever
(default 403). Raw sockets, so every byte goes out exactly as written.
Each request's first line is appended to requests.log in the current
directory, and whether it carried an Authorization header (never its value).
"""

import argparse
import socket
import socketserver
import sys
import threading

CODE = b"\x1b]0;owned\x07Denied\x1b[31mRED\x1b[2J"
MESSAGE = b"\xc2\x9b" b"1;32m c1-csi \xff\xfe bad-utf8 \xe2\x80\xae" b"txt.exe \x1b[0m end"
REASON = b"Forbidden \x1b[5mblink\x1b[0m \xff"


class Plan:
    def __init__(self, texts):
        self.steps = []
        for t in texts or ["403"]:
            code, _, n = t.partition(":")
            self.steps.append([int(code), int(n) if n else None])
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            code, left = self.steps[0]
            if left is not None and len(self.steps) > 1:
                self.steps[0][1] -= 1
                if self.steps[0][1] == 0:
                    self.steps.pop(0)
            return code


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            line = self.rfile.readline(65536)
            if not line:
                return
            headers = {}
            while True:
                h = self.rfile.readline(65536)
                if h in (b"\r\n", b"\n", b""):
                    break
                k, _, v = h.decode("latin-1").partition(":")
                headers[k.strip().lower()] = v.strip()
            length = int(headers.get("content-length", "0") or 0)
            while length > 0:
                got = self.rfile.read(min(length, 65536))
                if not got:
                    return
                length -= len(got)
            with open("requests.log", "a") as f:
                f.write("%s authorization=%s\n" % (line.decode("latin-1").strip(),
                                                  "authorization" in headers))
            code = self.server.plan.next()
            body = b"<Error><Code>" + CODE + b"</Code><Message>" + MESSAGE + \
                   b"</Message></Error>\n"
            self.wfile.write(b"HTTP/1.1 %d %s\r\nContent-Type: application/xml\r\n"
                             b"Content-Length: %d\r\n\r\n" % (code, REASON, len(body)) + body)
            self.wfile.flush()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("status", nargs="*")
    args = ap.parse_args()
    srv = Server(("127.0.0.1", args.port), Handler)
    srv.plan = Plan(args.status)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
