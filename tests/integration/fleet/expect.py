#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# expect.py EXPECTED LISTING [FILTER...] - check that LISTING (the output of
# `trapd captures ls --json`) holds exactly the captures of EXPECTED
# (make_fleet.py's) that FILTER wants, with their fields. FILTER words are
# the command's: --host H, --rule R, --label K=V, --trigger T, --since NS,
# --until NS (ns since the epoch). Repeated kinds mean any of; kinds all
# hold. Prints what differs and exits 1.
import json, sys

expected = json.load(open(sys.argv[1]))
listing = json.load(open(sys.argv[2]))
want = {}
args = sys.argv[3:]
for k, v in zip(args[::2], args[1::2]):
    want.setdefault(k, []).append(v)

def wanted(c):
    if "--host" in want and c["host"] not in want["--host"]:
        return False
    if "--rule" in want and not set(c["rules"]) & set(want["--rule"]):
        return False
    if "--trigger" in want and c["trigger"] not in want["--trigger"]:
        return False
    labels = {"role": c["role"], "env": "prod"}
    keys = {kv.split("=", 1)[0] for kv in want.get("--label", [])}
    for k in keys:
        vals = [kv.split("=", 1)[1] for kv in want["--label"] if kv.split("=", 1)[0] == k]
        if labels.get(k) not in vals:
            return False
    if "--since" in want and c["start_ns"] < int(want["--since"][0]):
        return False
    if "--until" in want and c["start_ns"] > int(want["--until"][0]):
        return False
    return True

exp = {c["key"]: c for c in expected if wanted(c)}
got = {c["key"]: c for c in listing["captures"]}
bad = []
if len(got) != len(listing["captures"]):
    bad.append("a capture listed twice")
for k in sorted(set(exp) - set(got)):
    bad.append("missing " + k)
for k in sorted(set(got) - set(exp)):
    bad.append("not wanted " + k)
for k in sorted(set(exp) & set(got)):
    e, g = exp[k], got[k]
    if (g["host"], g["trigger"], sorted(g["rules"]), g["labels"].get("role"), g["start_ns"],
            g["samples"]) != (e["host"], e["trigger"], sorted(e["rules"]), e["role"],
                              e["start_ns"], e["samples"]):
        bad.append("fields of %s: %s" % (k, json.dumps(g)))
if bad:
    print("%d expected, %d listed; %s" % (len(exp), len(got), "; ".join(bad[:5])))
    sys.exit(1)
print(len(got))
