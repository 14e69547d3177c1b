#!/usr/bin/env node
// bench/fleet — how well do storbench daemons act as one load generator?
// Three hosts (daemons on this machine, own data directories and ports, one
// shared directory on real files) run multi-host jobs coordinated by a
// fourth daemon that is not a host itself, so its CPU is the coordination
// alone (probing, starting every window, bringing the hosts' runs over,
// the aggregate). A benchmark, not a test: the numbers move with the
// machine's load. Goals (issue 32): start skew ≤ 2 ms median, the common
// window ≥ 98 % of each host's measuring time for 5 s tests with 3 hosts.
//
//   bench/fleet.mjs [--bin build/storbench] [--dir var/bench-fleet]
//                   [--jobs 5] [--hosts 3] [--duration 5] [--iterations 2]
//
// Start skew, per window: how much later the last host's window opened
// than the first's, each host's opening as its engine recorded it on the
// wall clock when its start gate opened (raw.start_unix_ns; the first I/O
// is submitted within microseconds of it), less the host's clock offset
// the coordinator measured. On one machine the clocks are one clock, so
// the skew is the start mechanism's own: the HTTP round of the start, the
// sleep until the time, the engine's threads waking. The common share is
// the common window's length over each host's window. Coordinator CPU is
// its process's user + system time over the job (/proc/PID/stat).

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startDaemon, api, waitJob } from '../tests/lib/daemon.mjs';

const { values: o } = parseArgs({ options: {
  bin: { type: 'string', default: 'build/storbench' },
  dir: { type: 'string', default: 'var/bench-fleet' },
  jobs: { type: 'string', default: '5' },
  hosts: { type: 'string', default: '3' },
  duration: { type: 'string', default: '5' },
  iterations: { type: 'string', default: '2' },
} });
const nHosts = Number(o.hosts), nJobs = Number(o.jobs);
fs.rmSync(o.dir, { recursive: true, force: true });
const share = path.resolve(o.dir, 'share');
fs.mkdirSync(share, { recursive: true });

const tick = 100; // USER_HZ (sysconf(_SC_CLK_TCK)): 100 on Linux
const cpu = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / tick; // utime + stime, s
};
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };

const coord = await startDaemon({ bin: o.bin, dataDir: path.resolve(o.dir, 'coord'), allow: [share], quiet: true });
const hosts = [];
for (let i = 1; i <= nHosts; i++) {
  const d = await startDaemon({ bin: o.bin, dataDir: path.resolve(o.dir, `n${i}`), allow: [share], quiet: true });
  hosts.push(d);
  const r = await api(coord.url, 'POST', '/api/v1/peers', { name: `n${i}`, url: d.url });
  if (r.status !== 201) throw new Error(r.text);
}
const names = hosts.map((_, i) => `n${i + 1}`);
const rows = [];
try {
  for (let k = 0; k < nJobs; k++) {
    const c0 = cpu(coord.proc.pid), t0 = Date.now();
    const r = await api(coord.url, 'POST', '/api/v1/jobs', {
      hosts: names, target: share, profile: 'custom', size: '64MiB',
      iterations: Number(o.iterations), duration_s: Number(o.duration), interval_s: 0,
      tests: [{ name: 'RND4K Q8T1', block_size: '4KiB', queue_depth: 8, pattern: 'random' },
        { name: 'SEQ1M Q2T1', block_size: '1MiB', queue_depth: 2, pattern: 'sequential' }],
    });
    if (r.status !== 202) throw new Error(r.text);
    const job = await waitJob(coord.url, r.json.id, 600000);
    if (job.state !== 'done') throw new Error(`job ${job.id}: ${job.state}: ${job.error}`);
    const wall = (Date.now() - t0) / 1000, cpuS = cpu(coord.proc.pid) - c0;
    const agg = (await api(coord.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
    const f = agg.probe.fleet;
    // each window's skew, recomputed from the hosts' documents
    const docs = await Promise.all(f.hosts.map(async (h) => (await api(coord.url, 'GET', `/api/v1/runs/${h.run_id}?format=storbench`)).json));
    const skews = [], shares = [];
    for (const t of docs[0].tests) {
      for (const it of t.iterations) {
        const w = docs.map((d, j) => {
          const x = d.tests.find((u) => u.test === t.test && u.rw === t.rw).iterations.find((u) => u.iteration === it.iteration);
          const s = x.raw.start_unix_ns - f.hosts[j].offset_ms * 1e6;
          return { s, e: s + x.raw.window_ns, len: x.raw.window_ns };
        });
        const cs = Math.max(...w.map((x) => x.s)), ce = Math.min(...w.map((x) => x.e));
        skews.push((cs - Math.min(...w.map((x) => x.s))) / 1e6);
        for (const x of w) shares.push((ce - cs) / x.len);
      }
    }
    rows.push({ job: job.id, windows: skews.length, skew_med: median(skews), skew_max: Math.max(...skews),
      share_min: Math.min(...shares), cpu_s: cpuS, wall_s: wall, coord_skew_med: f.start_skew_ms.median });
    const x = rows.at(-1);
    console.log(`job ${x.job}: ${x.windows} windows, start skew median ${x.skew_med.toFixed(3)} ms, max ${x.skew_max.toFixed(3)} ms; ` +
      `common window ≥ ${(100 * x.share_min).toFixed(2)} % of each host's; coordinator CPU ${x.cpu_s.toFixed(2)} s over ${x.wall_s.toFixed(1)} s`);
  }
} finally {
  for (const d of hosts) await d.stop().catch(() => {});
  await coord.stop().catch(() => {});
}
const all = (k) => rows.map((r) => r[k]);
console.log(`\n${nHosts} hosts, ${rows.length} jobs × ${rows[0].windows} windows of ${o.duration} s:`);
console.log(`  start skew: median of the jobs' medians ${median(all('skew_med')).toFixed(3)} ms (goal ≤ 2 ms), max ${Math.max(...all('skew_max')).toFixed(3)} ms`);
console.log(`  common window: at least ${(100 * Math.min(...all('share_min'))).toFixed(2)} % of every host's window (goal ≥ 98 %)`);
console.log(`  coordinator CPU: median ${median(all('cpu_s')).toFixed(2)} s per job (${(100 * median(rows.map((r) => r.cpu_s / r.wall_s))).toFixed(2)} % of a CPU over the job)`);
