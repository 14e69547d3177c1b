// The presets end to end through the API: the CrystalDiskMark sets, sweeps
// with scaling efficiency, seq-sweep, mailbox-db with PASS/FAIL, and
// file-create on loop-mounted ext4, xfs and btrfs made here (root and loop
// devices needed for those; without them the tests say why they skip).
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test presets.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, api, waitJob } from '../lib/daemon.mjs';
import { loopFs } from '../lib/loopfs.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'presets-'));
const target = path.join(root, 'target');
fs.mkdirSync(target);
const mounts = {};
for (const type of ['ext4', 'xfs', 'btrfs']) mounts[type] = loopFs(root, type, '4G');
const d = await startDaemon({ bin, dataDir: path.join(root, 'data'), allow: [root], quiet: true });
after(async () => {
  await d.stop().catch(() => {});
  for (const m of Object.values(mounts)) m.cleanup?.();
  fs.rmSync(root, { recursive: true, force: true });
});

async function runJob(body, timeoutMs = 120000) {
  const r = await api(d.url, 'POST', '/api/v1/jobs', body);
  assert.equal(r.status, 202, r.text);
  const job = await waitJob(d.url, r.json.id, timeoutMs);
  assert.equal(job.state, 'done', `${body.profile}: ${job.error}`);
  return (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
}

const order = (run) => run.tests.map((t) => `${t.test} ${t.rw}`);
// a loop-mounted filesystem when the machine gives us one, else the plain target
const on = (type) => mounts[type].mnt ?? target;

test('the CrystalDiskMark presets run their tests in CrystalDiskMark order', async () => {
  const small = { target: on('xfs'), size: '32MiB', iterations: 1, duration_s: 0.5 };
  assert.deepEqual(order(await runJob({ ...small, profile: 'cdm-peak' })),
    ['SEQ1M Q8T1 read', 'RND4K Q32T16 read', 'SEQ1M Q8T1 write', 'RND4K Q32T16 write']);
  assert.deepEqual(order(await runJob({ ...small, profile: 'cdm-realworld' })),
    ['SEQ1M Q1T1 read', 'RND4K Q1T1 read', 'SEQ1M Q1T1 write', 'RND4K Q1T1 write']);
  const cdm3 = await runJob({ ...small, profile: 'cdm3' });
  assert.deepEqual(order(cdm3), ['Seq read', 'Seq write', '512K read', '512K write', '4K read', '4K write',
    '4K QD32 read', '4K QD32 write']);
  assert.equal(cdm3.tests.find((t) => t.test === '512K').block_size, 524288);
  if (mounts.xfs.mnt) assert.equal(cdm3.probe.fs_type, 'xfs');
  // CrystalDiskMark 8's NVMe SSD set, as a job from curl would ask for it
  const nvme = await runJob({ ...small, profile: 'cdm-nvme' });
  assert.deepEqual(order(nvme), ['SEQ1M Q8T1 read', 'SEQ128K Q32T1 read', 'RND4K Q32T16 read', 'RND4K Q1T1 read',
    'SEQ1M Q8T1 write', 'SEQ128K Q32T1 write', 'RND4K Q32T16 write', 'RND4K Q1T1 write']);
  const seq128 = nvme.tests.find((t) => t.test === 'SEQ128K Q32T1' && t.rw === 'read');
  assert.deepEqual([seq128.pattern, seq128.block_size, seq128.queue_depth, seq128.threads], ['sequential', 131072, 32, 1]);
  const rnd = nvme.tests.find((t) => t.test === 'RND4K Q32T16' && t.rw === 'write');
  assert.deepEqual([rnd.pattern, rnd.block_size, rnd.queue_depth, rnd.threads], ['random', 4096, 32, 16]);
  for (const t of nvme.tests) assert.ok(t.best.iops > 0 && t.best.mb_s > 0, `${t.test} ${t.rw} measured`);
  const peak = (await api(d.url, 'GET', '/api/v1/profiles')).json.profiles.map((p) => p.name);
  for (const n of ['cdm-default', 'cdm-peak', 'cdm-realworld', 'cdm3', 'seq-sweep', 'mailbox-db', 'file-create', 'custom', 'cdm-nvme', 'snia-iops'])
    assert.ok(peak.includes(n), `profile ${n} listed`);
});

test('a thread sweep is one run with a point per value and its scaling efficiency', async () => {
  const run = await runJob({
    target: on('btrfs'), profile: 'custom', size: '64MiB', iterations: 1, duration_s: 0.5,
    tests: [{ name: 'scale', pattern: 'random', block_size: '4KiB', queue_depth: 4, threads: [1, 2, 4] }],
  });
  assert.deepEqual(run.tests.map((t) => t.test), ['scale T1', 'scale T2', 'scale T4']);
  assert.deepEqual(run.tests.map((t) => [t.sweep.group, t.sweep.field, t.sweep.value, t.threads]),
    [['scale', 'threads', 1, 1], ['scale', 'threads', 2, 2], ['scale', 'threads', 4, 4]]);
  assert.equal(run.tests[0].sweep.efficiency, 1);
  for (const t of run.tests) {
    const iops = t.best.iops, base = run.tests[0].best.iops;
    assert.ok(Math.abs(t.sweep.efficiency - (iops / base) / (t.threads / 1)) < 1e-9, `${t.test}: efficiency from IOPS`);
  }
  assert.deepEqual(run.spec.tests.map((t) => t.sweep?.value), [1, 2, 4]);
});

test('seq-sweep: MB/s against block size, read then write', async () => {
  const run = await runJob({
    target: on('ext4'), profile: 'seq-sweep', size: '64MiB', iterations: 1, duration_s: 0.5,
    options: { block_sizes: ['4KiB', '64KiB', '1MiB'], queue_depth: 4 },
  });
  assert.deepEqual(order(run), ['SEQ Q4T1 4K read', 'SEQ Q4T1 64K read', 'SEQ Q4T1 1M read',
    'SEQ Q4T1 4K write', 'SEQ Q4T1 64K write', 'SEQ Q4T1 1M write']);
  assert.deepEqual(run.spec.options, { block_sizes: [4096, 65536, 1048576], queue_depth: 4, threads: 1 });
  const read = run.tests.filter((t) => t.rw === 'read');
  assert.ok(read[2].best.mb_s > read[0].best.mb_s, `1 MiB reads (${read[2].best.mb_s} MB/s) beat 4 KiB (${read[0].best.mb_s})`);
  const bad = await api(d.url, 'POST', '/api/v1/jobs', { target, profile: 'seq-sweep', options: { block_sizes: ['4KiB', 1000] } });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.field, 'options.block_sizes[1]');
});

