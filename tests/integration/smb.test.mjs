// SMB shares end to end through the API, against a real smbd started here
// (tests/lib/smbd.mjs): stored credentials that never come back out,
// cdm-default on a share with the dialect recorded (and checked against
// what the server itself reports with smbstatus), the protocol knobs, the
// errors for a wrong password and a missing share, an interleaved job of
// two directories of a share, the wire baseline (an iperf3 server started
// here: TCP throughput both ways, each result's efficiency against it),
// and the server killed mid-run. Needs root and Debian's samba (and
// iperf3 for the baseline); says why it skips otherwise.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test smb.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, spawnSync } from 'node:child_process';
import { startDaemon, api, waitJob, freePort } from '../lib/daemon.mjs';
import { startSmbd, smbdUnavailable, SMB_USER, SMB_PASSWORD } from '../lib/smbd.mjs';
import { openapiValidator } from '../lib/openapi.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const why = smbdUnavailable();
if (why) console.log(`skip SMB integration tests: ${why}`);
const root = fs.mkdtempSync(path.join(path.resolve(out), 'smb-'));
const smb = why ? null : await startSmbd({ root, shares: { bench: '' } });
const d = await startDaemon({
  bin, dataDir: path.join(root, 'data'), quiet: true,
  allow: smb ? [smb.share('bench'), smb.share('nosuchshare')] : [],
});
after(async () => {
  await d.stop().catch(() => {});
  await smb?.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

const opts = { skip: why ?? false };

/** The dialects and signing degrees smbd reports for its sessions now. */
function serverSessions() {
  return Object.values(smb.status().sessions ?? {}).map((s) => ({
    id: s.session_id, dialect: s.session_dialect, signing: s.signing?.degree,
    encryption: s.encryption?.degree,
  }));
}

test('credentials are stored by name and their password never comes back', opts, async () => {
  let r = await api(d.url, 'POST', '/api/v1/credentials',
    { name: 'filer', user: SMB_USER, password: SMB_PASSWORD, domain: 'WORKGROUP' });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.name, 'filer');
  assert.equal(r.json.user, SMB_USER);
  assert.ok(!r.text.includes(SMB_PASSWORD));
  r = await api(d.url, 'POST', '/api/v1/credentials', { name: 'wrong', user: SMB_USER, password: 'not-it' });
  assert.equal(r.status, 201, r.text);
  r = await api(d.url, 'POST', '/api/v1/credentials', { name: 'filer', user: 'x', password: 'y' });
  assert.equal(r.status, 409);
  assert.equal(r.json.field, 'name');
  r = await api(d.url, 'POST', '/api/v1/credentials', { name: 'a b', user: 'x', password: 'y' });
  assert.equal(r.status, 400);
  assert.equal(r.json.field, 'name');
  r = await api(d.url, 'POST', '/api/v1/credentials', { name: 'n', password: 'y' });
  assert.equal(r.status, 400);
  assert.equal(r.json.field, 'user');
  r = await api(d.url, 'GET', '/api/v1/credentials');
  assert.deepEqual(r.json.credentials.map((c) => c.name), ['filer', 'wrong']);
  assert.ok(!r.text.includes(SMB_PASSWORD) && !r.text.includes('not-it'));
  assert.ok(r.json.credentials.every((c) => !('password' in c)));
  // a replaced password is the one used; a deleted credential is gone
  r = await api(d.url, 'PUT', '/api/v1/credentials/tmp', { user: 'u', password: 'p1' });
  assert.equal(r.status, 201);
  r = await api(d.url, 'PUT', '/api/v1/credentials/tmp', { user: 'u', password: 'p2' });
  assert.equal(r.status, 200);
  assert.equal((await api(d.url, 'DELETE', '/api/v1/credentials/tmp')).status, 204);
  assert.equal((await api(d.url, 'GET', '/api/v1/credentials/tmp')).status, 404);
  // the store is apart from the archive and only root reads it
  const st = fs.statSync(path.join(root, 'data', 'credentials.db'));
  assert.equal(st.mode & 0o777, 0o600);
});

test('cdm-default on a share: every test measured, the dialect recorded as the server saw it', opts, async () => {
  const r = await api(d.url, 'POST', '/api/v1/jobs', {
    target: smb.share('bench'), credential: 'filer', profile: 'cdm-default',
    // one iteration: a share's second open is the interleaved job's (below)
    size: '64MiB', iterations: 1, duration_s: 1, interval_s: 0,
  });
  assert.equal(r.status, 202, r.text);
  assert.equal(r.json.engine, 'smb');
  assert.deepEqual(r.json.smb, { credential: 'filer', min_protocol: null, max_protocol: null,
    require_signing: false, require_encryption: false });
  // what the server sees while the job runs; and the workers' environment
  // and command lines (readable in /proc for their whole life) hold no password
  const seen = new Set();
  let job, workers = 0;
  for (;;) {
    job = (await api(d.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json;
    if (!['queued', 'running'].includes(job.state)) break;
    if (job.state === 'running') for (const s of serverSessions()) seen.add(s.dialect);
    for (const pid of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
      let cmd = '', env = '';
      try {
        cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1');
        if (!cmd.includes('smb-worker') && !cmd.includes('smb-op')) continue;
        env = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
      } catch { continue; }
      workers++;
      assert.ok(!cmd.includes(SMB_PASSWORD) && !env.includes(SMB_PASSWORD), `pid ${pid} shows the password`);
    }
    await sleep(300);
  }
  assert.equal(job.state, 'done', job.error);
  assert.ok(workers > 0, 'SMB worker processes were seen and checked');
  const run = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
  assert.equal(run.tests.length, 8);
  for (const t of run.tests) {
    assert.equal(t.iterations.length, 1, `${t.test} ${t.rw}`);
    assert.ok(t.best.mb_s > 0 && t.best.ios > 0, `${t.test} ${t.rw} moved data`);
  }
  assert.equal(run.engine.target, 'smb');
  assert.equal(run.probe.fs_type, 'smb');
  assert.equal(run.probe.smb.server, '127.0.0.1');
  assert.equal(run.probe.smb.port, smb.port);
  assert.equal(run.probe.smb.share, 'bench');
  assert.equal(run.probe.smb.dialect, 'SMB3_11');
  assert.equal(run.probe.smb.signing, false);
  assert.equal(run.probe.smb.encryption, false);
  assert.ok(run.probe.free_bytes > 0 && run.probe.total_bytes >= run.probe.free_bytes);
  assert.deepEqual([...seen], ['SMB3_11'], 'smbd saw the dialect the probe recorded');
  assert.equal(run.spec.smb.credential, 'filer');
  // the test file is gone from the share
  assert.deepEqual(fs.readdirSync(path.join(smb.dir, 'bench')), []);
});

test('the protocol knobs change what is negotiated, and the run says so', opts, async () => {
  const r = await api(d.url, 'POST', '/api/v1/jobs', {
    target: smb.share('bench'), credential: 'filer', profile: 'custom', size: '16MiB',
    iterations: 1, duration_s: 5, interval_s: 0,
    tests: [{ name: 'RND4K Q4T1', pattern: 'random', block_size: '4KiB', queue_depth: 4, read_pct: 100 }],
    smb: { max_protocol: 'SMB2_10', require_signing: true },
  });
  assert.equal(r.status, 202, r.text);
  // each session's last state, of those seen twice or more (a session
  // caught in its setup shows no signing yet)
  const sessions = new Map();
  let job;
  for (;;) {
    job = (await api(d.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json;
    if (!['queued', 'running'].includes(job.state)) break;
    if (job.state === 'running') {
      for (const s of serverSessions()) sessions.set(s.id, { ...s, n: (sessions.get(s.id)?.n ?? 0) + 1 });
    }
    await sleep(200);
  }
  const seen = [...sessions.values()].filter((s) => s.n >= 2);
  assert.equal(job.state, 'done', job.error);
  const run = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
  assert.equal(run.probe.smb.dialect, 'SMB2_10');
  assert.equal(run.probe.smb.signing, true);
  assert.ok(seen.length > 0);
  for (const s of seen) {
    assert.equal(s.dialect, 'SMB2_10');
    assert.equal(s.signing, 'full', JSON.stringify(s));
  }
  // nonsense knobs are refused by name
  let b = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'filer',
    smb: { max_protocol: 'SMB4' } });
  assert.equal(b.status, 400);
  assert.equal(b.json.field, 'smb.max_protocol');
  b = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'filer',
    smb: { require_encryption: true, max_protocol: 'SMB2_10' } });
  assert.equal(b.status, 400);
  assert.equal(b.json.field, 'smb.require_encryption');
});

test('an interleaved job of two directories of a share: a run each, paired rounds, nothing left', opts, async () => {
  fs.mkdirSync(path.join(smb.dir, 'bench', 'il'), { recursive: true });
  const r = await api(d.url, 'POST', '/api/v1/jobs', {
    target: smb.share('bench'), compare_with: [smb.share('bench', 'il')], credential: 'filer',
    profile: 'custom', size: '16MiB', iterations: 2, duration_s: 0.5,
    tests: [{ name: 'RND4K Q4T1', pattern: 'random', block_size: '4KiB', queue_depth: 4, read_pct: 100 }],
  });
  assert.equal(r.status, 202, r.text);
  const job = await waitJob(d.url, r.json.id, 120000);
  assert.equal(job.state, 'done', job.error);
  assert.equal(job.runs.length, 2);
  for (const id of job.runs) {
    const run = (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
    assert.equal(run.engine.target, 'smb');
    assert.ok(run.probe.smb.dialect, JSON.stringify(run.probe.smb));
    assert.deepEqual(run.tests[0].iterations.map((it) => it.iteration), [1, 2]);
  }
  const c = (await api(d.url, 'GET', `/api/v1/compare?runs=${job.runs.join(',')}`)).json;
  assert.equal(c.tests[0].metrics.find((m) => m.metric === 'iops').vs_baseline[1].test, 'paired');
  assert.deepEqual(fs.readdirSync(path.join(smb.dir, 'bench', 'il')), []);
  fs.rmdirSync(path.join(smb.dir, 'bench', 'il'));
  assert.deepEqual(fs.readdirSync(path.join(smb.dir, 'bench')), []);
});

// iperf3 -s on loopback, for the wire baseline; null (with why) when absent
const iperfWhy = why ?? (spawnSync('iperf3', ['--version']).error ? 'iperf3 is not installed (apt-get install iperf3)' : null);
if (iperfWhy && !why) console.log(`skip the wire baseline test: ${iperfWhy}`);

test('the wire baseline: TCP both ways by iperf3, each result against it, carried by the document', { skip: iperfWhy ?? false }, async () => {
  const port = await freePort();
  const srv = spawn('iperf3', ['-s', '-p', String(port), '--bind', '127.0.0.1', '--forceflush'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    await new Promise((res, rej) => { // until it says it listens
      let said = '';
      srv.stdout.on('data', (b) => { said += b; if (said.includes('Server listening')) res(); });
      srv.on('exit', (c) => rej(new Error(`iperf3 -s exited (${c}): ${said}`)));
      setTimeout(() => rej(new Error(`iperf3 -s did not say it listens: ${said}`)), 10000).unref();
    });
    srv.stdout.resume();
    const tests = [
      { name: 'SEQ1M Q4T1', pattern: 'sequential', block_size: '1MiB', queue_depth: 4, read_pct: 100 },
      { name: 'SEQ1M Q4T1', pattern: 'sequential', block_size: '1MiB', queue_depth: 4, read_pct: 0 },
      { name: 'MIX 70/30', pattern: 'random', block_size: '64KiB', queue_depth: 4, read_pct: 70 },
    ];
    const r = await api(d.url, 'POST', '/api/v1/jobs', {
      target: smb.share('bench'), credential: 'filer', profile: 'custom', size: '16MiB',
      iterations: 1, duration_s: 1, interval_s: 0, tests, baseline: { port, duration_s: 1 },
    });
    assert.equal(r.status, 202, r.text);
    // the job and the run's spec show the baseline back, normalized
    const norm = { host: '127.0.0.1', port, duration_s: 1, streams: 1 };
    assert.deepEqual(r.json.smb.baseline, norm);
    assert.deepEqual(Object.keys(r.json.smb.baseline), Object.keys(norm), 'in the documented order');
    const job = await waitJob(d.url, r.json.id, 120000);
    assert.equal(job.state, 'done', job.error);
    const got = await api(d.url, 'GET', `/api/v1/jobs/${job.id}`);
    assert.deepEqual(got.json.smb.baseline, norm);
    const run = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
    assert.deepEqual(run.spec.smb.baseline, norm);
    // as the published document says (api/openapi.json): the job, the
    // run with its wire and each result's wire_efficiency
    const oa = await openapiValidator();
    oa.validateAnswer('post /api/v1/jobs', 202, r.json, 'POST /api/v1/jobs (a baseline)');
    oa.validateAnswer('get /api/v1/jobs/{id}', 200, got.json, `GET /api/v1/jobs/${job.id}`);
    oa.validateAnswer('get /api/v1/runs/{id}', 200, run, `GET /api/v1/runs/${job.run_id}`);
    const w = run.wire;
    assert.equal(w.host, '127.0.0.1');
    assert.equal(w.port, port);
    assert.equal(w.streams, 1);
    assert.equal(w.duration_s, 1);
    // loopback TCP: well above a slow link, below what memory can copy
    for (const v of [w.to_server_mb_s, w.from_server_mb_s])
      assert.ok(v > 50 && v < 200000, `TCP ${v} MB/s`);
    assert.ok(w.to_server_seconds > 0.5 && w.from_server_seconds > 0.5, JSON.stringify(w));
    assert.match(w.measured_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(w.measured_at <= run.started_at, 'measured before the tests');
    assert.match(w.iperf, /^3\./);
    // each result against the wire in its direction; a mix by time
    const share = { read: 1, write: 0, mix: 0.7 };
    assert.deepEqual(run.tests.map((t) => t.rw), ['read', 'write', 'mix']);
    for (const t of run.tests) {
      const it = t.iterations[0];
      const p = share[t.rw];
      const want = it.mb_s * p / w.from_server_mb_s + it.mb_s * (1 - p) / w.to_server_mb_s;
      assert.ok(it.mb_s > 0, `${t.test} ${t.rw}`);
      assert.ok(Math.abs(it.wire_efficiency - want) <= 1e-9 * want, `${t.rw}: ${it.wire_efficiency} vs ${want}`);
      assert.equal(t.best.wire_efficiency, it.wire_efficiency);
    }
    // carried by the run's document: deleted here and imported again
    const doc = await (await fetch(`${d.url}/api/v1/runs/${job.run_id}?format=storbench`)).text();
    assert.equal((await api(d.url, 'DELETE', `/api/v1/runs/${job.run_id}`)).status, 204);
    const imp = await (await fetch(`${d.url}/api/v1/import?filename=run.json`, { method: 'POST', body: doc })).json();
    const back = (await api(d.url, 'GET', `/api/v1/runs/${imp.id}`)).json;
    assert.deepEqual(back.wire, w);
    oa.validateAnswer('get /api/v1/runs/{id}', 200, back, `GET /api/v1/runs/${imp.id} (imported)`);
    assert.equal(back.tests[2].iterations[0].wire_efficiency, run.tests[2].iterations[0].wire_efficiency);

    // an iperf3 server that is not there: the job fails at once, before any test, naming baseline
    const closed = await freePort();
    const f = await api(d.url, 'POST', '/api/v1/jobs', {
      target: smb.share('bench'), credential: 'filer', profile: 'custom', size: '16MiB',
      iterations: 1, duration_s: 1, tests: tests.slice(0, 1), baseline: { port: closed, duration_s: 1 },
    });
    assert.equal(f.status, 202, f.text);
    const failed = await waitJob(d.url, f.json.id, 60000);
    assert.equal(failed.state, 'failed');
    assert.match(failed.error, new RegExp(`^baseline: iperf3 to 127\\.0\\.0\\.1 port ${closed} .*Connection refused.*no SMB test was run`), failed.error);
    assert.equal(failed.run_id, null, 'no run: nothing was measured');

    // a server that takes the connection and never answers: a cancel
    // stops the baseline at once (the child killed), not after its 30 s
    const silent = net.createServer(() => {});
    await new Promise((res) => silent.listen(0, '127.0.0.1', res));
    try {
      const c = await api(d.url, 'POST', '/api/v1/jobs', {
        target: smb.share('bench'), credential: 'filer', profile: 'custom', size: '16MiB',
        iterations: 1, duration_s: 1, tests: tests.slice(0, 1), baseline: { port: silent.address().port, duration_s: 30 },
      });
      assert.equal(c.status, 202, c.text);
      let j;
      for (let i = 0; i < 100 && j?.progress?.phase !== 'baseline'; i++) {
        await sleep(100);
        j = (await api(d.url, 'GET', `/api/v1/jobs/${c.json.id}`)).json;
      }
      assert.equal(j.progress?.phase, 'baseline', JSON.stringify(j));
      await sleep(1000); // well inside iperf3's exchange
      const t0 = Date.now();
      assert.equal((await api(d.url, 'DELETE', `/api/v1/jobs/${c.json.id}`)).status, 202);
      const ended = await waitJob(d.url, c.json.id, 30000);
      const took = Date.now() - t0;
      console.log(`  # a cancel during the baseline ended the job in ${took} ms`);
      assert.equal(ended.state, 'cancelled', ended.error);
      assert.ok(took < 3000, `cancelled after ${took} ms`);
      assert.equal(ended.run_id, null, 'no run: nothing was measured');
    } finally {
      silent.close();
    }
  } finally {
    srv.kill();
  }
  // refused by name: on a local target, at another server, with nonsense
  let b = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'cdm-default', size: '8MiB', baseline: {} });
  assert.equal(b.status, 400);
  assert.equal(b.json.field, 'baseline');
  assert.match(b.json.detail, /only for an smb:\/\/ target/);
  b = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'filer',
    baseline: { host: '127.0.0.2' } });
  assert.equal(b.status, 400);
  assert.equal(b.json.field, 'baseline.host');
  b = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'filer',
    baseline: { port: 70000 } });
  assert.equal(b.status, 400);
  assert.equal(b.json.field, 'baseline.port');
  // null is none (as steady_state's null): the job has no baseline
  b = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'filer', profile: 'custom',
    size: '8MiB', iterations: 1, duration_s: 0.5, tests: [{ read_pct: 100 }], baseline: null });
  assert.equal(b.status, 202, b.text);
  assert.equal(b.json.smb.baseline, undefined);
  await api(d.url, 'DELETE', `/api/v1/jobs/${b.json.id}`);
  await waitJob(d.url, b.json.id, 60000);
  assert.deepEqual(fs.readdirSync(path.join(smb.dir, 'bench')), []);
});

