// Many hosts, one load: three storbench daemons on this machine (own data
// directories and ports) are the hosts of multi-host jobs coordinated by
// the first, on one shared directory. A 3-host job finishes with each
// host's run and the aggregate, whose histogram is the bucket-wise sum of
// the hosts' (its p99 worked out here from the hosts' stored histograms)
// and whose I/O counts are the hosts' seconds inside the common window
// (worked out here from their wall-clock openings); a host killed
// mid-test fails the job naming it within the bound, and no file is left
// once it is back; a cancel reaches every host; a host whose clock is off
// is refused by name; bad requests are 400s naming the field.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test fleet.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, api, waitJob, freePort } from '../lib/daemon.mjs';
import { decodeHist, mergeHists, histPercentile, commonWindow } from '../lib/fleet.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'fleet-'));
const share = path.join(root, 'share');
fs.mkdirSync(share);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// the coordinator, and two hosts that need their token
const coord = await startDaemon({ bin, dataDir: path.join(root, 'c'), allow: [share], quiet: true });
const hosts = {};
for (const name of ['n2', 'n3']) {
  const dataDir = path.join(root, name);
  const port = await freePort();
  hosts[name] = { dataDir, port, d: await startDaemon({ bin, dataDir, port, allow: [share], quiet: true, args: ['--require-token'] }) };
  hosts[name].token = fs.readFileSync(path.join(dataDir, 'api-token'), 'utf8').trim();
}
after(async () => {
  for (const h of Object.values(hosts)) await h.d.stop().catch(() => {});
  await coord.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

for (const [name, h] of Object.entries(hosts)) {
  const r = await api(coord.url, 'POST', '/api/v1/peers', { name, url: h.d.url, token: h.token });
  assert.equal(r.status, 201, r.text);
}

// a clock bound for a loaded test machine, where a loopback round trip
// can take several ms (the default 5 ms is for a quiet network); the
// refusal itself is tested with a host 250 ms off
const small = { target: share, profile: 'custom', size: '16MiB', iterations: 2, duration_s: 1.5, interval_s: 0, clock_bound_ms: 50,
  tests: [{ name: 'RND4K Q4T1', block_size: '4KiB', queue_depth: 4, pattern: 'random' },
    { name: 'SEQ128K Q2T1', block_size: '128KiB', queue_depth: 2, pattern: 'sequential', read_pct: 0 }] };
const auth = (name) => ({ headers: { Authorization: `Bearer ${hosts[name].token}` } });
const hostApi = (name, method, p, body) => api(hosts[name].d.url, method, p, body, auth(name));
const doc = async (url, id, opts) => (await api(url, 'GET', `/api/v1/runs/${id}?format=storbench`, undefined, opts)).json;

test('a 3-host job: each host\'s run and the aggregate from the merged histograms over the common window', async () => {
  const r = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, hosts: ['self', 'n2', 'n3'] });
  assert.equal(r.status, 202, r.text);
  assert.deepEqual(r.json.hosts, ['self', 'n2', 'n3']);
  // the job card's live lines: every host's, while it runs
  let sawHosts = null;
  for (let i = 0; i < 200 && !sawHosts; i++) {
    const j = (await api(coord.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json;
    if (j.fleet_progress?.hosts?.length === 3 && j.fleet_progress.hosts.every((h) => h.state === 'running')) sawHosts = j.fleet_progress;
    if (!['queued', 'running'].includes(j.state)) break;
    await sleep(100);
  }
  assert.ok(sawHosts, 'the job showed its three hosts running');
  const job = await waitJob(coord.url, r.json.id, 120000);
  assert.equal(job.state, 'done', job.error);
  assert.equal(job.runs.length, 4, 'three host runs and the aggregate');
  assert.equal(job.run_id, Math.max(...job.runs));
  const agg = (await api(coord.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
  const fleet = agg.probe.fleet;
  assert.deepEqual(fleet.hosts.map((h) => h.name), ['self', 'n2', 'n3']);
  assert.deepEqual(agg.spec.hosts, ['self', 'n2', 'n3']);
  // every host's run is here whole, linked to the job
  const docs = [];
  for (const h of fleet.hosts) {
    assert.ok(job.runs.includes(h.run_id), JSON.stringify(h));
    docs.push(await doc(coord.url, h.run_id));
    // each labelled with its host, self's too (made here, not imported)
    assert.ok(docs.at(-1).labels.includes(`host:${h.name}`), `${h.name}: ${docs.at(-1).labels}`);
  }
  // each host's run is also its own, in its own archive, under the same uuid
  for (const name of ['n2', 'n3']) {
    const h = fleet.hosts.find((x) => x.name === name);
    const there = await doc(hosts[name].d.url, h.remote_run, auth(name));
    assert.equal(there.uuid, docs[fleet.hosts.indexOf(h)].uuid);
  }
  const aggDoc = await doc(coord.url, job.run_id);
  for (const t of aggDoc.tests) {
    for (const it of t.iterations) {
      const mine = docs.map((d) => d.tests.find((x) => x.test === t.test && x.rw === t.rw)
        .iterations.find((x) => x.iteration === it.iteration));
      // the histogram is the bucket-wise sum of the hosts'
      const hs = mine.map((m) => decodeHist(m.raw.histogram));
      const merged = mergeHists(hs);
      const got = decodeHist(it.raw.histogram);
      assert.deepEqual([...got.buckets.entries()].sort((a, b) => a[0] - b[0]),
        [...merged.buckets.entries()].sort((a, b) => a[0] - b[0]), `${t.test} ${it.iteration}: merged buckets`);
      assert.equal(got.count, merged.count);
      for (const [p, key] of [[50, 'p50'], [99, 'p99'], [99.9, 'p99.9']]) {
        const want = histPercentile(merged, p) / 1e3;
        assert.ok(Math.abs(it.latency_us[key] - want) <= 1e-9 * want, `${t.test} ${key}: ${it.latency_us[key]} vs ${want}`);
      }
      // and not the mean of the hosts' p99s (unless the hosts agree)
      // the I/O counts: each host's seconds inside the common window
      const hostSamples = docs.map((d) => d.samples.filter((s) => s.test === t.test && s.rw === t.rw && s.iteration === it.iteration));
      const offs = fleet.hosts.map((h) => Math.round(h.offset_ms * 1e6));
      const cw = commonWindow(mine.map((m, k) => ({ start: BigInt(m.raw.start_unix_ns) - BigInt(offs[k]), window_ns: m.raw.window_ns, samples: hostSamples[k] })));
      assert.ok(Math.abs(it.seconds - cw.seconds) < 1e-6, `${it.seconds} vs ${cw.seconds}`);
      assert.ok(Math.abs(it.ios - cw.ios) <= 3, `${t.test} ${it.iteration}: ios ${it.ios} vs ${cw.ios}`);
      assert.ok(Math.abs(it.iops - cw.ios / cw.seconds) <= 1e-6 * it.iops + 3 / cw.seconds);
      // summed, so close to the hosts' sum (the windows nearly coincide)
      const sum = mine.reduce((a, m) => a + m.iops, 0);
      assert.ok(Math.abs(it.iops - sum) / sum < 0.05, `${t.test}: aggregate ${it.iops} vs the hosts' ${sum}`);
      assert.ok(cw.share > 0.6, `common window share ${cw.share}`);
    }
  }
  // the hosts started together (one after another would be seconds
  // apart); how close is bench/fleet's to measure — on a loaded 2-CPU
  // machine a host's wake-up can be late by tens of ms
  assert.ok(fleet.start_skew_ms.max < 500, JSON.stringify(fleet.start_skew_ms));
  // each host wrote its own file in the one directory, and none is left
  assert.deepEqual(fs.readdirSync(share), []);
  // bad requests are refused by field
  const bad = async (body, field) => {
    const b = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, ...body });
    assert.equal(b.status, 400, b.text);
    assert.ok(b.json.field === field || b.json.field.startsWith(`${field}[`), b.text);
  };
  await bad({ hosts: ['self', 'nope'] }, 'hosts');
  await bad({ hosts: ['self', 'self'] }, 'hosts');
  await bad({ hosts: [] }, 'hosts');
  await bad({ hosts: ['self'], compare_with: [share] }, 'compare_with');
  await bad({ hosts: ['self'], profile: 'file-create', tests: undefined }, 'profile');
  await bad({ hosts: ['self'], steady_state: { round_s: 0.5 } }, 'steady_state');
  await bad({ hosts: ['self'], clock_bound_ms: 0 }, 'clock_bound_ms');
  await bad({ hosts: ['self'], fleet: { host: 'a', job: 1 } }, 'fleet');
  // a multi-host job's own fields without hosts are refused, not ignored
  for (const field of ['hosts_sweep', 'clock_bound_ms', 'peer_timeout_s']) {
    const body = { ...small, [field]: field === 'hosts_sweep' ? [1] : 20 };
    if (field !== 'clock_bound_ms') delete body.clock_bound_ms;
    const b = await api(coord.url, 'POST', '/api/v1/jobs', body);
    assert.equal(b.status, 400, b.text);
    assert.equal(b.json.field, field, b.text);
    assert.match(b.json.detail, /with hosts/);
  }
  // null takes the default: the refusal says so
  const zero = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, hosts: ['self'], peer_timeout_s: 0 });
  assert.match(zero.json.detail, /or null for the default \(10\)/, zero.text);
  const go = await api(coord.url, 'POST', '/api/v1/jobs/1/go', { gate: 0, start_at_ns: 1 });
  assert.equal(go.status, 404, go.text);
  const dup = await api(coord.url, 'POST', '/api/v1/jobs/1/go', '{"gate": 0, "gate": 1, "start_at_ns": 1}');
  assert.equal(dup.status, 400, dup.text);
  assert.match(dup.json.detail, /malformed JSON at line 1 column \d+: duplicate object key/, dup.text);
  const go2 = await api(coord.url, 'POST', '/api/v1/jobs/1/go', { gate: 'x' });
  assert.equal(go2.status, 400);
  assert.equal(go2.json.field, 'gate');
});

