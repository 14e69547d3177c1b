#!/usr/bin/env node
// bench/history.mjs — how fast does GET /api/v1/history answer on a long
// series? A benchmark, not a test: it prints milliseconds.
//
//   node bench/history.mjs [--bin build/storbench] [--runs 2000] [--others 0]
//
// One daemon (a temporary data folder) imports --runs generated
// CrystalDiskMark files of drive C: (tests/lib/cdmgen.mjs: a real file's
// figures scaled, 2 % noise, one 15 % step two thirds of the way), and
// --others more of drive D: (so the target's runs are a part of a larger
// archive), then asks for the history of SEQ1M Q8T1 read (MB/s: its 999-
// ordering permutation tests included) and of RND4K Q1T1 read (IOPS, the
// default resolved: two reads), 20 times each after one warm-up, and
// prints the median, p90 and max of the wall time per request, the
// answer's size and the change points found.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startDaemon } from '../tests/lib/daemon.mjs';
import { importSeries } from '../tests/lib/cdmgen.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: a } = parseArgs({ options: {
  bin: { type: 'string', default: path.join(here, '..', 'build', 'storbench') },
  runs: { type: 'string', default: '2000' },
  others: { type: 'string', default: '0' },
} });
const N = Number(a.runs), M = Number(a.others);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-history-'));
const d = await startDaemon({ bin: a.bin, dataDir: path.join(root, 'data'), quiet: true });
try {
  let t = performance.now();
  await importSeries(d.url, { n: N, stepAt: Math.floor(N * 2 / 3), step: 0.15, seed: 1,
    start: new Date(Date.UTC(2020, 0, 1)) });
  if (M) await importSeries(d.url, { n: M, seed: 2, drive: 'D:', start: new Date(Date.UTC(2020, 0, 1)) });
  console.log(`imported ${N} runs of C:${M ? ` and ${M} of D:` : ''} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  for (const test of ['SEQ1M Q8T1', 'RND4K Q1T1']) {
    const url = `${d.url}/api/v1/history?${new URLSearchParams({ target: 'C:', profile: 'crystaldiskmark', test, rw: 'read' })}`;
    const ms = [];
    let body = null;
    for (let i = 0; i <= 20; i++) {
      t = performance.now();
      const r = await fetch(url);
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${r.status} ${text}`);
      if (i > 0) ms.push(performance.now() - t);
      body = text;
    }
    ms.sort((x, y) => x - y);
    const h = JSON.parse(body);
    console.log(`${test} read (${h.metric}): ${h.points.length} points, ${h.change_points.length} change point(s)` +
      `${h.change_points.map((c) => ` at #${c.run_id} ${c.shift_pct.toFixed(1)} % [${c.ci_pct.map((v) => v.toFixed(1)).join(', ')}]`).join('')}; ` +
      `${(body.length / 1024).toFixed(0)} KiB; ms per request: median ${ms[10].toFixed(1)}, p90 ${ms[18].toFixed(1)}, max ${ms[19].toFixed(1)}`);
  }
} finally {
  await d.stop();
  fs.rmSync(root, { recursive: true, force: true });
}