test('a wrong password and a missing share fail fast with the cause named', opts, async () => {
  const jobsBefore = (await api(d.url, 'GET', '/api/v1/jobs')).json.jobs.length;
  let t0 = Date.now();
  let r = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'wrong' });
  assert.ok(Date.now() - t0 < 5000, 'answered within 5 s');
  assert.equal(r.status, 400);
  assert.match(r.headers.get('content-type'), /application\/problem\+json/);
  assert.equal(r.json.field, 'credential');
  assert.match(r.json.detail, /refused the logon of user "root"/);
  t0 = Date.now();
  r = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('nosuchshare'), credential: 'filer' });
  assert.ok(Date.now() - t0 < 5000);
  assert.equal(r.status, 400);
  assert.equal(r.json.field, 'target');
  assert.match(r.json.detail, /no such share/);
  r = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench', 'nodir'), credential: 'filer' });
  assert.equal(r.status, 400);
  assert.equal(r.json.field, 'target');
  assert.match(r.json.detail, /does not exist on the share/);
  r = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'nobody' });
  assert.equal(r.status, 400);
  assert.equal(r.json.field, 'credential');
  r = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench') });
  assert.equal(r.status, 400);
  assert.equal(r.json.field, 'credential');
  r = await api(d.url, 'POST', '/api/v1/jobs', { target: `smb://${SMB_USER}:pw@127.0.0.1:${smb.port}/bench`,
    credential: 'filer' });
  assert.equal(r.status, 400);
  assert.equal(r.json.field, 'target');
  assert.equal((await api(d.url, 'GET', '/api/v1/jobs')).json.jobs.length, jobsBefore, 'nothing queued');
});