// SNIA PTS steady state: the range and the least-squares slope over the
// window, worked out here from the rounds the API stores as iterations
function judge(values) {
  const n = values.length, mean = values.reduce((a, b) => a + b, 0) / n;
  const xbar = (n - 1) / 2;
  let sxy = 0, sxx = 0;
  values.forEach((y, x) => { sxy += (x - xbar) * (y - mean); sxx += (x - xbar) ** 2; });
  const slope = sxy / sxx, range = Math.max(...values) - Math.min(...values);
  return { mean, range, range_pct: 100 * range / mean, slope, excursion_pct: 100 * Math.abs(slope) * (n - 1) / mean };
}
const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

function checkSteady(t) {
  const ss = t.steady_state, m = ss.measurement;
  assert.equal(t.iterations.length, ss.rounds, 'one iteration per round');
  assert.equal(m.last, ss.rounds, 'the window is the last rounds');
  assert.equal(m.last - m.first + 1, ss.window);
  const win = t.iterations.slice(m.first - 1, m.last);
  const j = judge(win.map((i) => i.iops));
  for (const k of ['mean', 'range', 'range_pct', 'slope', 'excursion_pct']) near(m[k], j[k], k);
  near(ss.result.iops, j.mean, 'the result is the window average');
  near(ss.result.mb_s, win.reduce((a, i) => a + i.mb_s, 0) / win.length, 'window MB/s');
  assert.equal(ss.reached, j.range_pct <= ss.range_pct && j.excursion_pct <= ss.slope_pct, 'reached follows from the limits');
  return win;
}