test('a host killed mid-test fails the job, naming it, within the bound; no file is left once it is back', async () => {
  const r = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, iterations: 3, duration_s: 2, hosts: ['self', 'n2', 'n3'], peer_timeout_s: 2 });
  assert.equal(r.status, 202, r.text);
  // wait until n3 measures, then kill it without a word
  for (let i = 0; i < 300; i++) {
    const j = (await api(coord.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json;
    if (j.fleet_progress?.hosts?.find((h) => h.name === 'n3')?.phase === 'measuring') break;
    await sleep(50);
  }
  const t0 = Date.now();
  hosts.n3.d.proc.kill('SIGKILL');
  const job = await waitJob(coord.url, r.json.id, 60000);
  const took = Date.now() - t0;
  assert.equal(job.state, 'failed');
  assert.match(job.error, /^n3 \(http:\/\/127\.0\.0\.1:\d+\) stopped answering/, job.error);
  assert.ok(took < 2000 + 8000, `failed ${took} ms after the kill`);
  // the other hosts' jobs were cancelled and their files removed; their runs are kept
  const runs = job.runs;
  assert.ok(runs.length >= 2, JSON.stringify(job));
  const n2jobs = (await hostApi('n2', 'GET', '/api/v1/jobs')).json.jobs;
  assert.equal(n2jobs[0].state, 'cancelled');
  // n3 back on its data directory removes the file the kill left
  hosts.n3.d = await startDaemon({ bin, dataDir: hosts.n3.dataDir, port: hosts.n3.port, allow: [share], quiet: true, args: ['--require-token'] });
  assert.deepEqual(fs.readdirSync(share), []);
});