test('the server killed mid-run fails the job, keeps its samples, and the daemon serves on', opts, async () => {
  const r = await api(d.url, 'POST', '/api/v1/jobs', {
    target: smb.share('bench'), credential: 'filer', profile: 'cdm-default',
    size: '64MiB', iterations: 1, duration_s: 6, interval_s: 0,
  });
  assert.equal(r.status, 202, r.text);
  // wait until the first test has measured a few seconds
  for (let i = 0; i < 300; i++) {
    const p = (await api(d.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json.progress;
    if (p?.phase === 'measuring' && p.fraction > 0.1) break;
    await sleep(100);
  }
  await sleep(2500);
  await smb.kill();
  const job = await waitJob(d.url, r.json.id, 60000);
  assert.equal(job.state, 'failed');
  assert.match(job.error, /SMB server of smb:\/\/127\.0\.0\.1:\d+\/bench went away mid-run/);
  const run = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
  const samples = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}/samples`)).json.samples;
  assert.ok(samples.length >= 2, `samples kept: ${samples.length}`);
  assert.ok(samples.every((s) => s.read.mb_s > 0 || s.write.mb_s > 0));
  // the iteration that failed is no result: whatever results there are
  // are whole iterations
  for (const t of run.tests) for (const it of t.iterations) assert.ok(it.seconds > 5.5);
  // the daemon still answers, and says why a new SMB job cannot start
  assert.equal((await api(d.url, 'GET', '/healthz')).status, 200);
  const again = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'filer' });
  assert.equal(again.status, 400);
  assert.match(again.json.detail, /cannot reach the SMB server/);
  // the test file could not be removed; the next job on the share does it
  const left = fs.readdirSync(path.join(smb.dir, 'bench'));
  assert.equal(left.length, 1, `the failed job's file is still there: ${left}`);
  await smb.restart();
  const next = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'filer',
    profile: 'custom', size: '16MiB', iterations: 1, duration_s: 0.5,
    tests: [{ pattern: 'random', block_size: '4KiB', queue_depth: 2 }] });
  assert.equal(next.status, 202, next.text);
  const nj = await waitJob(d.url, next.json.id, 60000);
  assert.equal(nj.state, 'done', nj.error);
  assert.deepEqual(fs.readdirSync(path.join(smb.dir, 'bench')), [], 'leftover removed by the next job');
});

