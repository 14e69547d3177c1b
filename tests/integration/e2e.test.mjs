// End to end: the real storbench daemon, a real directory on a real
// filesystem, real io_uring I/O, a real SQLite archive that survives a restart.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node tests/integration/e2e.test.mjs
//
// The target directory lives under STORBENCH_OUT (the build folder), never on
// tmpfs, so O_DIRECT is exercised.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDaemon, api, waitJob } from '../lib/daemon.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'e2e-'));
const dataDir = path.join(root, 'data');
const target = path.join(root, 'target');
fs.mkdirSync(target);
const aFile = path.join(root, 'a-file.txt');
fs.writeFileSync(aFile, 'not a directory');

let d = await startDaemon({ bin, dataDir, allow: [root], quiet: true });
after(async () => {
  await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

const SMALL = { target, profile: 'cdm-default', size: '64MiB', iterations: 1, duration_s: 1 };
const CDM_ORDER = [
  ['SEQ1M Q8T1', 'read'], ['SEQ1M Q1T1', 'read'], ['RND4K Q32T1', 'read'], ['RND4K Q1T1', 'read'],
  ['SEQ1M Q8T1', 'write'], ['SEQ1M Q1T1', 'write'], ['RND4K Q32T1', 'write'], ['RND4K Q1T1', 'write'],
];

async function waitRunning(id, phase = 'measuring', timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await api(d.url, 'GET', `/api/v1/jobs/${id}`);
    if (r.json?.state === 'running' && r.json.progress?.phase === phase) return r.json;
    assert.ok(['queued', 'running'].includes(r.json?.state), `job ${id} ended early: ${r.text}`);
    await sleep(50);
  }
  throw new Error(`job ${id} never reached ${phase}`);
}

const leftovers = () => fs.readdirSync(target).filter((f) => f.startsWith('storbench-'));

let runId;

test('a small cdm-default job runs the 8 tests and archives plausible numbers', async () => {
  const r = await api(d.url, 'POST', '/api/v1/jobs', { ...SMALL, labels: ['e2e'], notes: 'integration' });
  assert.equal(r.status, 202, r.text);
  assert.equal(r.headers.get('location'), `/api/v1/jobs/${r.json.id}`);
  assert.equal(r.json.size, 64 * 1024 * 1024);
  assert.equal(r.json.target, fs.realpathSync(target));
  const job = await waitJob(d.url, r.json.id, 120000);
  assert.equal(job.state, 'done', JSON.stringify(job));
  assert.equal(job.error, null);
  runId = job.run_id;

  const run = (await api(d.url, 'GET', `/api/v1/runs/${runId}`)).json;
  assert.equal(run.state, 'done');
  assert.deepEqual(run.labels, ['e2e']);
  assert.equal(run.notes, 'integration');
  assert.equal(run.engine.target, 'io_uring');
  assert.equal(run.engine.direct, true, 'O_DIRECT on a real filesystem');
  assert.equal(run.units.mb_s, '10^6 B/s');
  assert.equal(run.units.lat_mean_us, 'µs');
  assert.deepEqual(run.tests.map((t) => [t.test, t.rw]), CDM_ORDER);
  for (const t of run.tests) {
    assert.equal(t.iterations.length, 1);
    const b = t.best;
    for (const k of ['mb_s', 'mib_s', 'iops', 'lat_mean_us', 'bytes', 'ios', 'seconds']) {
      assert.ok(b[k] > 0, `${t.test} ${t.rw} ${k} = ${b[k]}`);
    }
    const expect = (b.iops * t.block_size) / 1e6;
    assert.ok(Math.abs(b.mb_s - expect) <= 0.01 * expect, `${t.test} ${t.rw}: MB/s ${b.mb_s} vs IOPS×bs ${expect}`);
    assert.equal(b.bytes, b.ios * t.block_size);
    // the latency distribution: ordered percentiles around the exact mean
    const L = b.latency_us;
    const order = [L.min, L.p50, L.p90, L.p99, L['p99.9'], L['p99.99'], L.max];
    for (let i = 1; i < order.length; i++) assert.ok(order[i] >= order[i - 1], `${t.test} ${t.rw} percentiles ${JSON.stringify(L)}`);
    assert.ok(L.min > 0 && L.min <= b.lat_mean_us && b.lat_mean_us <= L.max, `${t.test} ${t.rw} mean in [min, max]`);
    assert.ok(L.stdev >= 0);
    // the process's CPU time over the window: some, and no more than 2 cores' worth
    assert.ok(b.cpu_user_s >= 0 && b.cpu_sys_s >= 0 && b.cpu_user_s + b.cpu_sys_s > 0, `${t.test} ${t.rw} cpu`);
    assert.ok(b.cpu_user_s + b.cpu_sys_s <= 2 * b.seconds * os.cpus().length, `${t.test} ${t.rw} cpu ≤ window × cores`);
    assert.ok(b.seconds >= 0.99 && b.seconds < 3, `window ${b.seconds} s`);
    // Little's law: every slot is always inside some I/O's latency, so
    // IOPS × mean latency = QD × threads (a little less at the window's end)
    const qd = (b.iops * b.lat_mean_us) / 1e6;
    assert.ok(Math.abs(qd - t.queue_depth * t.threads) <= 0.1 * t.queue_depth * t.threads,
      `${t.test} ${t.rw}: IOPS×lat = ${qd}, QD×T ${t.queue_depth * t.threads}`);
  }
  // per-second samples: the same I/Os as the iteration, second by second
  const smp = (await api(d.url, 'GET', `/api/v1/runs/${runId}/samples`)).json;
  assert.equal(smp.run_id, runId);
  for (const t of run.tests) {
    const mine = smp.samples.filter((s) => s.test === t.test && s.rw === t.rw && s.iteration === 1);
    const b = t.best;
    // one sample per started second, a ragged end under 0.25 s folded into the one before
    const frac = b.seconds - Math.floor(b.seconds);
    const want = b.seconds > 1 && frac > 0 && frac < 0.25 ? Math.floor(b.seconds) : Math.ceil(b.seconds - 1e-9);
    assert.equal(mine.length, want, `${t.test} ${t.rw}: ${mine.length} samples for ${b.seconds} s`);
    const last = mine[mine.length - 1];
    assert.ok(mine.length === 1 || (last.length_s >= 0.25 && last.length_s < 1.25 + 1e-9), `last sample ${last.length_s} s`);
    const ios = mine.reduce((n, s) => n + (s.read.iops + s.write.iops) * s.length_s, 0);
    assert.ok(Math.abs(ios - b.ios) <= 1e-6 * b.ios, `${t.test} ${t.rw}: Σ samples ${ios} vs ${b.ios} I/Os`);
    const other = t.rw === 'read' ? 'write' : 'read';
    assert.ok(mine.every((s) => s[other].iops === 0 && s[other].lat_mean_us === null));
  }
  assert.equal((await api(d.url, 'GET', '/api/v1/runs/999999/samples')).status, 404);
  // findmnt reads the same mount table; where it cannot tell (a chroot whose
  // root is not a mount point), the probe must not invent a name either
  let fsType = null;
  try {
    fsType = execFileSync('findmnt', ['-n', '-o', 'FSTYPE', '-T', target], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch { /* no mount holds target in this mount namespace */ }
  assert.equal(run.probe.fs_type, fsType);
  assert.ok(run.probe.free_bytes > 0);
  assert.equal(run.probe.hostname.length > 0, true);
  assert.deepEqual(leftovers(), [], 'test file removed after the run');
});

test('custom jobs: every back-end, buffered I/O, fdatasync, size-based; the run says what ran', async () => {
  const body = {
    target, profile: 'custom', size: '32MiB', iterations: 2, duration_s: 0.5, engine: 'psync', direct: false,
    tests: [
      { name: 'mix', read_pct: 70, block_size: '8KiB', queue_depth: 4, threads: 2 },
      { name: 'log', pattern: 'sequential', read_pct: 0, block_size: 8192, sync: 'fdatasync', sync_every: 8, io_size: '2MiB' },
    ],
  };
  const r = await api(d.url, 'POST', '/api/v1/jobs', body);
  assert.equal(r.status, 202, r.text);
  assert.equal(r.json.engine, 'psync');
  assert.equal(r.json.direct, false);
  const job = await waitJob(d.url, r.json.id, 60000);
  assert.equal(job.state, 'done', job.error);
  const run = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
  assert.equal(run.profile, 'custom');
  assert.deepEqual(run.engine, { version: run.engine.version, target: 'psync', direct: false });
  assert.equal(run.spec.tests.length, 2);
  assert.ok(!run.warnings.some((w) => /refused direct/.test(w)), 'buffered by request is not a refusal');
  const [mix, log] = run.tests;
  assert.deepEqual([mix.test, mix.rw, mix.threads, log.test, log.rw], ['mix', 'mix', 2, 'log', 'write']);
  for (const it of mix.iterations) {
    const qd = (it.iops * it.lat_mean_us) / 1e6;
    assert.ok(Math.abs(qd - 8) <= 0.8, `psync mix: IOPS×lat ${qd} vs QD×T 8`);
  }
  // size-based: exactly 2 MiB per iteration, whatever the time
  assert.deepEqual(log.iterations.map((it) => [it.bytes, it.ios]), [[2097152, 256], [2097152, 256]]);
  assert.equal(log.latency_us.ios, 512, 'the merged histogram holds both iterations');
  assert.ok(log.latency_us.p50 <= log.latency_us.p99 && log.latency_us.p99 <= log.latency_us.max);

  // the null back-end: the engine's own cost, far beyond any disk
  const n = await api(d.url, 'POST', '/api/v1/jobs', {
    target, profile: 'custom', size: '8MiB', iterations: 1, duration_s: 0.5, engine: 'null',
    tests: [{ queue_depth: 32 }],
  });
  assert.equal(n.status, 202, n.text);
  const nj = await waitJob(d.url, n.json.id, 30000);
  assert.equal(nj.state, 'done', nj.error);
  const nr = (await api(d.url, 'GET', `/api/v1/runs/${nj.run_id}`)).json;
  assert.equal(nr.engine.target, 'null');
  assert.ok(nr.tests[0].best.iops > 1e6, `null back-end: ${nr.tests[0].best.iops} IOPS`);

  // a ramp is I/O but not measurement: neither its I/Os nor its CPU time count
  // (one null-engine thread keeps a CPU busy: ~1 CPU-second per second)
  const rj = await api(d.url, 'POST', '/api/v1/jobs', {
    target, profile: 'custom', size: '8MiB', iterations: 1, duration_s: 0.5, ramp_s: 1.5, engine: 'null',
    tests: [{ queue_depth: 1 }],
  });
  assert.equal(rj.status, 202, rj.text);
  const rdone = await waitJob(d.url, rj.json.id, 30000);
  assert.equal(rdone.state, 'done', rdone.error);
  const rb = (await api(d.url, 'GET', `/api/v1/runs/${rdone.run_id}`)).json.tests[0].best;
  const cpu = rb.cpu_user_s + rb.cpu_sys_s;
  assert.ok(rb.seconds >= 0.5 && rb.seconds < 0.7, `window ${rb.seconds} s`);
  assert.ok(cpu > 0.25 * rb.seconds && cpu < 1.4 * rb.seconds, `CPU ${cpu} s over a ${rb.seconds} s window after a 1.5 s ramp`);
  assert.deepEqual(leftovers(), [], 'no test file left');
});

test('bad requests get a problem+json naming the problem, and the daemon stays up', async () => {
  const jobsBefore = (await api(d.url, 'GET', '/api/v1/jobs')).json.jobs.length;
  const cases = [
    ['custom without tests', { profile: 'custom' }, 400, 'tests', /tests array/],
    ['a test field out of range', { profile: 'custom', tests: [{}, { queue_depth: 0 }] }, 400, 'tests[1].queue_depth', /1 to 1024/],
    ['unknown engine', { engine: 'libaio' }, 400, 'engine', /psync/],
    ['malformed JSON', '{"target": ', 400, null, /malformed JSON/],
    ['empty body', '', 400, null, /empty/],
    ['unknown field', { colour: 'red' }, 400, 'colour', /unknown field/],
    ['unknown profile', { profile: 'nope' }, 400, 'profile', /unknown profile/],
    ['target does not exist', { target: path.join(root, 'missing') }, 400, 'target', /does not exist/],
    ['target is a file', { target: aFile }, 400, 'target', /not a directory/],
    ['size abc', { size: 'abc' }, 400, 'size', /not a size/],
    ['size 0', { size: 0 }, 400, 'size', /> 0/],
    ['negative iterations', { iterations: -1 }, 400, 'iterations', /1 to 100/],
    ['10 MB body', JSON.stringify({ notes: 'x'.repeat(10 * 1000 * 1000) }), 413, 'body', /larger than/],
  ];
  for (const [name, body, status, field, detail] of cases) {
    const r = await api(d.url, 'POST', '/api/v1/jobs', body);
    assert.equal(r.status, status, `${name}: ${r.text.slice(0, 200)}`);
    assert.match(r.headers.get('content-type'), /^application\/problem\+json/, name);
    assert.equal(r.json.status, status, name);
    assert.ok(r.json.title, name);
    if (field) assert.equal(r.json.field, field, `${name}: ${r.text}`);
    assert.match(r.json.detail, detail, name);
    assert.equal((await api(d.url, 'GET', '/healthz')).status, 200, `daemon up after ${name}`);
  }
  const jobs = (await api(d.url, 'GET', '/api/v1/jobs')).json.jobs;
  assert.equal(jobs.length, jobsBefore, 'no refused request queued a job');

  assert.equal((await api(d.url, 'GET', '/api/v1/nope')).status, 404);
  const put = await api(d.url, 'PUT', '/api/v1/jobs');
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'POST, GET, HEAD');
  // a NUL in the path must not cut it short: /api/v1/jobs/1%00x is not job 1
  assert.equal((await api(d.url, 'GET', '/api/v1/jobs/1%00abc')).status, 404);
  assert.equal((await api(d.url, 'GET', '/healthz%00x')).status, 404);
  // a path that is not UTF-8 is still a 404 problem, not a 500
  for (const p of ['/api/v1/jobs/%ff', '/static/%c3', '/%ed%a0%80']) {
    const r = await api(d.url, 'GET', p);
    assert.equal(r.status, 404, p);
    assert.match(r.headers.get('content-type'), /problem\+json/, p);
  }
  assert.equal((await api(d.url, 'GET', '/api/v1/runs?limit=%201')).status, 400);
  assert.equal((await api(d.url, 'GET', '/api/v1/jobs/999999')).status, 404);
  assert.equal((await api(d.url, 'GET', '/api/v1/runs/999999')).status, 404);
  assert.equal((await api(d.url, 'GET', '/api/v1/runs?limit=0')).status, 400);
});

test('profiles, health and the dashboard are served', async () => {
  const p = (await api(d.url, 'GET', '/api/v1/profiles')).json.profiles;
  const cdm = p.find((x) => x.name === 'cdm-default');
  assert.deepEqual(cdm.tests.map((t) => [t.test, t.rw]), CDM_ORDER);
  assert.equal(cdm.defaults.size, 1024 ** 3);
  const h = (await api(d.url, 'GET', '/healthz')).json;
  assert.equal(h.status, 'ok');
  const page = await fetch(d.url + '/');
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /text\/html/);
  const html = await page.text();
  assert.doesNotMatch(html, /https?:\/\/(?!127\.0\.0\.1|localhost)/, 'no external URL in the page');
});

test('cancelling: a queued job at once, a running one promptly, an ended one is 409', async () => {
  const a = (await api(d.url, 'POST', '/api/v1/jobs', { ...SMALL, duration_s: 30 })).json;
  const b = (await api(d.url, 'POST', '/api/v1/jobs', SMALL)).json;
  await waitRunning(a.id);
  assert.equal((await api(d.url, 'GET', `/api/v1/jobs/${b.id}`)).json.state, 'queued', 'one job at a time');
  const cb = await api(d.url, 'DELETE', `/api/v1/jobs/${b.id}`);
  assert.equal(cb.status, 202);
  assert.equal(cb.json.state, 'cancelled');
  assert.equal(cb.json.error, 'cancelled by request');

  const t0 = Date.now();
  assert.equal((await api(d.url, 'DELETE', `/api/v1/jobs/${a.id}`)).status, 202);
  const ja = await waitJob(d.url, a.id, 10000, 20);
  const took = Date.now() - t0;
  assert.equal(ja.state, 'cancelled');
  assert.ok(took < 3000, `cancel took ${took} ms`);
  assert.deepEqual(leftovers(), [], 'test file removed after cancel');
  assert.equal((await api(d.url, 'DELETE', `/api/v1/jobs/${a.id}`)).status, 409);
  assert.equal((await api(d.url, 'DELETE', `/api/v1/jobs/${b.id}`)).status, 409);
});

test('a second daemon on the same data directory refuses to start and leaves the running job alone', async () => {
  const j = (await api(d.url, 'POST', '/api/v1/jobs', { ...SMALL, duration_s: 30 })).json;
  await waitRunning(j.id);
  // removing the pid file (a "stale lock" to some) must not let a second one in
  fs.rmSync(path.join(dataDir, 'storbench.pid'));
  const r = spawnSync(bin, ['serve', '--listen', '127.0.0.1:0', '--data', dataDir], { timeout: 10000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr.toString(), /another storbench \(pid (\d+|\?)\) is serving/);
  const job = (await api(d.url, 'GET', `/api/v1/jobs/${j.id}`)).json;
  assert.equal(job.state, 'running', 'the first daemon still runs its job');
  assert.equal(leftovers().length, 1, 'its test file is still there');
  assert.equal((await api(d.url, 'DELETE', `/api/v1/jobs/${j.id}`)).status, 202);
  assert.equal((await waitJob(d.url, j.id, 10000, 50)).state, 'cancelled');
});

test('a bad --listen is refused before anything starts', () => {
  for (const listen of ['127.0.0.1:99999', '127.0.0.1:', 'localhost:8080', '127.0.0.1']) {
    const r = spawnSync(bin, ['serve', '--listen', listen, '--data', path.join(root, 'unused')], { timeout: 10000 });
    assert.equal(r.status, 1, listen);
    assert.match(r.stderr.toString(), /cannot listen/, listen);
  }
});

test('SIGTERM stops a running test, removes its file; after a restart the job is interrupted and the archive kept', async () => {
  const j = (await api(d.url, 'POST', '/api/v1/jobs', { ...SMALL, duration_s: 30 })).json;
  await waitRunning(j.id);
  const t0 = Date.now();
  const exit = await d.stop(5000);
  assert.equal(exit.code, 0, `exit ${JSON.stringify(exit)}`);
  assert.ok(Date.now() - t0 < 5000, `stopped in ${Date.now() - t0} ms`);
  assert.deepEqual(leftovers(), [], 'test file removed on SIGTERM');

  d = await startDaemon({ bin, dataDir, allow: [root], quiet: true });
  const job = (await api(d.url, 'GET', `/api/v1/jobs/${j.id}`)).json;
  assert.equal(job.state, 'interrupted');
  const run = (await api(d.url, 'GET', `/api/v1/runs/${runId}`));
  assert.equal(run.status, 200);
  assert.equal(run.json.tests.length, 8, 'the first run survived the restart');
  const runs = (await api(d.url, 'GET', '/api/v1/runs')).json;
  assert.ok(runs.total >= 2);
  const mine = runs.runs.find((x) => x.id === runId);
  assert.equal(mine.headline.length, 8);
});

test('SIGHUP (a closed terminal) stops as cleanly as SIGTERM', async () => {
  const j = (await api(d.url, 'POST', '/api/v1/jobs', { ...SMALL, duration_s: 30 })).json;
  await waitRunning(j.id);
  const exited = new Promise((resolve) => d.proc.once('exit', (code, signal) => resolve({ code, signal })));
  d.proc.kill('SIGHUP');
  assert.deepEqual(await exited, { code: 0, signal: null });
  assert.deepEqual(leftovers(), [], 'test file removed on SIGHUP');
  d = await startDaemon({ bin, dataDir, allow: [root], quiet: true });
  assert.equal((await api(d.url, 'GET', `/api/v1/jobs/${j.id}`)).json.state, 'interrupted');
});

test('a crash (SIGKILL) mid-run: on restart the job is interrupted and its test file is removed', async () => {
  const j = (await api(d.url, 'POST', '/api/v1/jobs', { ...SMALL, duration_s: 30 })).json;
  await waitRunning(j.id);
  assert.equal(leftovers().length, 1, 'the test file exists while measuring');
  d.proc.kill('SIGKILL');
  await d.stop().catch(() => {});
  assert.equal(leftovers().length, 1, 'a crash leaves the file');
  d = await startDaemon({ bin, dataDir, allow: [root], quiet: true });
  assert.equal((await api(d.url, 'GET', `/api/v1/jobs/${j.id}`)).json.state, 'interrupted');
  assert.deepEqual(leftovers(), [], 'the restarted daemon removed the file the archive remembered');
});