test('a cancel reaches every host, and every host removes its file', async () => {
  const r = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, iterations: 3, duration_s: 2, hosts: ['self', 'n2', 'n3'] });
  assert.equal(r.status, 202, r.text);
  for (let i = 0; i < 300; i++) {
    const j = (await api(coord.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json;
    if (j.fleet_progress?.hosts?.every((h) => h.phase === 'measuring')) break;
    await sleep(50);
  }
  const c = await api(coord.url, 'DELETE', `/api/v1/jobs/${r.json.id}`);
  assert.equal(c.status, 202, c.text);
  const job = await waitJob(coord.url, r.json.id, 60000);
  assert.equal(job.state, 'cancelled');
  for (const name of ['n2', 'n3']) {
    const jobs = (await hostApi(name, 'GET', '/api/v1/jobs')).json.jobs;
    assert.equal(jobs[0].state, 'cancelled', `${name}: ${JSON.stringify(jobs[0])}`);
  }
  assert.deepEqual(fs.readdirSync(share), []);
});

test('a host whose clock is off is refused by name', async () => {
  const dataDir = path.join(root, 'skewed');
  const d = await startDaemon({ bin, dataDir, allow: [share], quiet: true, args: ['--clock-offset-ms', '250'] });
  try {
    const r = await api(coord.url, 'POST', '/api/v1/peers', { name: 'skewed', url: d.url });
    assert.equal(r.status, 201, r.text);
    const j = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, clock_bound_ms: undefined, hosts: ['self', 'skewed'] });
    assert.equal(j.status, 202, j.text);
    const job = await waitJob(coord.url, j.json.id, 30000);
    assert.equal(job.state, 'failed');
    assert.match(job.error, /the clock of skewed is 2\d\d\.\d ms ahead of this host's/, job.error);
    // nothing was sent to it
    assert.deepEqual((await api(d.url, 'GET', '/api/v1/jobs')).json.jobs, []);
    // with a bound it meets, the same hosts run
    const ok = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, iterations: 1, duration_s: 1, tests: [small.tests[0]], hosts: ['self', 'skewed'], clock_bound_ms: 400 });
    const done = await waitJob(coord.url, ok.json.id, 60000);
    assert.equal(done.state, 'done', done.error);
    const agg = (await api(coord.url, 'GET', `/api/v1/runs/${done.run_id}`)).json;
    const sk = agg.probe.fleet.hosts.find((h) => h.name === 'skewed');
    assert.ok(Math.abs(sk.offset_ms - 250) < 20, JSON.stringify(sk));
    // the offset is taken out: the windows still line up
    assert.ok(agg.probe.fleet.start_skew_ms.max < 500, JSON.stringify(agg.probe.fleet.start_skew_ms));
  } finally {
    await api(coord.url, 'DELETE', '/api/v1/peers/skewed');
    await d.stop().catch(() => {});
  }
});