test('steady state: rounds until the window settles, or a warning when it cannot', async () => {
  const base = { target, profile: 'custom', size: '16MiB', engine: 'null' };
  // the null engine is CPU-bound, so its rounds carry the machine's scheduling
  // noise (CI saw a 42 % range over five 0.25 s rounds on a loaded machine):
  // the limits are wide enough to be met there; the judgement's arithmetic is
  // checked exactly by checkSteady either way
  const ok = await runJob({ ...base, tests: [{ block_size: '4KiB', queue_depth: 4,
    steady_state: { round_s: 0.25, max_rounds: 30, range_pct: 80, slope_pct: 40 } }] });
  const t = ok.tests[0];
  assert.equal(t.steady_state.reached, true, JSON.stringify(t.steady_state));
  assert.equal(t.steady_state.reached_round, t.steady_state.rounds);
  checkSteady(t);
  // limits of 0 cannot be met: every one of max_rounds runs, and the run says so
  const no = await runJob({ ...base, tests: [{ block_size: '4KiB', queue_depth: 4,
    steady_state: { round_s: 0.1, max_rounds: 6, range_pct: 0 } }] });
  const u = no.tests[0];
  assert.equal(u.steady_state.reached, false);
  assert.equal(u.steady_state.reached_round, null);
  assert.equal(u.steady_state.rounds, 6);
  const win = checkSteady(u);
  assert.ok(no.warnings.some((w) => /not steady after 6 rounds: over rounds 2–6, the IOPS range is .* \(limit 0 %\)/.test(w)), no.warnings.join('\n'));
  // the window's average is the test's result everywhere: its best, the list's
  // headline, /metrics and the CrystalDiskMark text (which says the rounds)
  const avg = win.reduce((a, i) => a + i.iops, 0) / win.length;
  near(u.best.iops, avg, 'best is the window average');
  assert.deepEqual([u.best.window, u.best.rounds], [{ first: 2, last: 6 }, 6]);
  const list = (await api(d.url, 'GET', `/api/v1/runs?profile=custom&limit=100`)).json.runs;
  const head = list.find((r) => r.id === no.id).headline[0];
  near(head.iops, avg, 'headline from the window');
  const prom = (await api(d.url, 'GET', '/metrics')).text;
  const line = prom.split('\n').find((l) => l.startsWith('storbench_last_run_iops{') && l.includes(`test="${u.test}"`));
  assert.ok(line && Math.abs(Number(line.split(' ').pop()) - avg) <= 1e-6 * avg, `metrics: ${line} vs ${avg}`);
  const cdm = (await api(d.url, 'GET', `/api/v1/runs/${no.id}?format=cdm`)).text;
  assert.match(cdm, /Test: 16 MiB \(x6\) \[steady state/, cdm);
  assert.match(cdm, new RegExp(`Steady: ${u.test} ${u.rw}: rounds 2-6 of 6 averaged, not steady`), cdm);
  assert.match(cdm, new RegExp(`\\[\\s*${avg.toFixed(1)} IOPS\\]`), cdm);
  // a run document carries it to another archive (here: the same one, the run deleted first)
  const doc = (await api(d.url, 'GET', `/api/v1/runs/${no.id}?format=storbench`)).text;
  assert.equal((await api(d.url, 'DELETE', `/api/v1/runs/${no.id}`)).status, 204);
  const imp = await fetch(`${d.url}/api/v1/import?format=storbench`, { method: 'POST', body: doc });
  assert.equal(imp.status, 201, await imp.clone().text());
  const back = (await api(d.url, 'GET', `/api/v1/runs/${(await imp.json()).runs[0].id}`)).json;
  assert.deepEqual(back.tests[0].steady_state, u.steady_state);
  // refusals name the field
  const bad = await api(d.url, 'POST', '/api/v1/jobs', { ...base, tests: [{ steady_state: { window: 9, max_rounds: 4 } }] });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.field, 'tests[0].steady_state');
  const bad2 = await api(d.url, 'POST', '/api/v1/jobs', { ...base, steady_state: { metric: 'bogus' } });
  assert.equal(bad2.json.field, 'steady_state.metric');
  const bad3 = await api(d.url, 'POST', '/api/v1/jobs', { ...base, compare_with: [target], tests: [{ precondition: 'fill' }] });
  assert.equal(bad3.json.field, 'compare_with', bad3.text);
  const bad4 = await api(d.url, 'POST', '/api/v1/jobs', { ...base, tests: [{ duration_s: 1, steady_state: {} }] });
  assert.equal(bad4.json.field, 'tests[0].duration_s', bad4.text);
});

test('steady state and precondition: refused where the profile does not take them, never dropped', async () => {
  const refusals = [
    [{ profile: 'snia-iops', steady_state: { round_s: 1 } }, 'steady_state', /options\.steady_state/],
    [{ profile: 'snia-iops', precondition: 'none' }, 'precondition', /options\.steady_state/],
    [{ profile: 'snia-iops', iterations: 3 }, 'iterations', /options\.steady_state/],
    [{ profile: 'snia-iops', duration_s: 2 }, 'duration_s', /options\.steady_state/],
    [{ profile: 'mailbox-db', steady_state: {}, options: { database_paths: [target], log_paths: [target] } }, 'steady_state', /custom/],
    [{ profile: 'file-create', precondition: 'fill' }, 'precondition', /custom/],
    // every test runs rounds until steady: iterations would mean nothing
    [{ profile: 'custom', iterations: 3, steady_state: { round_s: 0.1 }, tests: [{ block_size: '4KiB' }] }, 'iterations', /max_rounds/],
    // an explicit null turns steady state off for the test: workload precondition needs it
    [{ profile: 'custom', tests: [{ precondition: 'workload', steady_state: null }] }, 'tests[0].precondition', /null/],
    // the field the user sent is named, not one the job implied
    [{ profile: 'custom', tests: [{ precondition: 'workload', io_size: '1MiB' }] }, 'tests[0].precondition', /io_size/],
    [{ profile: 'custom', steady_state: {}, tests: [{ io_size: '1MiB' }] }, 'tests[0].io_size', /time-based/],
    // merged members are checked together: the job's window 5 against the test's max_rounds 4
    [{ profile: 'custom', steady_state: { round_s: 0.5 }, tests: [{ steady_state: { max_rounds: 4 } }] }, 'tests[0].steady_state', /window \(5 rounds\)/],
  ];
  // a test's steady_state members over the job's; null: none for that test
  const merged = await api(d.url, 'POST', '/api/v1/jobs', { target, size: '16MiB', engine: 'null', profile: 'custom',
    iterations: 1,
    steady_state: { round_s: 0.05, window: 3 }, tests: [{ name: 'a', steady_state: { max_rounds: 4 } }, { name: 'b', steady_state: null, duration_s: 0.5 }] });
  assert.equal(merged.status, 202, merged.text);
  const mj = await waitJob(d.url, merged.json.id);
  const mr = (await api(d.url, 'GET', `/api/v1/runs/${mj.run_id}`)).json;
  assert.deepEqual([mr.spec.tests[0].steady_state.round_s, mr.spec.tests[0].steady_state.window, mr.spec.tests[0].steady_state.max_rounds], [0.05, 3, 4]);
  assert.equal(mr.spec.tests[1].steady_state, undefined);
  assert.ok(mr.tests[0].steady_state.rounds >= 3 && mr.tests[0].steady_state.rounds <= 4);
  assert.equal(mr.tests[1].steady_state, undefined);
  for (const [body, field, detail] of refusals) {
    const r = await api(d.url, 'POST', '/api/v1/jobs', { target, size: '16MiB', ...body });
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.match(r.headers.get('content-type'), /application\/problem\+json/);
    assert.equal(r.json.field, field, r.text);
    assert.match(r.json.detail, detail, r.text);
  }
});

