#!/usr/bin/env node
// bench/archive-10k.mjs — is the archive page still quick with 10,000 runs?
// Makes one real run (custom, 2 tests × 3 iterations) through a daemon,
// clones it into 10,000 runs with varied profiles, filesystems, cluster
// sizes, labels, targets and dates (bench/clone-runs.mjs, straight into
// the archive while the daemon is stopped), restarts the daemon and times:
// the API list (first page, last page, each filter, a sort; median of 5)
// and, in headless Chromium, the archive page's first render, a filter, the
// next page. A benchmark, not a test: it prints milliseconds.
//
//   node bench/archive-10k.mjs [--bin build/storbench] [--runs 10000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startDaemon, api, waitJob } from '../tests/lib/daemon.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from '../tests/lib/browser.mjs';
import { cloneRuns } from './clone-runs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: a } = parseArgs({ options: {
  bin: { type: 'string', default: path.join(here, '..', 'build', 'storbench') },
  runs: { type: 'string', default: '10000' },
  keep: { type: 'boolean', default: false }, // leave the archive, say where
  'no-browser': { type: 'boolean', default: false },
} });
const N = Number(a.runs);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-10k-'));
const data = path.join(root, 'data');

let d = await startDaemon({ bin: a.bin, dataDir: data, quiet: true });
const r = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '16MiB', iterations: 3, duration_s: 0.5,
  tests: [{ name: 'RND4K Q8T1', block_size: '4KiB', queue_depth: 8 }, { name: 'SEQ1M Q1T1', pattern: 'sequential', block_size: '1MiB' }] });
await waitJob(d.url, r.json.id, 120000);
await d.stop();

// clone run 1 into N runs, its results too (the list shows a headline per run)
const t0 = Date.now();
const count = cloneRuns(path.join(data, 'storbench.db'), N);
console.log(`## archive with ${count} runs (made in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);

d = await startDaemon({ bin: a.bin, dataDir: data, quiet: true });
const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
async function timed(q) {
  const ms = [];
  let total;
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    const res = await api(d.url, 'GET', `/api/v1/runs?${q}`);
    ms.push(performance.now() - s);
    total = res.json.total;
  }
  return { first: ms[0], ms: median(ms), total };
}
// the first request makes the page; the next ones, until a write, are the
// kept bytes (api/listcache.c)
console.log('');
console.log('| API request (100 runs a page) | matching runs | first ms (made) | median ms (5) |');
console.log('|---|---:|---:|---:|');
for (const q of ['limit=100', `limit=100&offset=${N - 100}`, 'limit=100&fs_type=ntfs', 'limit=100&label=batch-7',
  'limit=100&cluster_size=65536', 'limit=100&profile=seq-sweep&fs_type=xfs', 'limit=100&from=2026-03-01&to=2026-03-31',
  'limit=100&target=/mnt/vol3', 'limit=100&sort=fs_type', 'limit=100&sort=-started_at&label=before']) {
  const t = await timed(q);
  console.log(`| \`${q}\` | ${t.total} | ${t.first.toFixed(1)} | ${t.ms.toFixed(1)} |`);
}

// the heavier reads, each timed alone (median of 5), then again while a
// probe asks /healthz every 10 ms: its p99 while they run
async function timedGet(route) {
  const ms = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    const res = await api(d.url, 'GET', route, undefined, { timeoutMs: 120000 });
    if (res.status !== 200) throw new Error(`${route}: ${res.status} ${res.text?.slice(0, 200)}`);
    ms.push(performance.now() - s);
  }
  return median(ms);
}
const heavy = ['/api/v1/runs?limit=100', '/api/v1/runs?limit=1000', '/metrics',
  '/api/v1/compare?group_by=label&values=before,after', '/api/v1/compare?group_by=fs_type&values=ext4,xfs&profile=custom'];
console.log('');
console.log('| request | median ms (5) |');
console.log('|---|---:|');
for (const q of heavy) console.log(`| \`${q}\` | ${(await timedGet(q)).toFixed(1)} |`);
{
  let stop = false;
  const hz = [];
  const probe = (async () => {
    while (!stop) {
      const s = performance.now();
      await api(d.url, 'GET', '/healthz');
      hz.push(performance.now() - s);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  for (let k = 0; k < 3; k++) for (const q of heavy) await api(d.url, 'GET', q, undefined, { timeoutMs: 120000 });
  stop = true;
  await probe;
  hz.sort((x, y) => x - y);
  console.log('');
  console.log(`/healthz while those ran (3 rounds): ${hz.length} probes, p50 ${hz[hz.length >> 1].toFixed(1)} ms, ` +
    `p99 ${hz[Math.min(hz.length - 1, Math.floor(hz.length * 0.99))].toFixed(1)} ms, max ${hz[hz.length - 1].toFixed(1)} ms`);
}

if (a['no-browser']) {
  await d.stop();
  if (a.keep) console.log(`archive kept: ${data}`); else fs.rmSync(root, { recursive: true, force: true });
  process.exit(0);
}
const { chromium } = await import(path.join(here, '..', 'tests', 'browser', 'node_modules', 'playwright-core', 'index.mjs'));
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const rows = () => page.locator('#runs-body tr.run-row').count();
let s = performance.now();
await page.goto(`${d.url}/#/runs`);
await page.waitForFunction(() => document.querySelectorAll('#runs-body tr.run-row').length === 100);
const first = performance.now() - s;
s = performance.now();
await page.fill('#runs-filters input[name=label]', 'batch-7');
await page.waitForFunction(() => document.querySelector('#runs-count').textContent.startsWith('200 '));
const filter = performance.now() - s;
await page.fill('#runs-filters input[name=label]', '');
await page.waitForFunction(() => document.querySelector('#runs-count').textContent.startsWith(`${document.querySelector('#runs-count').textContent.split(' ')[0]}`) &&
  document.querySelectorAll('#runs-body tr.run-row').length === 100);
s = performance.now();
await page.click('#runs-more');
await page.waitForFunction(() => document.querySelectorAll('#runs-body tr.run-row').length === 200);
const more = performance.now() - s;
console.log('');
console.log('| archive page in Chromium | ms |');
console.log('|---|---:|');
console.log(`| open, first 100 of ${count} rows drawn | ${first.toFixed(0)} |`);
console.log(`| type a label filter (debounced 250 ms), 100 of 200 matching rows drawn | ${filter.toFixed(0)} |`);
console.log(`| "Load more": rows 101–200 drawn | ${more.toFixed(0)} |`);
console.log(`(rows on the page at the end: ${await rows()})`);
await browser.close();
await d.stop();
if (a.keep) console.log(`archive kept: ${data}`); else fs.rmSync(root, { recursive: true, force: true });