test('two names for one daemon (or a peer for self) fail the job at once, naming both', async () => {
  for (const [name, url] of [['alias', hosts.n2.d.url], ['me', coord.url]]) {
    const r = await api(coord.url, 'POST', '/api/v1/peers', { name, url, token: name === 'alias' ? hosts.n2.token : undefined });
    assert.equal(r.status, 201, r.text);
  }
  try {
    for (const [list, a, b] of [[['self', 'n2', 'alias'], 'n2', 'alias'], [['self', 'me'], 'self', 'me']]) {
      const before = (await hostApi('n2', 'GET', '/api/v1/jobs')).json.jobs.length;
      const t0 = Date.now();
      const j = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, hosts: list });
      assert.equal(j.status, 202, j.text);
      const job = await waitJob(coord.url, j.json.id, 30000);
      assert.equal(job.state, 'failed');
      assert.match(job.error, new RegExp(`hosts\\[\\d\\] \\(${a}, .*\\) and hosts\\[\\d\\] \\(${b}, .*\\) are one daemon`), job.error);
      assert.ok(Date.now() - t0 < 15000, `failed after ${Date.now() - t0} ms, not at a gate's time-out`);
      // nothing was sent to any host
      assert.equal((await hostApi('n2', 'GET', '/api/v1/jobs')).json.jobs.length, before);
    }
  } finally {
    await api(coord.url, 'DELETE', '/api/v1/peers/alias');
    await api(coord.url, 'DELETE', '/api/v1/peers/me');
  }
});

