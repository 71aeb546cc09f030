#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hostile_s3.py PORTFILE - an S3 endpoint on 127.0.0.1 that answers every
# listing as a hostile store would, by bucket (the first path segment):
#
#   endless   pages that never end: each empty, truncated, a new token
#   circle    pages that go round: the same token again
#   bigkey    one key of 100,000 bytes
#   ctlkey    one key holding an escape byte (&#27;)
#   badxml    an answer cut in the middle of an element
#   nottrunc  IsTruncated "maybe"
#   huge      a 20 MiB answer
#   many      10,000 keys in one page
#   stall     headers, then nothing
#
# It writes its port to PORTFILE and counts the listing requests it
# answered, by bucket, in PORTFILE.count (one line "bucket n" each) as
# it goes. It checks no signature: what is attacked is the client.
import http.server
import os
import sys
import threading
import time

counts = {}
lock = threading.Lock()
portfile = sys.argv[1]

HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'


def page(contents, truncated, token=None):
    body = HEAD + b"<Name>b</Name><Prefix></Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys>"
    body += contents
    body += b"<IsTruncated>" + truncated + b"</IsTruncated>"
    if token:
        body += b"<NextContinuationToken>" + token + b"</NextContinuationToken>"
    return body + b"</ListBucketResult>"


def item(key):
    return (b"<Contents><Key>" + key + b"</Key><LastModified>2026-11-29T00:00:00.000Z"
            b"</LastModified><ETag>&quot;0&quot;</ETag><Size>1</Size></Contents>")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, body, status=200):
        self.send_response(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        bucket = self.path.lstrip("/").split("?")[0].split("/")[0]
        with lock:
            counts[bucket] = counts.get(bucket, 0) + 1
            with open(portfile + ".count.tmp", "w") as f:
                for k, v in sorted(counts.items()):
                    f.write("%s %d\n" % (k, v))
            os.rename(portfile + ".count.tmp", portfile + ".count")
        n = counts[bucket]
        if bucket == "endless":
            self.send(page(b"", b"true", b"t%d" % n))
        elif bucket == "circle":
            self.send(page(b"", b"true", b"same"))
        elif bucket == "bigkey":
            self.send(page(item(b"h/" + b"k" * 100000), b"false"))
        elif bucket == "ctlkey":
            self.send(page(item(b"h/evil&#27;]0;PWN&#7;.json"), b"false"))
        elif bucket == "badxml":
            self.send(HEAD + b"<Contents><Key>h/a.json</Key><Size>1")
        elif bucket == "nottrunc":
            self.send(page(b"", b"maybe"))
        elif bucket == "huge":
            self.send(page(b"<Junk>" + b"x" * (20 << 20) + b"</Junk>", b"false"))
        elif bucket == "many":
            self.send(page(b"".join(item(b"h/%05d.json" % i) for i in range(10000)), b"false"))
        elif bucket == "stall":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.flush()
            time.sleep(3600)
        else:
            self.send(b"<Error><Code>NoSuchBucket</Code></Error>", 404)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(portfile + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(portfile + ".tmp", portfile)
server.serve_forever()
