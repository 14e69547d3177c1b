#!/usr/bin/env node
// storbench cdm-default against fio on the same directory, same file size,
// same 8 workloads, run one right after the other. Prints a Markdown table of
// MB/s, IOPS and mean latency with the ratio storbench / fio. A benchmark,
// not a test: the numbers move with the machine's noise.
//
//   node bench/cdm-vs-fio.mjs [--bin build/storbench] [--dir DIR] [--size 1GiB]
//                             [--iterations 5] [--duration 5] [--fio-first]
//
// --fio-first runs fio before storbench, to tell an order effect (a host cache
// still flushing the freshly written test file) from a difference of engines.
//
// fio (Debian's) runs with ioengine=io_uring, direct=1, one job, the same
// block size and queue depth, time_based for the same duration, on a file it
// lays out itself; like CrystalDiskMark, each test's best iteration by MB/s
// is kept on both sides.
//
// Buffers: storbench's I/O buffers are backed by transparent huge pages, so a
// 1 MiB I/O is one device request. fio's default buffers are 4 KiB pages,
// which a device with a segment limit (virtio-blk: 254) splits into two
// requests. To compare like with like, the script reserves a few hugetlb
// pages for the run (as root; the old value is restored) and gives fio
// iomem=shmhuge; where it cannot, it says so and fio runs with its defaults.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startDaemon, api, waitJob } from '../tests/lib/daemon.mjs';

const { values: o } = parseArgs({
  options: {
    bin: { type: 'string', default: 'build/storbench' },
    dir: { type: 'string', default: 'var/bench' },
    size: { type: 'string', default: '1GiB' },
    iterations: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    'fio-first': { type: 'boolean', default: false },
  },
});
const iterations = Number(o.iterations);
const duration = Number(o.duration);
const sizeBytes = (() => {
  const m = /^(\d+)\s*(MiB|GiB|M|G)$/i.exec(o.size);
  if (!m) throw new Error('--size: use MiB or GiB');
  return Number(m[1]) * (/^g/i.test(m[2]) ? 2 ** 30 : 2 ** 20);
})();

fs.mkdirSync(o.dir, { recursive: true });
const dir = fs.realpathSync(o.dir);
const data = fs.mkdtempSync(path.join(os.tmpdir(), 'storbench-bench-'));

