// Verdicts at the level of runs, through the real daemon on real
// directories: an interleaved two-directory job end to end (its runs, its
// rounds in alternating order on fresh test files, the paired verdict), the
// refusals of compare_with, a single run a side that cannot tell, an A/A
// series in the archive that lets it tell, a like-for-like warning, and an
// imported DiskSpd run against a native one on p99 latency (each side's
// p99 as it states or measured it, none made up where a side has none);
// what changed between two runs on one loop-mounted ext4 remounted with
// another option (root and a loop device, else skipped saying why).
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node tests/integration/compare.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, api, waitJob } from '../lib/daemon.mjs';
import { stream } from '../lib/events.mjs';
import { loopFs } from '../lib/loopfs.mjs';
import { execFileSync } from 'node:child_process';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'compare-'));
const dirA = path.join(root, 'a');
const dirB = path.join(root, 'b');
const dirC = path.join(root, 'c');
const dirD = path.join(root, 'd');
const dirE = path.join(root, 'e');
for (const dir of [dirA, dirB, dirC, dirD, dirE]) fs.mkdirSync(dir);

const d = await startDaemon({ bin, dataDir: path.join(root, 'data'), allow: [root], quiet: true });
after(async () => {
  await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

const RND = [{ name: 'RND4K Q1T1', pattern: 'random', block_size: '4KiB', queue_depth: 1, threads: 1 }];
const job = (extra) => ({ profile: 'custom', size: '16MiB', duration_s: 0.5, tests: RND, ...extra });

async function run(body) {
  const r = await api(d.url, 'POST', '/api/v1/jobs', body);
  assert.equal(r.status, 202, r.text);
  const j = await waitJob(d.url, r.json.id, 120000);
  assert.equal(j.state, 'done', JSON.stringify(j));
  return j;
}

const iopsOf = (c) => c.tests.find((t) => t.test === 'RND4K Q1T1').metrics.find((m) => m.metric === 'iops');

test('an interleaved two-directory job: a run per target, rounds A B / B A on fresh files, a paired verdict', async () => {
  const j = await run(job({ target: dirA, compare_with: [dirB], iterations: 4, labels: ['il'] }));
  assert.deepEqual(j.compare_with, [dirB]);
  assert.equal(j.runs.length, 2);
  assert.equal(j.run_id, j.runs[0], JSON.stringify(j));
  const [ra, rb] = await Promise.all(j.runs.map(async (id) => (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json));
  assert.equal(ra.target, dirA);
  assert.equal(rb.target, dirB);
  for (const [k, r] of [ra, rb].entries()) {
    assert.equal(r.state, 'done');
    assert.equal(r.job_id, j.id, JSON.stringify(r.spec));
    assert.deepEqual(r.spec.interleave, { job: j.id, targets: [dirA, dirB], position: k, rounds: 4 });
    assert.deepEqual(r.tests[0].iterations.map((it) => it.iteration), [1, 2, 3, 4], 'one iteration per round');
  }
  // every round made its file and removed it: nothing is left behind
  assert.deepEqual(fs.readdirSync(dirA), []);
  assert.deepEqual(fs.readdirSync(dirB), []);
  const c = (await api(d.url, 'GET', `/api/v1/compare?runs=${j.runs.join(',')}`)).json;
  const vs = iopsOf(c).vs_baseline[1];
  assert.equal(vs.test, 'paired');
  assert.deepEqual(vs.n, [4, 4]);
  assert.equal(vs.df, 3);
  assert.match(vs.how, /paired t-test over 4 interleaved rounds/);
  assert.ok(['significant', 'within noise'].includes(vs.verdict));
  // the verdict and the band agree: significant exactly when outside it
  assert.equal(vs.verdict === 'significant', Math.abs(vs.delta_pct) > vs.noise_band_pct);
  assert.ok(vs.ci_pct[0] < vs.delta_pct && vs.delta_pct < vs.ci_pct[1]);
  assert.ok(Math.abs((vs.ci_pct[1] - vs.ci_pct[0]) / 2 - vs.noise_band_pct) < 1e-6);
  assert.match(c.verdicts[0].text, /^run \d+ vs run \d+: /);
  assert.deepEqual(c.warnings, []);
});

test('an interleaved job measures each window in 1 s slices the sides take in turn, A B B A A B', async () => {
  const s = stream(d.url);
  await s.opened;
  const SEQ = { name: 'SEQ128K Q2T1', pattern: 'sequential', block_size: '128KiB', queue_depth: 2, threads: 1 };
  let j;
  try {
    j = await run(job({ target: dirD, compare_with: [dirE], iterations: 2, duration_s: 3.5, tests: [...RND, SEQ] }));
  } finally {
    s.close();
  }
  const [a, b] = j.runs;
  // the job's progress never goes back as the sides take turns
  const fractions = s.events.filter((e) => e.name === 'progress' && e.data.job_id === j.id).map((e) => e.data.fraction);
  assert.ok(fractions.length >= 10, `${fractions.length} progress events`);
  for (let i = 1; i < fractions.length; i++) assert.ok(fractions[i] >= fractions[i - 1] - 1e-9, `progress ${fractions.slice(Math.max(0, i - 3), i + 1)}`);
  const samples = s.events.filter((e) => e.name === 'sample' && e.data.job_id === j.id).map((e) => e.data);
  for (const round of [1, 2]) {
    for (const t of ['RND4K Q1T1', 'SEQ128K Q2T1']) {
      const order = samples.filter((x) => x.iteration === round && x.test === t).map((x) => x.run_id);
      // the sides' turns, a run of the same side counted once: 3 slices
      // each, A | B B | A A | B  (or B first) is 4 turns; one window per
      // side, as before slices, would be 2
      const turns = order.filter((id, i) => i === 0 || id !== order[i - 1]);
      assert.equal(turns.length, 4, `round ${round} ${t}: ${order}`);
      assert.deepEqual(turns.slice(0, 2).sort(), [a, b].sort());
      assert.deepEqual(turns.slice(2), turns.slice(0, 2));
    }
  }
  for (const id of j.runs) {
    const run = (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
    const smp = (await api(d.url, 'GET', `/api/v1/runs/${id}/samples`)).json.samples;
    for (const t of run.tests) {
      for (const it of t.iterations) {
        const mine = smp.filter((x) => x.test === t.test && x.iteration === it.iteration);
        // slices of 1 s, 1 s and 1.5 s: each slice a second of its own,
        // the last one and its half second
        assert.ok(mine.length >= 3 && mine.length <= 4, `${t.test} ${it.iteration}: ${mine.length} seconds`);
        const length = mine.reduce((sum, x) => sum + x.length_s, 0);
        assert.ok(Math.abs(length - it.seconds) < 1e-6, `${length} s of samples, ${it.seconds} s of window`);
        assert.ok(it.seconds >= 3.5 && it.seconds < 4.5, `${it.seconds} s`);
        const ios = mine.reduce((sum, x) => sum + (x.read.iops + x.write.iops) * x.length_s, 0);
        assert.ok(Math.abs(ios - it.ios) <= 1e-6 * it.ios + 1, `${ios} I/Os in the samples, ${it.ios} in the result`);
      }
    }
  }
});

test('compare_with is refused where it cannot work, naming the field', async () => {
  const cases = [
    [{ ...job({ target: dirA }), compare_with: [] }, 400, 'compare_with'],
    [{ ...job({ target: dirA }), compare_with: [5] }, 400, 'compare_with[0]'],
    [{ ...job({ target: dirA }), compare_with: [dirB, '/etc'] }, 403, 'compare_with[1]'],
    [{ ...job({ target: dirA }), compare_with: [path.join(root, 'missing')] }, 400, 'compare_with[0]'],
    [{ target: dirA, profile: 'file-create', compare_with: [dirB] }, 400, 'compare_with'],
    [{ ...job({ target: dirA }), compare_with: Array(8).fill(dirB) }, 400, 'compare_with'],
    [{ ...job({ target: dirA, iterations: 1 }), compare_with: [dirB] }, 400, 'iterations'],
  ];
  for (const [body, status, field] of cases) {
    const r = await api(d.url, 'POST', '/api/v1/jobs', body);
    assert.equal(r.status, status, `${JSON.stringify(body.compare_with)}: ${r.text}`);
    assert.match(r.headers.get('content-type'), /application\/problem\+json/);
    assert.equal(r.json.field, field, r.text);
  }
  assert.deepEqual(fs.readdirSync(dirB), [], 'nothing written');
  // without iterations, an interleaved job has 10 rounds
  const r = await api(d.url, 'POST', '/api/v1/jobs', { ...job({ target: dirA }), compare_with: [dirB] });
  assert.equal(r.status, 202, r.text);
  assert.equal(r.json.iterations, 10);
  assert.equal((await api(d.url, 'DELETE', `/api/v1/jobs/${r.json.id}`)).status, 202);
  assert.equal((await waitJob(d.url, r.json.id)).state, 'cancelled');
  // a plain test is interleaved whatever its name (only a test with a
  // precondition or a steady state is refused)
  const named = await api(d.url, 'POST', '/api/v1/jobs', { ...job({ target: dirA,
    tests: [{ name: 'steady_state', block_size: '4KiB' }, { name: 'precondition', block_size: '4KiB', read_pct: 0 }] }), compare_with: [dirB] });
  assert.equal(named.status, 202, named.text);
  assert.equal((await api(d.url, 'DELETE', `/api/v1/jobs/${named.json.id}`)).status, 202);
  assert.equal((await waitJob(d.url, named.json.id)).state, 'cancelled');
});

test('one run a side cannot tell without a noise estimate; an A/A series in the archive lets it', async () => {
  const one = await run(job({ target: dirC, iterations: 3 }));
  const other = await run(job({ target: dirB, iterations: 3 }));
  let c = (await api(d.url, 'GET', `/api/v1/compare?runs=${one.run_id},${other.run_id}`)).json;
  let vs = iopsOf(c).vs_baseline[1];
  assert.equal(vs.verdict, 'cannot tell');
  assert.equal(vs.test, null);
  assert.equal(vs.p, null);
  assert.match(vs.how, /one more run of each side/);
  assert.match(c.verdicts[0].text, /cannot tell on 1 test: one run per side and no run-to-run noise estimate/);
  // two more runs of c: three runs of one target, settings alike
  const more = [await run(job({ target: dirC, iterations: 3 })), await run(job({ target: dirC, iterations: 3 }))];
  c = (await api(d.url, 'GET', `/api/v1/compare?runs=${one.run_id},${more[0].run_id}`)).json;
  vs = iopsOf(c).vs_baseline[1];
  assert.equal(vs.test, 'noise');
  assert.equal(vs.noise.runs, 3);
  assert.equal(vs.noise.df, 2);
  assert.ok(vs.noise.run_sd_pct >= 0);
  assert.equal(vs.verdict === 'significant', Math.abs(vs.delta_pct) > vs.noise_band_pct);
  // the three runs of c pooled against b's two (the interleaved job's and
  // one of its own): Welch's test over runs
  c = (await api(d.url, 'GET', `/api/v1/compare?group_by=target&values=${dirC},${dirB}&profile=custom`)).json;
  vs = iopsOf(c).vs_baseline[1];
  assert.deepEqual(vs.n, [3, 2], JSON.stringify(c.sides));
  assert.equal(vs.test, 'runs');
  assert.match(vs.how, /Welch's t-test over runs \(3 vs 2\)/);
});

test('sides that differ in something not asked for are warned of, with both values', async () => {
  const buffered = await run(job({ target: dirB, iterations: 2, direct: false }));
  const direct = await run(job({ target: dirB, iterations: 2 }));
  const c = (await api(d.url, 'GET', `/api/v1/compare?runs=${direct.run_id},${buffered.run_id}`)).json;
  const w = c.warnings.find((x) => /direct or buffered I\/O/.test(x));
  assert.ok(w, c.warnings.join('\n'));
  assert.match(w, new RegExp(`run ${direct.run_id}: "direct" \\(run ${direct.run_id}\\)`));
  assert.match(w, new RegExp(`run ${buffered.run_id}: "buffered" \\(run ${buffered.run_id}\\)`));
  assert.match(w, /group_by=direct/);
  // the buffered run has no series of its own: the direct runs' noise is
  // not lent to it
  assert.equal(iopsOf(c).vs_baseline[1].verdict, 'cannot tell', JSON.stringify(iopsOf(c).vs_baseline[1]));
  // another back-end is a condition, not another workload: judged, and warned of
  const psync = await run(job({ target: dirB, iterations: 2, engine: 'psync' }));
  const e = (await api(d.url, 'GET', `/api/v1/compare?runs=${direct.run_id},${psync.run_id}`)).json;
  assert.deepEqual(e.tests.map((t) => t.not_like_for_like[1]), e.tests.map(() => null));
  assert.ok(e.warnings.some((x) => /back-end or tool/.test(x) && /"psync"/.test(x) && /"io_uring"/.test(x)), e.warnings.join('\n'));
  // grouped by it, the sides are what was asked for: no warning about it
  const g = (await api(d.url, 'GET', `/api/v1/compare?group_by=direct&values=direct,buffered&target=${dirB}`)).json;
  assert.deepEqual(g.sides.map((s) => s.label), ['direct', 'buffered']);
  assert.ok(!g.warnings.some((x) => /direct or buffered/.test(x)), g.warnings.join('\n'));
  const bad = await api(d.url, 'GET', '/api/v1/compare?group_by=colour');
  assert.equal(bad.status, 400);
  assert.equal(bad.json.field, 'group_by');
  assert.match(bad.json.detail, /write_cache, direct, size, engine, version/);
});

test('an imported DiskSpd run against a native run: p99 on both sides, none made up', async () => {
  // DiskSpd -w50 -b4K -r -o32 -F2 -L on an HDD (2.0.x text): its read
  // test's p99 is the "99th" row's Read column, 1150.540 ms
  const F2 = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import', 'diskspd',
    'diskspd-2.0.x-text-F2-mix50-cp1251-wrapped-cmdline.txt');
  const octets = { headers: { 'Content-Type': 'application/octet-stream' } };
  const imp = await api(d.url, 'POST', '/api/v1/import', fs.readFileSync(F2), octets);
  assert.equal(imp.status, 201, imp.text);
  // the same shape here: storbench runs a mix as one test ("mix"), the
  // import one per direction, so its read share meets a read test of that
  // shape, named as the import names it
  const native = await run(job({ target: dirA, iterations: 2,
    tests: [{ name: 'RND4K Q32T2 W50', pattern: 'random', block_size: '4KiB', queue_depth: 32, threads: 2, read_pct: 100 }] }));
  const nat = (await api(d.url, 'GET', `/api/v1/runs/${native.run_id}`)).json;
  const measured = nat.tests[0].iterations.map((it) => it.latency_us.p99);
  assert.equal(measured.length, 2);
  assert.ok(measured.every((v) => v > 0), JSON.stringify(measured));
  const p99Of = (c, rw) => c.tests.find((t) => t.test === 'RND4K Q32T2 W50' && t.rw === rw)
    .metrics.find((m) => m.metric === 'lat_p99_us');
  const c = (await api(d.url, 'GET', `/api/v1/compare?runs=${imp.json.id},${native.run_id}`)).json;
  const p99 = p99Of(c, 'read');
  assert.deepEqual(p99.sides[0], { n: 1, mean: 1150540, sd: null }, 'the file\'s p99, one value');
  assert.equal(p99.sides[1].n, 2);
  assert.ok(Math.abs(p99.sides[1].mean - (measured[0] + measured[1]) / 2) < 1e-6 * p99.sides[1].mean, 'the native iterations\' p99');
  assert.deepEqual(c.tests.find((t) => t.rw === 'read').not_like_for_like, [null, null]);
  // the import's write test has no native counterpart: listed, nothing on that side
  assert.deepEqual(p99Of(c, 'write').sides, [{ n: 1, mean: 1010959, sd: null }, null]);
  // the same file without its -L table: no p99 on that side, not one made
  // from the mean
  const text = fs.readFileSync(F2).toString('latin1');
  const bare = text.slice(0, text.indexOf('  %-ile')) + text.slice(text.indexOf('\n', text.indexOf('    max |')) + 1);
  assert.ok(bare.length < text.length && !bare.includes('3-nines'));
  const noL = await api(d.url, 'POST', '/api/v1/import', Buffer.from(bare, 'latin1'), octets);
  assert.equal(noL.status, 201, noL.text);
  const c2 = (await api(d.url, 'GET', `/api/v1/compare?runs=${noL.json.id},${native.run_id}`)).json;
  assert.equal(p99Of(c2, 'read').sides[0], null);
  assert.equal(p99Of(c2, 'read').sides[1].n, 2);
  const mean = c2.tests.find((t) => t.rw === 'read').metrics.find((m) => m.metric === 'lat_mean_us');
  assert.deepEqual(mean.sides[0], { n: 1, mean: 363914, sd: null }, 'the mean stays');
});

test('what changed: two runs on one ext4 that differ in one mount option list that option, and nothing else', async (t) => {
  const lf = loopFs(root, 'ext4', '256M');
  if (lf.skip) {
    console.log(`# skipped: ${lf.skip}`);
    t.skip(lf.skip);
    return;
  }
  try {
    const one = { profile: 'custom', size: '8MiB', duration_s: 1, iterations: 1,
      tests: [{ name: 'RND4K Q1T1', pattern: 'random', block_size: '4KiB', queue_depth: 1, threads: 1 }] };
    const a = await run({ ...one, target: lf.mnt });
    execFileSync('mount', ['-o', 'remount,noatime', lf.mnt]);
    const b = await run({ ...one, target: lf.mnt });
    const c = await run({ ...one, target: lf.mnt });
    const [ra, rb] = await Promise.all([a, b].map(async (j) => (await api(d.url, 'GET', `/api/v1/runs/${j.run_id}`)).json));
    const opts = (r) => r.probe.mount_options.split(',');
    assert.ok(opts(ra).includes('relatime') && !opts(ra).includes('noatime'), ra.probe.mount_options);
    assert.ok(opts(rb).includes('noatime') && !opts(rb).includes('relatime'), rb.probe.mount_options);
    // the probe's other fields are the same machine's, device's and filesystem's
    assert.equal(ra.probe.kernel, rb.probe.kernel);
    assert.equal(ra.probe.scheduler, rb.probe.scheduler);
    const ab = (await api(d.url, 'GET', `/api/v1/compare?runs=${a.run_id},${b.run_id}`)).json;
    assert.deepEqual(ab.changed, [{ field: 'probe.mount_options', label: 'mount options',
      values: [ra.probe.mount_options, rb.probe.mount_options] }], JSON.stringify(ab.changed));
    // the same mount, the same options: nothing changed
    const bc = (await api(d.url, 'GET', `/api/v1/compare?runs=${b.run_id},${c.run_id}`)).json;
    assert.deepEqual(bc.changed, []);
    // a side pooling runs that disagree: both values, sorted
    const pooled = (await api(d.url, 'PATCH', `/api/v1/runs/${a.run_id}`, { labels: ['pool'] })).status;
    assert.equal(pooled, 200);
    assert.equal((await api(d.url, 'PATCH', `/api/v1/runs/${b.run_id}`, { labels: ['pool'] })).status, 200);
    assert.equal((await api(d.url, 'PATCH', `/api/v1/runs/${c.run_id}`, { labels: ['alone'] })).status, 200);
    const pc = (await api(d.url, 'GET', '/api/v1/compare?group_by=label&values=pool,alone')).json;
    assert.deepEqual(pc.changed, [{ field: 'probe.mount_options', label: 'mount options',
      values: [[ra.probe.mount_options, rb.probe.mount_options].sort().join(', '), rb.probe.mount_options] }]);
  } finally {
    lf.cleanup();
  }
});
