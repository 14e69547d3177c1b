// The hub: two servers (`serve --hub URL --hub-token-file FILE`, each with a
// host name of its own in a UTS namespace: `unshare -ru`) push every run
// that ends to a third daemon (--require-token), which then holds every
// server's runs under their uuids, groups them by host, compares each
// host's newest run and labels /metrics by host. The hub goes away and
// comes back: the run made meanwhile arrives once, a server restarted
// while it waits too; a wrong token keeps runs pending with the hub's 401
// in GET /api/v1/hub; a run the hub refuses (409) is recorded with the
// hub's detail and not sent again; bad --hub values stop serve at start.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test hub.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startDaemon, freePort, api, waitJob, runCommand } from '../lib/daemon.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'hub-'));
const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/import');
const named = spawnSync('unshare', ['-ru', 'sh', '-c', 'hostname sb-probe && hostname'], { encoding: 'utf8' });
const skip = named.stdout?.trim() === 'sb-probe' ? false
  : 'no user and UTS namespace (unshare -ru): two servers on one machine need two host names';

const started = new Set();
after(async () => {
  for (const d of started) await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

/** A daemon on its data dir and port, named host (null: the machine's). */
async function serve(name, { port, host = null, args = [] } = {}) {
  const wrap = host ? ['unshare', '-ru', 'sh', '-c', `hostname ${host} && exec "$0" "$@"`] : [];
  const d = await startDaemon({ bin, dataDir: path.join(root, name), port, args, wrap, quiet: true });
  started.add(d);
  const stop = d.stop;
  d.stop = async () => { started.delete(d); return stop(); };
  return d;
}

/** Polls fn until it returns a truthy value; that value. */
async function until(what, fn, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    if ((last = await fn())) return last;
    await sleep(200);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
}

const ONE = [{ read_pct: 100, block_size: '4KiB' }];
const TWO = [{ read_pct: 100, block_size: '4KiB' }, { read_pct: 0, block_size: '4KiB' }];

/** A small job on d (the null back-end, 1 s a test), done: its run id. */
async function runJob(d, tests = ONE) {
  const r = await api(d.url, 'POST', '/api/v1/jobs', {
    profile: 'custom', engine: 'null', size: '16MiB', iterations: 1, duration_s: 1, tests,
  });
  assert.equal(r.status, 202, r.text);
  const j = await waitJob(d.url, r.json.id, 60000);
  assert.equal(j.state, 'done', j.error);
  return j.run_id;
}

// the hub first: its token is the servers'
const hubDir = path.join(root, 'hub');
const hubPort = await freePort();
const hubToken = path.join(hubDir, 'api-token');
let hub;
let auth;
const onHub = (p) => api(hub.url, 'GET', p, undefined, { headers: auth });
const hubRuns = async () => (await onHub('/api/v1/runs?limit=1000')).json.runs;
const status = async (d) => (await api(d.url, 'GET', '/api/v1/hub')).json;
const uuidOf = async (d, id) => (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json.uuid;
const hubArgs = (tokenFile = hubToken) => ['--hub', hub.url, '--hub-token-file', tokenFile];
let a;
let b;
const portA = await freePort();
const portB = await freePort();
const runsA = [];
const runsB = [];

test('every server\'s runs reach the hub, under their own uuids', { skip }, async () => {
  hub = await serve('hub', { port: hubPort, args: ['--require-token'] });
  auth = { Authorization: `Bearer ${fs.readFileSync(hubToken, 'utf8').trim()}` };
  [a, b] = await Promise.all([
    serve('a', { port: portA, host: 'alpha', args: hubArgs() }),
    serve('b', { port: portB, host: 'beta', args: hubArgs() }),
  ]);
  const [ra, rb] = await Promise.all([runJob(a), runJob(b)]);
  runsA.push(ra);
  runsB.push(rb);
  const runs = await until('both runs on the hub', async () => { const r = await hubRuns(); return r.length === 2 && r; });
  assert.deepEqual(runs.map((r) => r.hostname).sort(), ['alpha', 'beta']);
  const got = await Promise.all(runs.map(async (r) => (await onHub(`/api/v1/runs/${r.id}`)).json.uuid));
  assert.deepEqual(got.sort(), [await uuidOf(a, ra), await uuidOf(b, rb)].sort());

  const s = await until('A says the hub took its run', async () => { const x = await status(a); return x.pushed === 1 && x; });
  assert.equal(s.url, hub.url);
  assert.equal(s.pending, 0);
  assert.equal(s.refused, 0);
  assert.equal(s.last_error, null);
  assert.equal(s.next_try_at, null);
  assert.deepEqual(s.refusals, []);
  assert.ok(!JSON.stringify(s).includes(auth.Authorization.slice(7)), 'the hub\'s token is never shown');
  // the hub itself pushes nowhere
  const off = (await onHub('/api/v1/hub')).json;
  assert.equal(off.url, null);
  assert.equal(off.state, 'off');
});

test('the hub lists its runs by host: ?host= and ?group_by=host', { skip }, async () => {
  const g = (await onHub('/api/v1/runs?group_by=host')).json;
  assert.equal(g.total, 2);
  assert.deepEqual(g.groups.map((x) => [x.host, x.runs]), [['alpha', 1], ['beta', 1]]);
  for (const x of g.groups) {
    const run = g.runs.find((r) => r.id === x.latest_run_id);
    assert.equal(run.hostname, x.host);
    assert.equal(x.latest_started_at, run.started_at);
  }
  const alpha = (await onHub('/api/v1/runs?host=alpha')).json;
  assert.deepEqual(alpha.runs.map((r) => r.hostname), ['alpha']);
  assert.equal(alpha.groups, undefined, 'no groups unless asked for');
  // every filter applies to the groups too
  const beta = (await onHub('/api/v1/runs?group_by=host&host=beta&limit=1')).json;
  assert.deepEqual(beta.groups.map((x) => x.host), ['beta']);
  const none = (await onHub('/api/v1/runs?group_by=host&profile=cdm-default')).json;
  assert.deepEqual([none.total, none.groups], [0, []]);
  const bad = await onHub('/api/v1/runs?group_by=target');
  assert.equal(bad.status, 400);
  assert.equal(bad.json.field, 'group_by');
});

test('compare?latest_per=host compares each host\'s newest done run of a profile', { skip }, async () => {
  const c = await onHub('/api/v1/compare?latest_per=host&profile=custom');
  assert.equal(c.status, 200, c.text);
  assert.deepEqual(c.json.sides.map((s) => s.label), ['alpha', 'beta']);
  assert.deepEqual(c.json.sides.map((s) => s.runs.length), [1, 1]);
  assert.equal(c.json.tests[0].test, 'RND4K Q1T1');
  const back = await onHub('/api/v1/compare?latest_per=host&profile=custom&values=beta,alpha');
  assert.deepEqual(back.json.sides.map((s) => s.label), ['beta', 'alpha']);
  const cases = [
    ['latest_per=host', 'profile'],
    ['latest_per=host&profile=cdm-default', 'latest_per'],
    ['latest_per=host&profile=custom&host=alpha', 'latest_per'],
    ['latest_per=host&profile=custom&values=alpha', 'latest_per'],
    ['latest_per=target&profile=custom', 'latest_per'],
    ['latest_per=host&profile=custom&state=done', 'state'],
    ['latest_per=host&profile=custom&group_by=fs_type', 'latest_per'],
    ['runs=1,2&latest_per=host', 'latest_per'],
  ];
  for (const [q, field] of cases) {
    const r = await onHub(`/api/v1/compare?${q}`);
    assert.equal(r.status, 400, `${q}: ${r.text}`);
    assert.equal(r.json.field, field, `${q}: ${r.text}`);
  }
  const gone = await onHub('/api/v1/compare?latest_per=host&profile=custom&values=alpha,gamma');
  assert.equal(gone.status, 404, gone.text);
  assert.match(gone.json.detail, /host "gamma" has no done run of profile custom/);
});

test('/metrics on the hub: every host\'s last figures, labelled by host', { skip }, async () => {
  const r = await fetch(`${hub.url}/metrics`, { headers: auth });
  const text = await r.text();
  for (const host of ['alpha', 'beta']) {
    assert.match(text, new RegExp(`^storbench_last_run_iops\\{target="[^"]*",profile="custom",host="${host}",test="RND4K Q1T1",rw="read"\\} [0-9.]+$`, 'm'));
    assert.match(text, new RegExp(`^storbench_last_run_id\\{[^}]*host="${host}"\\} \\d+$`, 'm'));
  }
});

test('the hub away: the run waits, survives a restart of its server and arrives once', { skip }, async () => {
  await hub.stop();
  const r = await runJob(a);
  runsA.push(r);
  let s = await until('A says the run waits, with why', async () => {
    const x = await status(a);
    return x.pending === 1 && x.last_error && x.next_try_at && x;
  });
  assert.match(s.last_error, new RegExp(`^run ${r}: the hub did not answer: `));
  assert.equal(s.state, 'waiting');
  assert.ok(s.failures >= 1 && s.next_try_in_s >= 0 && s.next_try_in_s <= 60, JSON.stringify(s));
  assert.equal(s.pushed, 1);
  // a restart while it waits: stopped cleanly, and still pending after
  const stopped = await a.stop();
  assert.equal(stopped.code, 0, 'serve stops cleanly while its run waits for the hub');
  a = await serve('a', { port: portA, host: 'alpha', args: hubArgs() });
  s = await status(a);
  assert.equal(s.pending, 1, JSON.stringify(s));
  // the hub again, on its port and data directory
  hub = await serve('hub', { port: hubPort, args: ['--require-token'] });
  const runs = await until('the third run on the hub', async () => { const x = await hubRuns(); return x.length === 3 && x; }, 90000);
  s = await until('A says the hub took it', async () => { const x = await status(a); return x.pending === 0 && x; });
  assert.deepEqual([s.pushed, s.refused, s.failures, s.last_error], [2, 0, 0, null]);
  await sleep(1500);
  const again = await hubRuns();
  assert.equal(again.length, 3, 'no duplicate');
  const uuids = await Promise.all(again.map(async (x) => (await onHub(`/api/v1/runs/${x.id}`)).json.uuid));
  assert.equal(new Set(uuids).size, 3);
  assert.ok(uuids.includes(await uuidOf(a, r)));
  assert.deepEqual(runs.filter((x) => x.hostname === 'alpha').length, 2);
  // the newest of alpha's runs is the one compared now
  const c = (await onHub('/api/v1/compare?latest_per=host&profile=custom')).json;
  const newest = (await onHub('/api/v1/runs?host=alpha&sort=-started_at&limit=1')).json.runs[0];
  assert.equal(c.sides[0].label, 'alpha');
  assert.equal(c.sides[0].runs[0].id, newest.id);
});

test('a wrong hub token: the run stays pending with the hub\'s 401 in words', { skip }, async () => {
  const wrong = path.join(root, 'wrong-token');
  fs.writeFileSync(wrong, 'not-the-hub-token-0123456789\n', { mode: 0o600 });
  await b.stop();
  b = await serve('b', { port: portB, host: 'beta', args: hubArgs(wrong) });
  const r = await runJob(b, TWO);
  runsB.push(r);
  const s = await until('B says why its run waits', async () => {
    const x = await status(b);
    return x.pending === 1 && /answered 401/.test(x.last_error ?? '') && x;
  });
  assert.match(s.last_error, new RegExp(`^run ${r}: the hub answered 401: `));
  assert.equal(s.pushed, 1);
  assert.equal((await hubRuns()).length, 3);
});

test('a run the hub refuses is recorded with its detail and not sent again', { skip }, async () => {
  // the hub gets a run of the same uuid with other iterations first (by
  // hand), so it refuses B's own with a 409
  const r = runsB[1];
  const doc = JSON.parse((await api(b.url, 'GET', `/api/v1/runs/${r}?format=storbench`)).text);
  doc.tests = doc.tests.slice(1);
  doc.samples = doc.samples.filter((x) => doc.tests.some((t) => t.test === x.test && t.rw === x.rw));
  const imp = await api(hub.url, 'POST', '/api/v1/import', JSON.stringify(doc), { headers: auth });
  assert.equal(imp.status, 201, imp.text);
  await b.stop();
  b = await serve('b', { port: portB, host: 'beta', args: hubArgs() });
  const s = await until('B says the hub refused it', async () => { const x = await status(b); return x.refused === 1 && x; });
  assert.deepEqual([s.pending, s.pushed, s.refusals.length], [0, 1, 1]);
  assert.equal(s.refusals[0].run_id, r);
  assert.equal(s.refusals[0].status, 409);
  assert.match(s.refusals[0].detail, /other iterations than this document/);
  assert.match(s.last_error, new RegExp(`^run ${r}: refused \\(409\\): `));
  assert.match(b.output(), new RegExp(`refused run ${r} \\(409\\).*not sent again`));
  // not sent again: after a restart it is still refused, nothing pending
  await b.stop();
  b = await serve('b', { port: portB, host: 'beta', args: hubArgs() });
  await sleep(1000);
  const t = await status(b);
  assert.deepEqual([t.pending, t.refused, t.sent], [0, 1, 0]);
  assert.equal((await hubRuns()).length, 4);
});

test('an imported run travels too: the hub lists it under no host', { skip }, async () => {
  const file = fs.readFileSync(path.join(fixtures, 'cdm', 'cdm804-shizuku-sata-usb-admin-comment.txt'));
  const imp = await api(a.url, 'POST', '/api/v1/import?filename=cdm.txt', file, { headers: { 'Content-Type': 'application/octet-stream' } });
  assert.equal(imp.status, 201, imp.text);
  const runs = await until('the import on the hub', async () => { const x = await hubRuns(); return x.length === 5 && x; });
  const there = runs.find((x) => x.profile === 'crystaldiskmark');
  assert.equal(there.hostname, null);
  assert.equal((await onHub(`/api/v1/runs/${there.id}`)).json.uuid, imp.json.uuid);
  const g = (await onHub('/api/v1/runs?group_by=host')).json.groups;
  assert.deepEqual(g.map((x) => [x.host, x.runs]), [['alpha', 2], ['beta', 2], [null, 1]]);
  // compare leaves the runs of no host out
  const c = (await onHub('/api/v1/compare?latest_per=host&profile=crystaldiskmark')).json;
  assert.equal(c.field, 'latest_per');
});

test('bad --hub values stop serve at start, naming --hub', async () => {
  const port = String(await freePort());
  for (const [args, re] of [
    [['--hub', 'ftp://x'], /--hub ftp:\/\/x: an http:\/\/ or https:\/\/ URL without a query/],
    [['--hub', 'http://127.0.0.1:1/x?a=b'], /--hub http:\/\/127\.0\.0\.1:1\/x\?a=b: an http:\/\/ or https:\/\/ URL/],
    [['--hub', ''], /--hub : an http/],
    [['--hub-token-file', path.join(root, 'none')], /--hub-token-file without --hub/],
  ]) {
    const r = await runCommand(bin, ['serve', '--listen', `127.0.0.1:${port}`, '--data', path.join(root, 'bad'), ...args], { timeoutMs: 10000 });
    assert.notEqual(r.status, 0, `${args}: ${r.stderr}`);
    assert.equal(r.signal, null, `${args}: it stopped by itself`);
    assert.match(r.stderr, re, `${args}`);
  }
  // a token file serve cannot use: it says which, and does not serve
  const missing = await runCommand(bin, ['serve', '--listen', `127.0.0.1:${port}`, '--data', path.join(root, 'bad'),
    '--hub', 'http://127.0.0.1:1', '--hub-token-file', path.join(root, 'none')], { timeoutMs: 10000 });
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /--hub-token-file .*none/);
});
