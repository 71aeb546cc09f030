// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// symwork.js - bench/symbolize's Node.js workload: JSON, regular
// expressions, Math, hashing, zlib, sorting and file system calls, so a
// profile of it has deep stacks through V8's builtins and node's C++
// (a big, C++ symbol table) and the kernel. Runs until killed.
const crypto = require('crypto');
const fs = require('fs');
const zlib = require('zlib');

const doc = {};
for (let i = 0; i < 200; i++) doc['k' + i] = [i, String(i).repeat(3), { x: i / 7 }];
const text = Array.from({ length: 200 }, (_, i) => `user${i}@host${i}.org`).join(' ');

for (;;) {
  const s = JSON.stringify(doc);
  JSON.parse(s);
  text.match(/(\w+)@(\w+)\.(com|org)/g);
  let t = 0;
  for (let x = 0; x < 2000; x++) t += Math.sin(x) * Math.exp(-x / 1000) + Math.log1p(x);
  crypto.createHash('sha256').update(s).digest('hex');
  zlib.inflateSync(zlib.deflateSync(s));
  Object.entries(doc).sort((a, b) => (a[1][1] < b[1][1] ? -1 : 1));
  for (const f of fs.readdirSync('/usr/lib')) {
    try {
      fs.statSync('/usr/lib/' + f);
    } catch (e) {
      // a dangling link: skip it
    }
  }
}