test('peers: probed live, tokens never shown or archived, bad input refused by field', async () => {
  const list = (await api(coord.url, 'GET', '/api/v1/peers')).json.peers;
  assert.deepEqual(list.map((p) => p.name), ['self', 'n2', 'n3']);
  for (const p of list) {
    assert.equal(p.reachable, true, JSON.stringify(p));
    assert.equal(p.os, 'linux');
    assert.ok(p.rtt_ms > 0 && p.rtt_ms < 1000, JSON.stringify(p));
    // one machine, one clock: the offset is within its uncertainty (and scheduling)
    assert.ok(Math.abs(p.offset_ms) <= p.uncertainty_ms + 5, JSON.stringify(p));
    assert.equal(p.token_set, true);
  }
  const clock = (await api(coord.url, 'GET', '/api/v1/clock')).json;
  assert.ok(Math.abs(Number(BigInt(clock.unix_ns) / 1000000n) - Date.now()) < 50, JSON.stringify(clock));
  // a wrong token and a closed port: not reachable, said why, quickly
  let r = await api(coord.url, 'POST', '/api/v1/peers', { name: 'wrong', url: hosts.n2.d.url, token: 'not-the-token' });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.reachable, false);
  assert.match(r.json.error, /wrong refused the token \(HTTP 401\)/);
  const closed = await freePort();
  const t0 = Date.now();
  r = await api(coord.url, 'POST', '/api/v1/peers', { name: 'gone', url: `http://127.0.0.1:${closed}` });
  assert.equal(r.json.reachable, false);
  assert.match(r.json.error, /gone did not answer/);
  assert.ok(Date.now() - t0 < 3000);
  // the tokens are nowhere a user reads, and not in the archive or the log
  const texts = [(await api(coord.url, 'GET', '/api/v1/peers')).text, (await api(coord.url, 'GET', '/api/v1/peers/n2')).text,
    fs.readFileSync(path.join(root, 'c', 'storbench.db')).toString('latin1'), coord.output()];
  for (const t of texts) for (const h of Object.values(hosts)) assert.ok(!t.includes(h.token));
  assert.equal(fs.statSync(path.join(root, 'c', 'credentials.db')).mode & 0o777, 0o600);
  // refusals name the field
  for (const [body, field, status] of [[{ name: 'self', url: 'http://x' }, 'name', 400], [{ name: 'a b', url: 'http://x' }, 'name', 400],
    [{ name: 'x', url: 'ftp://x' }, 'url', 400], [{ name: 'x', url: 'http://x?y=1' }, 'url', 400], [{ name: 'x', url: 'http://admin:pw@x:80' }, 'url', 400], [{ name: 'x', url: 'http://:80' }, 'url', 400], [{ name: 'x' }, 'url', 400],
    [{ name: 'x', url: 'http://x', extra: 1 }, 'extra', 400], [{ name: 'n2', url: 'http://x' }, 'name', 409]]) {
    const b = await api(coord.url, 'POST', '/api/v1/peers', body);
    assert.equal(b.status, status, b.text);
    assert.equal(b.json.field, field, b.text);
  }
  for (const n of ['wrong', 'gone']) assert.equal((await api(coord.url, 'DELETE', `/api/v1/peers/${n}`)).status, 204);
  assert.equal((await api(coord.url, 'GET', '/api/v1/peers/gone')).status, 404);
});

