# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# symwork.py - bench/symbolize's Python workload: a loop through many
# parts of the interpreter (libpython), its C extension modules (_json,
# _decimal, _sha2 or _hashlib, zlib, math with libm) and system calls
# (kernel frames), so a profile of it has many distinct functions across
# several ELF files. Runs until killed.
import decimal
import hashlib
import json
import math
import os
import re
import zlib

doc = {"k%d" % i: [i, str(i) * 3, {"x": i / 7}] for i in range(200)}
pattern = re.compile(r"(\w+)@(\w+)\.(com|org)")
text = " ".join("user%d@host%d.org" % (i, i) for i in range(200))

while True:
    s = json.dumps(doc)
    json.loads(s)
    pattern.findall(text)
    sum(math.sin(x) * math.exp(-x / 1000) + math.log1p(x) for x in range(2000))
    hashlib.sha256(s.encode()).hexdigest()
    zlib.decompress(zlib.compress(s.encode()))
    decimal.Decimal(1) / decimal.Decimal(7)
    sorted(doc.items(), key=lambda kv: kv[1][1])
    for entry in os.scandir("/usr/lib"):
        entry.stat()
