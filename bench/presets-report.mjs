#!/usr/bin/env node
// The two tables that answer issue 4's questions on this machine, through
// the daemon's API: a mailbox-db thread sweep (4, 8, 12) on a local
// directory with the default thresholds, and file-create on ext4, xfs and
// btrfs made on loop devices here (root). Prints Markdown. Not a test.
//
//   node bench/presets-report.mjs [--bin build/storbench] [--dir var/bench]
//                                 [--sizes 1GiB,4GiB] [--duration 30]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startDaemon, api, waitJob } from '../tests/lib/daemon.mjs';
import { loopFs } from '../tests/lib/loopfs.mjs';

const { values: o } = parseArgs({
  options: {
    bin: { type: 'string', default: 'build/storbench' },
    dir: { type: 'string', default: 'var/bench' },
    sizes: { type: 'string', default: '1GiB,4GiB' },
    duration: { type: 'string', default: '30' },
  },
});
fs.mkdirSync(o.dir, { recursive: true });
const dir = fs.realpathSync(o.dir);
const work = fs.mkdtempSync(path.join(dir, 'presets-'));
const d = await startDaemon({ bin: o.bin, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'sb-presets-')), allow: [dir], quiet: true });
const mounts = [];

async function run(body, timeoutMs = 3600000) {
  const r = await api(d.url, 'POST', '/api/v1/jobs', body);
  if (r.status !== 202) throw new Error(`${r.status} ${r.text}`);
  const job = await waitJob(d.url, r.json.id, timeoutMs);
  if (job.state !== 'done') throw new Error(`${body.profile}: ${job.state} ${job.error}`);
  return (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
}

try {
  const mb = await run({ target: work, profile: 'mailbox-db', size: '2GiB', iterations: 1, duration_s: Number(o.duration) });
  console.log(`## mailbox-db on ${mb.probe.fs_type} (${mb.probe.device ?? '?'}), ${o.duration} s per point, default thresholds (DB read mean ≤ 20 ms, log write mean ≤ 10 ms)\n`);
  console.log('| threads | transactional IOPS | efficiency | DB read mean ms | DB read p99 ms | DB write mean ms | log write mean ms | log write p99 ms | log MB/s | result |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const p of mb.mailbox)
    console.log(`| ${p.threads} | ${p.transactional_iops.toFixed(0)} | ${p.efficiency.toFixed(2)} | ${p.db_read_mean_ms.toFixed(3)} | ${p.db_read_p99_ms.toFixed(3)} | ${p.db_write_mean_ms.toFixed(3)} | ${p.log_write_mean_ms.toFixed(3)} | ${p.log_write_p99_ms.toFixed(3)} | ${p.log_mb_s.toFixed(1)} | ${p.verdict}${p.reasons.length ? `: ${p.reasons.join('; ')}` : ''} |`);
  const sizes = o.sizes.split(',');
  const rows = [];
  for (const type of ['ext4', 'xfs', 'btrfs']) {
    const m = loopFs(work, type, '12G');
    if (m.skip) { console.log(`\n${type}: skipped (${m.skip})`); continue; }
    mounts.push(m);
    const fc = await run({ target: m.mnt, profile: 'file-create', iterations: 1, options: { sizes } });
    for (const t of fc.tests) {
      const it = t.iterations[0];
      rows.push([type, t.test, t.rw, it.error ? it.error : `${it.seconds.toFixed(3)} s`, it.error ? '–' : (it.bytes / it.seconds / 1e9).toFixed(2)]);
    }
    m.cleanup();
  }
  console.log(`\n## file-create (loop devices on a file on this VM's disk; seconds from open to fsync done; GB/s = 10^9 B/s)\n`);
  console.log('| fs | size | method | time | GB/s |');
  console.log('|---|---|---|---|---:|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
} finally {
  for (const m of mounts) m.cleanup();
  await d.stop().catch(() => {});
  fs.rmSync(work, { recursive: true, force: true });
}