test('hosts_sweep: one aggregate per host count, with the first that many hosts', async () => {
  const r = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, iterations: 1, duration_s: 1, tests: [small.tests[0]],
    hosts: ['self', 'n2', 'n3'], hosts_sweep: [1, 3] });
  assert.equal(r.status, 202, r.text);
  const job = await waitJob(coord.url, r.json.id, 120000);
  assert.equal(job.state, 'done', job.error);
  const aggs = [];
  for (const id of job.runs) {
    const run = (await api(coord.url, 'GET', `/api/v1/runs/${id}`)).json;
    if (run.probe.fleet) aggs.push(run);
  }
  assert.deepEqual(aggs.map((a) => a.probe.fleet.hosts.map((h) => h.name)), [['self'], ['self', 'n2', 'n3']]);
  assert.deepEqual(aggs[1].probe.fleet.hosts_sweep, [1, 3]);
  assert.equal(job.run_id, aggs[1].id);
  // one host's aggregate is that host's run, over its own window
  const one = aggs[0].tests[0].iterations[0];
  const self = (await api(coord.url, 'GET', `/api/v1/runs/${aggs[0].probe.fleet.hosts[0].run_id}`)).json.tests[0].iterations[0];
  assert.equal(one.ios, self.ios);
  assert.equal(one.latency_us.p99, self.latency_us.p99);
  // the two aggregates compare like any runs; the sides' hosts are said
  const c = (await api(coord.url, 'GET', `/api/v1/compare?runs=${aggs[0].id},${aggs[1].id}`)).json;
  assert.ok(c.warnings.some((w) => /hosts/.test(w) && w.includes('1 (self)') && w.includes('3 (self, n2, n3)')), JSON.stringify(c.warnings));
  const g = await api(coord.url, 'GET', '/api/v1/compare?group_by=hosts&values=1,3&profile=custom');
  assert.equal(g.status, 200, g.text);
  assert.deepEqual(g.json.sides.map((x) => x.value ?? x.name ?? x.label).map(String), ['1', '3'], JSON.stringify(g.json.sides).slice(0, 400));
  for (const bad of [[3, 1], [4], [0]]) {
    const b = await api(coord.url, 'POST', '/api/v1/jobs', { ...small, hosts: ['self', 'n2', 'n3'], hosts_sweep: bad });
    assert.equal(b.status, 400, b.text);
    assert.match(b.json.field, /^hosts_sweep/, b.text);
  }
  assert.deepEqual(fs.readdirSync(share), []);
});

test('a coordinator killed mid-job: started again, the job is interrupted and its hosts\' jobs are cancelled', async () => {
  const dataDir = path.join(root, 'k');
  const port = await freePort();
  let k = await startDaemon({ bin, dataDir, port, allow: [share], quiet: true });
  try {
    for (const name of ['n2', 'n3']) {
      const r = await api(k.url, 'POST', '/api/v1/peers', { name, url: hosts[name].d.url, token: hosts[name].token });
      assert.equal(r.status, 201, r.text);
    }
    const r = await api(k.url, 'POST', '/api/v1/jobs', { ...small, iterations: 5, duration_s: 2, hosts: ['n2', 'n3'] });
    assert.equal(r.status, 202, r.text);
    let fp;
    for (let i = 0; i < 300; i++) {
      fp = (await api(k.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json.fleet_progress;
      if (fp?.hosts?.every((x) => x.phase === 'measuring')) break;
      await sleep(50);
    }
    const memberJobs = fp.hosts.map((x) => [x.name, x.job]);
    k.proc.kill('SIGKILL');
    await sleep(200);
    k = await startDaemon({ bin, dataDir, port, allow: [share], quiet: true });
    const job = (await api(k.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json;
    assert.equal(job.state, 'interrupted');
    // each host's job is cancelled by the coordinator started again, and its files go
    for (const [name, id] of memberJobs) {
      let j;
      for (let i = 0; i < 100; i++) {
        j = (await hostApi(name, 'GET', `/api/v1/jobs/${id}`)).json;
        if (!['queued', 'running'].includes(j.state)) break;
        await sleep(100);
      }
      assert.equal(j.state, 'cancelled', `${name}: ${JSON.stringify(j)}`);
    }
    assert.match(k.output(), /cancelled n2's job/);
    assert.deepEqual(fs.readdirSync(share), []);
  } finally {
    await k.stop().catch(() => {});
  }
});