test('bad SMB URLs and knobs are refused by field, without echoing a password', opts, async () => {
  const bad = [
    [`smb://127.0.0.1:${smb.port}/bench/a\u0001b`, 'target', /control characters/],
    [`smb://127.0.0.1:${smb.port}/bench/d%2F`, 'target', /'%'/],
    [`smb://127.0.0.1:${smb.port}/bench//d`, 'target', /empty/],
    [`smb://127.0.0.1:${smb.port}/bench/${'x'.repeat(256)}`, 'target', /255 bytes/],
    [`smb://127.0.0.1:99999/bench`, 'target', /port/],
    ['smb://', 'target', /no server/],
    [`smb://root:sekr1t@127.0.0.1:${smb.port}/bench`, 'target', /no user or password/],
  ];
  for (const [target, field, re] of bad) {
    const r = await api(d.url, 'POST', '/api/v1/jobs', { target, credential: 'filer' });
    assert.equal(r.status, 400, target);
    assert.equal(r.json.field, field, target);
    assert.match(r.json.detail, re, target);
    assert.ok(!r.text.includes('sekr1t'));
  }
  let r = await api(d.url, 'POST', '/api/v1/jobs', { target: 1, credential: 'filer' });
  assert.equal(r.json.field, 'target');
  r = await api(d.url, 'POST', '/api/v1/jobs', { target: smb.share('bench'), credential: 'filer', direct: false });
  assert.equal(r.status, 400);
  assert.equal(r.json.field, 'direct');
  r = await api(d.url, 'PUT', '/api/v1/credentials/a%20b', { user: 'u', password: 'p' });
  assert.equal(r.status, 400);
  assert.equal(r.json.field, 'name');
  r = await api(d.url, 'POST', '/api/v1/credentials', { name: '..', user: 'u', password: 'p' });
  assert.equal(r.status, 400);
  r = await api(d.url, 'POST', '/api/v1/credentials', '{bad');
  assert.equal(r.status, 400);
  assert.match(r.json.detail, /line 1 column/);
});

test('the password is nowhere the user can export or read', opts, async () => {
  const files = ['storbench.db', 'storbench.db-wal'].map((f) => path.join(root, 'data', f))
    .filter((f) => fs.existsSync(f));
  for (const f of files) assert.ok(!fs.readFileSync(f).includes(SMB_PASSWORD), `${f} holds no password`);
  assert.ok(!d.output().includes(SMB_PASSWORD), 'the log holds no password');
  const runs = await api(d.url, 'GET', '/api/v1/runs');
  assert.ok(!runs.text.includes(SMB_PASSWORD));
  const jobs = await api(d.url, 'GET', '/api/v1/jobs');
  assert.ok(!jobs.text.includes(SMB_PASSWORD));
});