// --- storbench: one cdm-default job through the daemon's API ---
async function runStorbench() {
  const d = await startDaemon({ bin: o.bin, dataDir: data, allow: [dir], quiet: true });
  try {
    const r = await api(d.url, 'POST', '/api/v1/jobs', {
      target: dir, profile: 'cdm-default', size: o.size, iterations, duration_s: duration, labels: ['bench'],
    });
    if (r.status !== 202) throw new Error(`POST /api/v1/jobs: ${r.status} ${r.text}`);
    process.stderr.write(`storbench: job ${r.json.id} running …\n`);
    const job = await waitJob(d.url, r.json.id, 3600e3, 1000);
    if (job.state !== 'done') throw new Error(`job ${job.id} ${job.state}: ${job.error}`);
    return (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
  } finally {
    await d.stop();
  }
}

// --- fio: the same 8 workloads on the same directory ---
const fioFile = path.join(dir, 'fio-bench.dat');
const fioVersion = execFileSync('fio', ['--version']).toString().trim();
function fio(t) {
  const rw = (t.pattern === 'sequential' ? '' : 'rand') + t.rw;
  const out = execFileSync('fio', [
    '--name=' + `${t.test}-${t.rw}`.replace(/\s/g, '_'), `--filename=${fioFile}`, `--size=${sizeBytes}`,
    '--ioengine=io_uring', '--direct=1', `--rw=${rw}`, `--bs=${t.block_size}`, `--iodepth=${t.queue_depth}`,
    `--numjobs=${t.threads}`, '--group_reporting', `--runtime=${duration}`, '--time_based', ...fioMem,
    '--norandommap', '--randrepeat=0', '--output-format=json',
  ], { maxBuffer: 64 << 20 }).toString();
  const j = JSON.parse(out).jobs[0][t.rw];
  return { mb_s: j.bw_bytes / 1e6, iops: j.iops, lat_mean_us: j.lat_ns.mean / 1e3 };
}
// fio's buffers: hugetlb pages reserved for the fio part only (QD 8 × 1 MiB
// or QD 32 × 4 KiB need at most 4 pages of 2 MiB; 16 leaves room)
const HP = '/proc/sys/vm/nr_hugepages';
let fioMem = [];
async function runFio(tests) {
  const best = new Map();
  let hpOld = null;
  try {
    hpOld = Number(fs.readFileSync(HP, 'utf8'));
    fs.writeFileSync(HP, String(hpOld + 16));
    if (Number(fs.readFileSync(HP, 'utf8')) >= hpOld + 8) fioMem = ['--iomem=shmhuge'];
  } catch { /* not root: fio keeps its defaults */ }
  if (!fioMem.length) process.stderr.write('fio: no hugetlb pages (not root?): fio uses 4 KiB-page buffers; its SEQ1M I/Os may be split\n');
  try {
    // lay the file out once with fio's own random data, as storbench does
    execFileSync('fio', ['--name=layout', `--filename=${fioFile}`, `--size=${sizeBytes}`, '--rw=write',
      '--bs=1M', '--ioengine=io_uring', '--direct=1', '--output-format=terse'], { stdio: 'ignore' });
    for (const t of tests) {
      process.stderr.write(`fio: ${t.test} ${t.rw} …\n`);
      let b = null;
      for (let i = 0; i < iterations; i++) {
        const r = fio(t);
        if (!b || r.mb_s > b.mb_s) b = r;
      }
      best.set(`${t.test} ${t.rw}`, b);
    }
  } finally {
    fs.rmSync(fioFile, { force: true });
    if (hpOld !== null) fs.writeFileSync(HP, String(hpOld));
  }
  return best;
}

// the 8 workloads, as the daemon describes them
let run, fioBest;
{
  const d = await startDaemon({ bin: o.bin, dataDir: data, quiet: true });
  const profiles = (await api(d.url, 'GET', '/api/v1/profiles')).json.profiles;
  await d.stop();
  const tests = profiles.find((p) => p.name === 'cdm-default').tests;
  try {
    if (o['fio-first']) {
      fioBest = await runFio(tests);
      run = await runStorbench();
    } else {
      run = await runStorbench();
      fioBest = await runFio(tests);
    }
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}
const rows = run.tests.map((t) => ({ t, s: t.best, f: fioBest.get(`${t.test} ${t.rw}`) }));

const n = (x, d = 1) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
console.log(`storbench ${run.engine.version} (${run.engine.target}, direct=${run.engine.direct}) vs ${fioVersion}; ` +
  `${run.probe.fs_type} on ${run.probe.device ?? '?'} (${run.probe.write_cache ?? '?'}), ` +
  `${o.size}, ${iterations} × ${duration} s, best iteration; run ${run.id}; ` +
  `fio buffers: ${fioMem.length ? 'iomem=shmhuge (2 MiB hugetlb pages)' : 'fio default (4 KiB pages)'}; ` +
  `${o['fio-first'] ? 'fio ran first' : 'storbench ran first'}`);
console.log('');
console.log('| test | storbench MB/s | fio MB/s | ratio | storbench IOPS | fio IOPS | storbench lat µs | fio lat µs |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const { t, s, f } of rows) {
  console.log(`| ${t.test} ${t.rw} | ${n(s.mb_s, 2)} | ${n(f.mb_s, 2)} | ${(s.mb_s / f.mb_s).toFixed(3)} | ` +
    `${n(s.iops, 0)} | ${n(f.iops, 0)} | ${n(s.lat_mean_us)} | ${n(f.lat_mean_us)} |`);
}
