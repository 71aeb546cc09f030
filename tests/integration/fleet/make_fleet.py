#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# make_fleet.py SRC_DIR OUT_DIR - turn real captures (SRC_DIR/NNN.pb.zst and
# their sidecars, from `trapd capture`) into the spools of a fleet: 5 hosts,
# 3 roles, 3 days, rules and manual triggers. Only the sidecar is changed
# (host, labels, trigger, triggers, window start), as the daemon of each
# host would have written it; the profile stays the bytes trapd wrote.
# Writes OUT_DIR/HOST/spool/YYYYMMDDTHHMMSSZ-NAME-SEQ.{pb.zst,json} and
# OUT_DIR/expected.json: one record per capture (key, host, role, day,
# rules, trigger, start_ns, samples).
import glob, hashlib, json, os, shutil, sys

src, out = sys.argv[1], sys.argv[2]
HOSTS = ["web-1", "web-2", "db-1", "db-2", "cache-1"]
ROLES = {"web-1": "web", "web-2": "web", "db-1": "db", "db-2": "db", "cache-1": "cache"}
DAYS = [(2026, 11, 23), (2026, 11, 24), (2026, 11, 25)]
expected = []
for i, prof in enumerate(sorted(glob.glob(os.path.join(src, "*.pb.zst")))):
    side = json.load(open(prof[:-len(".pb.zst")] + ".json"))
    host = HOSTS[i % 5]
    y, m, d = DAYS[(i // 5) % 3]
    hh, mm, ss = (i * 7) % 24, i % 60, (i * 13) % 60
    start_ns = int(__import__("calendar").timegm((y, m, d, hh, mm, ss))) * 10**9
    rules = []
    if i % 7 == 0:
        trigger = "manual"
    else:
        trigger = "rule"
        rules = ["cpu-high"] if i % 2 else ["latency"]
        if i % 3 == 0:
            rules.append("psi-cpu")
    side["host"] = host
    side["labels"] = {"role": ROLES[host], "env": "prod"}
    side["trigger"] = trigger
    side["triggers"] = [{"rule": r, "signal": "cpu", "scope": "system", "direction": "above",
                         "threshold": 80, "value": 90, "unit": "%", "at_ns": start_ns,
                         "joined": n > 0, "history": []} for n, r in enumerate(rules)]
    side["window"]["start_ns"] = start_ns
    side["window"]["start"] = "%04d-%02d-%02dT%02d:%02d:%02d.000Z" % (y, m, d, hh, mm, ss)
    spool = os.path.join(out, host, "spool")
    os.makedirs(spool, mode=0o700, exist_ok=True)
    name = "%04d%02d%02dT%02d%02d%02dZ-%s-%08d" % (y, m, d, hh, mm, ss, trigger, i)
    shutil.copyfile(prof, os.path.join(spool, name + ".pb.zst"))
    with open(os.path.join(spool, name + ".json"), "w") as f:
        json.dump(side, f, indent=2)
    sha = hashlib.sha256(open(prof, "rb").read()).hexdigest()
    expected.append({"key": "%s/%04d/%02d/%02d/%s" % (host, y, m, d, sha), "host": host,
                     "role": ROLES[host], "day": "%04d-%02d-%02d" % (y, m, d),
                     "rules": rules, "trigger": trigger, "start_ns": start_ns,
                     "samples": side["samples"]["stored"], "period_ns": side["period_ns"]})
json.dump(expected, open(os.path.join(out, "expected.json"), "w"), indent=1)
print(len(expected))