test('a cancelled steady-state test keeps its record: the rounds done, judged, and why it stopped', async () => {
  const r = await api(d.url, 'POST', '/api/v1/jobs', { target, profile: 'custom', size: '16MiB', engine: 'null',
    tests: [{ block_size: '4KiB', queue_depth: 4, steady_state: { round_s: 0.1, window: 3, max_rounds: 50, range_pct: 0 } }] });
  assert.equal(r.status, 202, r.text);
  const t0 = Date.now();
  let seen;
  for (;;) {
    const j = (await api(d.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json;
    if (j.progress?.iteration) seen = j.progress;
    if ((j.progress?.iteration ?? 0) >= 5 || Date.now() - t0 > 20000) break;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  assert.equal((await api(d.url, 'DELETE', `/api/v1/jobs/${r.json.id}`)).status, 202);
  const job = await waitJob(d.url, r.json.id);
  assert.equal(job.state, 'cancelled');
  // the progress counts rounds against max_rounds, not the job's iterations
  assert.equal(seen?.iterations, 50, JSON.stringify(seen));
  const run = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
  const t = run.tests[0], ss = t.steady_state;
  assert.ok(ss, 'the steady-state record is kept');
  assert.equal(ss.reached, false);
  assert.ok(ss.rounds >= 3 && ss.rounds < 50, `rounds ${ss.rounds}`);
  checkSteady(t);
  assert.ok(run.warnings.some((w) => /cancelled before steady state; not steady after \d+ rounds/.test(w)), run.warnings.join('\n'));
});

test('precondition fill: twice the test file in sequential 128 KiB writes before the test', async () => {
  const run = await runJob({ target, profile: 'custom', size: '16MiB', iterations: 2, duration_s: 0.5,
    precondition: 'fill', tests: [{ block_size: '4KiB', queue_depth: 8, read_pct: 0 }] });
  const pre = run.tests[0].precondition;
  assert.equal(pre.kind, 'fill');
  assert.equal(pre.bytes, 2 * 16 * 2 ** 20);
  near(pre.mb_s, pre.bytes / 1e6 / pre.seconds, 'fill MB/s from its bytes and time');
  assert.equal(run.tests[0].steady_state, undefined);
  assert.equal(run.tests[0].iterations.length, 2);
});

test('snia-iops: purge, fill, matrix rounds until 4 KiB writes are steady, the PTS table from the window', async () => {
  const run = await runJob({ target, profile: 'snia-iops', size: '16MiB', engine: 'null',
    options: { profile: 'pts-c', steady_state: { round_s: 0.02, window: 2, max_rounds: 3 } } });
  assert.equal(run.tests.length, 56);
  const track = run.tests.find((t) => t.steady_state?.tracking);
  assert.equal(track.test, 'RND4K 0/100');
  assert.deepEqual([track.queue_depth, track.threads], [16, 2]);
  const { first, last } = track.steady_state.measurement;
  assert.equal(last, track.steady_state.rounds);
  assert.equal(track.precondition.kind, 'fill');
  assert.equal(track.precondition.bytes, 2 * 16 * 2 ** 20);
  assert.equal(track.precondition.purge, 'a file: none');
  assert.ok(run.warnings.some((w) => /a file cannot be purged/.test(w)), run.warnings.join('\n'));
  // rounds of 0.02 s: too short to say a core was saturated (a few ticks)
  assert.deepEqual(run.warnings.filter((w) => /a CPU core was at least/.test(w)), [], 'no core warning on rounds of 0.02 s');
  // each kind of cell warning once per run, not once per cell and round
  // (with certainty in the test below)
  const cellWarn = run.warnings.filter((w) => /^RND\S+ \d+\/\d+ \w+: /.test(w));
  const kinds = cellWarn.map((w) => w.replace(/^RND\S+ \d+\/\d+ \w+: /, '').replace(/[\d.]+/g, '#').slice(0, 40));
  assert.equal(new Set(kinds).size, kinds.length, cellWarn.join('\n'));
  const kib = [1024, 128, 64, 32, 16, 8, 4, 0.5], mixes = [100, 95, 65, 50, 35, 5, 0];
  assert.deepEqual(run.snia_iops.map((r) => r.block_kib), kib);
  for (const row of run.snia_iops)
    for (const m of mixes) {
      const t = run.tests.find((x) => x.test === `RND${row.block_kib}K ${m}/${100 - m}`);
      assert.equal(t.iterations.length, track.steady_state.rounds, `${t.test}: one iteration per round`);
      const win = t.iterations.slice(first - 1, last).map((i) => i.iops);
      near(row[`r${m}`], win.reduce((a, b) => a + b, 0) / win.length, `${t.test}: the window's mean IOPS`);
    }
});

// A daemon on one CPU: pts-e's 4 engine threads take turns on it, so in
// a round of 0.02 s they cannot all keep their 32 I/Os in flight from the
// window's start to its end, and IOPS × mean latency falls short of the
// 128 slots by far more than 10 % (0.6–0.85 of them in every round seen):
// the Little's-law warning is certain, where on free CPUs it depends on
// how the threads happen to be scheduled.
test('snia-iops: a cell warning once per run, for the first cell it applied to, and the note saying so', async () => {
  const cpu = /^Cpus_allowed_list:\s*(\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1];
  const one = await startDaemon({ bin, dataDir: path.join(root, 'data-1cpu'), allow: [root], quiet: true,
    wrap: ['taskset', '--cpu-list', cpu] });
  try {
    const r = await api(one.url, 'POST', '/api/v1/jobs', { target, profile: 'snia-iops', size: '16MiB', engine: 'null',
      options: { steady_state: { round_s: 0.02, window: 2, max_rounds: 2 } } });
    assert.equal(r.status, 202, r.text);
    const job = await waitJob(one.url, r.json.id, 120000);
    assert.equal(job.state, 'done', job.error);
    const run = (await api(one.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
    const all = run.warnings.join('\n');
    const cellWarn = run.warnings.filter((w) => /^RND\S+ \d+\/\d+ \w+: /.test(w));
    const little = cellWarn.filter((w) => /: IOPS × mean latency is \d+, not the 128 I\/Os/.test(w));
    assert.equal(little.length, 1, `one Little's-law warning for the whole run:\n${all}`);
    // given for the first cell, in the order they ran (round by round),
    // whose figures are more than 10 % off
    const rounds = Math.max(...run.tests.map((t) => t.iterations.length));
    let first;
    for (let k = 0; k < rounds && !first; k++)
      first = run.tests.find((t) => t.iterations[k]?.ios &&
        Math.abs(t.iterations[k].iops * t.iterations[k].lat_mean_us / 1e6 / (t.queue_depth * t.threads) - 1) > 0.1);
    assert.ok(first, 'a cell off by more than 10 %');
    assert.ok(little[0].startsWith(`${first.test} ${first.rw}: `), `${first.test} ${first.rw}:\n${all}`);
    // each kind once; the note once, after the first cell warning
    const kinds = cellWarn.map((w) => w.replace(/^RND\S+ \d+\/\d+ \w+: /, '').replace(/[\d.]+/g, '#').slice(0, 40));
    assert.equal(new Set(kinds).size, kinds.length, all);
    const notes = run.warnings.filter((w) => w === 'snia-iops: each kind of warning on a cell is given once per run, for ' +
      'the first cell it applied to; later cells may have it too (their figures are on the run)');
    assert.equal(notes.length, 1, all);
    assert.ok(run.warnings.indexOf(notes[0]) > run.warnings.indexOf(cellWarn[0]), all);
    // it names the round's real window: at least its 0.02 s (a thread that
    // passes the deadline late makes it longer), not "0.0 s"
    const m = / the ([\d.]+) s window is short/.exec(little[0]);
    assert.ok(m && Number(m[1]) >= 0.02 && Number(m[1]) < 0.2, little[0]);
  } finally {
    await one.stop();
  }
});

test('mailbox-db: database and log streams over a thread sweep, PASS with the defaults, FAIL with 1 µs', async (t) => {
  const m = mounts.ext4;
  if (m.skip) { t.skip(`ext4 loop filesystem: ${m.skip}`); return; }
  const dbDir = path.join(m.mnt, 'db');
  const logDir = path.join(m.mnt, 'log');
  fs.mkdirSync(dbDir);
  fs.mkdirSync(logDir);
  const body = {
    profile: 'mailbox-db', iterations: 1, duration_s: 2, labels: ['mailbox'],
    options: { database_paths: [dbDir], log_paths: [logDir], database_size: '128MiB', log_size: '16MiB', threads: [2, 4] },
  };
  const run = await runJob(body);
  assert.equal(run.target, dbDir);
  assert.deepEqual(run.tests.map((x) => `${x.test} ${x.rw}`), [
    'Mailbox T2 db read', 'Mailbox T2 db write', 'Mailbox T2 log write',
    'Mailbox T4 db read', 'Mailbox T4 db write', 'Mailbox T4 log write']);
  assert.equal(run.mailbox.length, 2);
  for (const p of run.mailbox) {
    assert.equal(p.verdict, 'PASS', `T${p.threads}: ${p.reasons.join('; ')}`);
    assert.ok(p.transactional_iops > 0 && p.db_read_mean_ms > 0 && p.log_write_mean_ms > 0 && p.log_mb_s > 0);
    // about 60 % of database I/Os are reads
    const share = p.db_read_iops / p.transactional_iops;
    assert.ok(share > 0.5 && share < 0.7, `read share ${share}`);
    // QD 1 per thread: the database streams keep `threads` I/Os in flight
    const busy = (p.db_read_iops * p.db_read_mean_ms + p.db_write_iops * p.db_write_mean_ms) / 1e3;
    assert.ok(Math.abs(busy - p.threads) < 0.15 * p.threads, `T${p.threads}: IOPS × latency ${busy}`);
  }
  assert.equal(run.mailbox[0].efficiency, 1);
  const failing = await runJob({ ...body, iterations: 2, duration_s: 1, options: { ...body.options, threads: [2], thresholds: { db_read_mean_ms: 0.001 } } });
  assert.equal(failing.mailbox[0].verdict, 'FAIL');
  // two iterations: one test per direction holding both, and the verdict row over both
  assert.deepEqual(failing.tests.map((x) => [x.rw, x.iterations.length]), [['db read', 2], ['db write', 2], ['log write', 2]]);
  const [rd, wr] = failing.tests;
  const secs = rd.iterations.reduce((a, it) => a + it.seconds, 0);
  const ios = [...rd.iterations, ...wr.iterations].reduce((a, it) => a + it.ios, 0);
  assert.ok(Math.abs(failing.mailbox[0].transactional_iops - ios / secs) < 1e-6 * ios, 'transactional IOPS over both iterations');
  assert.equal(failing.tests[2].threads, 1, 'one log stream');
  assert.match(failing.mailbox[0].reasons.join(' '), /database read mean latency .* over the 0\.001 ms threshold/);
  assert.deepEqual(fs.readdirSync(dbDir), [], 'database files removed');
  assert.deepEqual(fs.readdirSync(logDir), [], 'log files removed');
});

// file-create on each filesystem: seconds per method for a 1 GiB file
const fileCreate = {};
for (const type of ['ext4', 'xfs', 'btrfs']) {
  test(`file-create on ${type}: every method timed or reported unsupported`, async (t) => {
    const m = mounts[type];
    if (m.skip) { t.skip(`${type} loop filesystem: ${m.skip}`); return; }
    const run = await runJob({ target: m.mnt, profile: 'file-create', iterations: 1, options: { sizes: ['1GiB'] } }, 300000);
    const by = Object.fromEntries(run.tests.map((x) => [x.rw, x]));
    assert.deepEqual(Object.keys(by).sort(), ['clone', 'copy_file_range', 'fallocate', 'read/write', 'sparse', 'zeros']);
    for (const x of run.tests) {
      const it = x.iterations[0];
      if (it.error) assert.match(it.error, /^unsupported: /, `${type} ${x.rw}`);
      else assert.ok(it.seconds > 0 && it.bytes === 2 ** 30, `${type} ${x.rw}: ${it.seconds} s`);
    }
    // sparse is reported as such: the size set, next to nothing allocated
    assert.ok(by.sparse.iterations[0].allocated_bytes < 2 ** 20, `${type} sparse allocated ${by.sparse.iterations[0].allocated_bytes}`);
    assert.ok(by.zeros.iterations[0].allocated_bytes >= 2 ** 30, `${type} zeros allocated`);
    fileCreate[type] = Object.fromEntries(run.tests.map((x) => [x.rw, x.iterations[0].error ? null : x.iterations[0].seconds]));
    console.log(`# ${type}: ${JSON.stringify(fileCreate[type])}`);
    if (type !== 'btrfs')
      assert.ok(fileCreate[type].fallocate < fileCreate[type].zeros, `${type}: fallocate faster than writing zeros`);
    if (type !== 'ext4') {
      assert.ok(fileCreate[type].clone !== null, `${type} clones (reflink)`);
      assert.ok(fileCreate[type].clone < fileCreate[type]['read/write'], `${type}: clone faster than read/write`);
    }
    assert.deepEqual(fs.readdirSync(m.mnt).filter((f) => f.startsWith('storbench-')), [], 'no file left');
  });
}

// Host and device counters beside every second (issue 21), on a filesystem
// on a loop device (the device under it: the loop device itself).
const ctrRuns = async (body) => {
  const run = await runJob({ profile: 'custom', iterations: 1, ...body });
  const smp = (await api(d.url, 'GET', `/api/v1/runs/${run.id}/samples`)).json.samples;
  return { run, smp };
};
const sum = (xs, f) => xs.reduce((s, x) => s + f(x), 0);

test('counters: the loop device moved the bytes the engine did (direct I/O), CPU and memory plausible', async (t) => {
  if (!mounts.ext4.mnt) return t.skip(mounts.ext4.skip);
  const dev = path.basename(mounts.ext4.dev);
  const { run, smp } = await ctrRuns({
    target: on('ext4'), size: '256MiB', duration_s: 1.5,
    tests: [{ name: 'SEQ1M Q4T1', pattern: 'sequential', block_size: '1MiB', queue_depth: 4, read_pct: 0 },
      { name: 'RND64K Q8T1', pattern: 'random', block_size: '64KiB', queue_depth: 8, read_pct: 100 }],
  });
  for (const [test, dir] of [['SEQ1M Q4T1', 'write'], ['RND64K Q8T1', 'read']]) {
    const s = smp.filter((x) => x.test === test);
    assert.ok(s.length >= 2, `${test}: ${s.length} seconds`);
    for (const x of s) {
      assert.equal(x.device?.name, dev, `${test} second ${x.t_s}: the loop device`);
      for (const k of ['cpu_user_pct', 'cpu_system_pct', 'cpu_iowait_pct', 'cpu_irq_pct', 'cpu_steal_pct', 'cpu_busy_pct', 'core_busy_pct'])
        assert.ok(x.host[k] >= 0 && x.host[k] <= 100, `${test} ${k} ${x.host[k]}`);
      assert.ok(x.host.cpu_busy_pct > 0, `${test}: the CPU did something`);
      for (const k of ['mem_used_bytes', 'mem_cache_bytes']) assert.ok(x.host[k] > 0, `${test} ${k}`);
      assert.ok(x.device.util_pct >= 0 && x.device.util_pct <= 100);
    }
    const engine = sum(s, (x) => x[dir].mb_s * x.length_s);
    const device = sum(s, (x) => x.device[`${dir}_bytes`]) / 1e6;
    const tst = run.tests.find((x) => x.test === test);
    console.log(`${test} ${dir}: engine ${engine.toFixed(1)} MB, device ${device.toFixed(1)} MB over ${s.length} s;` +
      ` result ${tst.best.mb_s.toFixed(1)} MB/s`);
    assert.ok(Math.abs(device / engine - 1) <= 0.05, `${test}: device ${device} MB within 5 % of the engine's ${engine} MB`);
  }
  // the run's own document carries them (export → another archive)
  const doc = (await api(d.url, 'GET', `/api/v1/runs/${run.id}?format=storbench`)).json;
  assert.deepEqual(doc.samples.map((x) => x.device), smp.map((x) => x.device));
  assert.deepEqual(doc.samples.map((x) => x.host), smp.map((x) => x.host));
  // (a loop device's own thread may well saturate a core: not asserted)
  assert.deepEqual(run.warnings.filter((w) => /the device \S+ (read|wrote)|dirty/.test(w)), [], 'no rate or dirty warning on a direct run');
});

test('counters: each warning from a test that provokes it', async (t) => {
  if (!mounts.ext4.mnt) return t.skip(mounts.ext4.skip);
  // buffered reads of a file in the page cache: the engine far ahead of the device
  const cached = await ctrRuns({
    target: on('ext4'), size: '64MiB', duration_s: 1, direct: false,
    tests: [{ name: 'RND4K Q1T1', pattern: 'random', block_size: '4KiB', queue_depth: 1, read_pct: 100 },
      { name: 'RND4K short', pattern: 'random', block_size: '4KiB', queue_depth: 1, read_pct: 100, duration_s: 0.5 }],
  });
  const w1 = cached.run.warnings.find((w) => /^RND4K Q1T1 read: the engine read/.test(w));
  assert.ok(w1, `cache warning in ${JSON.stringify(cached.run.warnings)}`);
  assert.match(w1, /device loop\d+ read [\d.]+ MB\/s .*served by a cache/);
  // the same in 0.5 s: less than a second of device counters is not judged
  assert.deepEqual(cached.run.warnings.filter((w) => /^RND4K short/.test(w)), []);
  // the null engine: CPU-bound, no device. A thread per CPU (up to 8): one
  // thread alone may wander between cores, half a second on each, and
  // saturate none of them (seen on this 2-CPU machine beside other load)
  const cpus = Math.min(os.cpus().length, 8);
  const cpu = await ctrRuns({
    target: on('ext4'), size: '16MiB', duration_s: 2.2, engine: 'null',
    tests: [{ name: 'NULL CPU', pattern: 'random', block_size: '4KiB', queue_depth: 1, threads: cpus, read_pct: 100 }],
  });
  assert.ok(cpu.smp.every((x) => x.device === null && x.host), 'the null engine has no device');
  assert.ok(cpu.run.warnings.some((w) => /^NULL CPU read: a CPU core was at least 95 % busy in \d+ of \d+ seconds .*the CPU, not the device, may be the limit/.test(w)),
    JSON.stringify(cpu.run.warnings));
  // buffered writes: dirty memory climbing
  const dirty = await ctrRuns({
    target: on('ext4'), size: '512MiB', duration_s: 1, direct: false,
    tests: [{ name: 'SEQ1M Q1T1', pattern: 'sequential', block_size: '1MiB', queue_depth: 1, read_pct: 0 }],
  });
  assert.ok(dirty.run.warnings.some((w) => /^SEQ1M Q1T1 write: buffered writes grew dirty and write-back memory by \d+ MB .*write-back into memory, not the device/.test(w)),
    JSON.stringify(dirty.run.warnings));
});

// Copy-on-write (issue 31): random writes to a btrfs file that copies on
// write are warned of, with what fragments and how to turn it off; the
// probe says "cow" or "nocow" in fs_features. Not warned of: sequential
// reads on the same btrfs, a file made in a NOCOW directory (chattr +C:
// the file inherits it), random writes on ext4.
test('copy-on-write: a random write on btrfs warns; sequential reads, a NOCOW directory and ext4 do not', async (t) => {
  const m = mounts.btrfs;
  if (m.skip) return t.skip(`btrfs loop filesystem: ${m.skip}`);
  const rnd = [{ name: 'RND4K Q1T1', pattern: 'random', block_size: '4KiB', queue_depth: 1, threads: 1, read_pct: 0 }];
  const job = (dir, tests) => runJob({ target: dir, profile: 'custom', size: '32MiB', iterations: 1, duration_s: 1, tests });
  const cowWarnings = (run) => run.warnings.filter((w) => /copy-on-write/.test(w));

  const cow = await job(m.mnt, rnd);
  const w = cowWarnings(cow);
  console.log(`# btrfs, RND4K Q1T1 write: ${JSON.stringify(w)}`);
  assert.equal(w.length, 1, JSON.stringify(cow.warnings));
  assert.match(w[0], /^RND4K Q1T1 write: random writes to a copy-on-write test file \(btrfs, no NOCOW attribute\)/);
  assert.match(w[0], /the file fragments/);
  assert.match(w[0], /chattr \+C DIR` on the target directory before the job/);
  assert.match(w[0], /-o nodatacow/);
  assert.equal(cow.probe.fs_type, 'btrfs');
  assert.equal(cow.probe.fs_features, 'cow');

  // (a) sequential reads of a copy-on-write file: nothing fragments
  const seq = await job(m.mnt, [{ name: 'SEQ1M Q8T1', pattern: 'sequential', block_size: '1MiB', queue_depth: 8, read_pct: 100 }]);
  assert.deepEqual(cowWarnings(seq), [], JSON.stringify(seq.warnings));
  assert.equal(seq.probe.fs_features, 'cow');

  // (b) the test file made in a NOCOW directory inherits NOCOW
  const nocow = path.join(m.mnt, 'nocow');
  fs.mkdirSync(nocow);
  execFileSync('chattr', ['+C', nocow]);
  const off = await job(nocow, rnd);
  assert.deepEqual(cowWarnings(off), [], JSON.stringify(off.warnings));
  assert.equal(off.probe.fs_features, 'nocow');
  // compare groups by it
  const cmp = await api(d.url, 'GET', '/api/v1/compare?group_by=cow&values=cow,nocow&profile=custom');
  assert.equal(cmp.status, 200, cmp.text);
  assert.deepEqual(cmp.json.sides.map((x) => x.label), ['cow', 'nocow']);
  assert.ok(cmp.json.sides[0].runs.some((r) => r.id === cow.id) && !cmp.json.sides[0].runs.some((r) => r.id === off.id));
  assert.ok(cmp.json.sides[1].runs.some((r) => r.id === off.id));

  // ext4 writes in place: no warning, and fs_features is absent
  if (mounts.ext4.mnt) {
    const ext4 = await job(mounts.ext4.mnt, rnd);
    assert.deepEqual(cowWarnings(ext4), [], JSON.stringify(ext4.warnings));
    assert.equal(ext4.probe.fs_features, undefined);
  }
});
