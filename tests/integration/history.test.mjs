// A target's history (GET /api/v1/history) on an archive made of generated
// CrystalDiskMark files (tests/lib/cdmgen.mjs: a real file's figures
// scaled, one file a day): drive C: has 24 runs at one level and 16 runs
// 15 % faster, each with 2 % run-to-run noise, after a Windows update (the
// OS line changes with the step); drive D: has 40 runs at one level. The
// step is found at its run with an interval that holds 15 %, D: has no
// change point, and the route refuses what it cannot answer. The change
// point says what changed between the runs either side (the OS build).
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test history.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, api } from '../lib/daemon.mjs';
import { importSeries } from '../lib/cdmgen.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'history-'));
const d = await startDaemon({ bin, dataDir: path.join(root, 'data'), quiet: true });
after(async () => {
  await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

const OLD_OS = 'Windows Server 2022 [10.0 Build 20348] (x64)';
const NEW_OS = 'Windows Server 2022 [10.0 Build 20349] (x64)';
const ids = { C: [], D: [] };

async function importAll() {
  ids.C = await importSeries(d.url, { n: 40, stepAt: 24, step: 0.15, seed: 33, os: OLD_OS, os2: NEW_OS });
  ids.D = await importSeries(d.url, { n: 40, seed: 34, drive: 'D:', os: OLD_OS });
}

const q = (o) => `/api/v1/history?${new URLSearchParams({ profile: 'crystaldiskmark', test: 'SEQ1M Q8T1', rw: 'read', ...o })}`;

test('a planted 15 % step is found at its run, with an interval that holds it', async () => {
  await importAll();
  const r = await api(d.url, 'GET', q({ target: 'C:' }));
  assert.equal(r.status, 200, r.text);
  const h = r.json;
  assert.equal(h.metric, 'mb_s', 'a sequential test: MB/s by default');
  assert.equal(h.unit, '10^6 B/s');
  assert.equal(h.higher_is_better, true);
  assert.deepEqual(h.points.map((p) => p.run_id), ids.C, 'every run, oldest first');
  // an import states one figure: no interval of its own
  assert.ok(h.points.every((p) => p.n === 1 && p.ci === null && p.sd === null));
  assert.equal(h.change_points.length, 1, JSON.stringify(h.change_points));
  const c = h.change_points[0];
  assert.equal(c.index, 24);
  assert.equal(c.run_id, ids.C[24]);
  assert.equal(c.before_run_id, ids.C[23]);
  assert.equal(c.started_at, '2026-01-25T00:00:00');
  assert.equal(c.before.runs, 24);
  assert.equal(c.after.runs, 16);
  assert.equal(c.before.first_run_id, ids.C[0]);
  assert.equal(c.after.last_run_id, ids.C[39]);
  assert.ok(c.p < 0.01, `p ${c.p}`);
  // the shift against what the points say, and its interval
  const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  const before = mean(h.points.slice(0, 24).map((p) => p.value));
  const afterM = mean(h.points.slice(24).map((p) => p.value));
  assert.ok(Math.abs(c.before.mean - before) < 1e-9 && Math.abs(c.after.mean - afterM) < 1e-9);
  assert.ok(Math.abs(c.shift - (afterM - before)) < 1e-9);
  assert.ok(Math.abs(c.shift_pct - 100 * (afterM - before) / before) < 1e-9);
  assert.ok(c.ci_pct[0] < 15 && 15 < c.ci_pct[1], `15 % in ${c.ci_pct}`);
  assert.ok(c.ci_pct[1] - c.ci_pct[0] < 5, `an interval of a few % (${c.ci_pct})`);
  assert.equal(c.compare, `/api/v1/compare?runs=${ids.C[23]},${ids.C[24]}`);
  // what changed at the step, and only that: the Windows build
  assert.deepEqual(c.changed, [{ field: 'probe.os', label: 'OS', values: [OLD_OS, NEW_OS] }]);
  const cmp = await api(d.url, 'GET', c.compare);
  assert.equal(cmp.status, 200, cmp.text);
  assert.deepEqual(cmp.json.changed, c.changed, 'the compare it links says the same');
  // IOPS of the same test: the same step
  const iops = (await api(d.url, 'GET', q({ target: 'C:', metric: 'iops' }))).json;
  assert.equal(iops.change_points.length, 1);
  assert.equal(iops.change_points[0].run_id, ids.C[24]);
  // a random test's headline is its IOPS
  const rnd = (await api(d.url, 'GET', q({ target: 'C:', test: 'RND4K Q1T1' }))).json;
  assert.equal(rnd.metric, 'iops');
  assert.equal(rnd.change_points[0]?.run_id, ids.C[24]);
});

test('a series without a step has no change point', async () => {
  const h = (await api(d.url, 'GET', q({ target: 'D:' }))).json;
  assert.equal(h.points.length, 40);
  assert.deepEqual(h.change_points, []);
});

test('what the route cannot answer is a problem naming the field', async () => {
  const cases = [
    [q({}), 400, 'target'],
    [`/api/v1/history?target=C:&profile=crystaldiskmark&test=x`, 400, 'rw'],
    [q({ target: 'C:', rw: 'sideways' }), 400, 'rw'],
    [q({ target: 'C:', host: '' }), 400, 'host'],
    [q({ target: 'C:', metric: 'bogus' }), 400, 'metric'],
    [q({ target: 'C:' }) + '&colour=red', 400, 'colour'],
    [q({ target: 'E:' }), 404, 'target'],
    [q({ target: 'C:', host: 'elsewhere' }), 404, 'target'],
    // CrystalDiskMark states no p99: no run has the metric
    [q({ target: 'C:', metric: 'lat_p99_us' }), 404, 'target'],
  ];
  for (const [url, status, field] of cases) {
    const r = await api(d.url, 'GET', url);
    assert.equal(r.status, status, `${url}: ${r.text}`);
    assert.match(r.headers.get('content-type'), /problem\+json/);
    assert.equal(r.json.field, field, `${url}: ${r.text}`);
  }
});
