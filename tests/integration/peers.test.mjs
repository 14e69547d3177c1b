// The peers registry and the clock it probes: three storbench daemons on
// loopback (own data directories and ports), the first the registry's. A
// plain one (no token) and one whose clock reads 250 ms ahead
// (--clock-offset-ms) that wants its token (--require-token) are
// registered on the first; GET /api/v1/peers probes each live (version,
// OS, host name, round trip, offset ± uncertainty: near 0 and near
// +250 ms); a wrong token and a closed port are unreachable and say why,
// quickly; silent peers are probed side by side, not one after another;
// no token is in an answer, the archive or the log; credentials.db is
// 0600; bad input is a 400 naming the field, a second name a 409; a
// daemon on another loopback address reaches itself as "self".
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test peers.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, api, freePort, runCommand } from '../lib/daemon.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'peers-'));
const dir = (n) => path.join(root, n);
// the registry's daemon, a plain peer, and a peer 250 ms ahead that wants its token
const first = await startDaemon({ bin, dataDir: dir('first'), quiet: true });
const plain = await startDaemon({ bin, dataDir: dir('plain'), quiet: true });
const skewed = await startDaemon({ bin, dataDir: dir('skewed'), quiet: true, args: ['--clock-offset-ms', '250', '--require-token'] });
const token = fs.readFileSync(path.join(dir('skewed'), 'api-token'), 'utf8').trim();
const wrongToken = 'not-the-token-but-a-secret-all-the-same';
// a TCP server that takes connections and never answers
const held = [];
const silent = net.createServer((s) => held.push(s));
await new Promise((r) => silent.listen(0, '127.0.0.1', r));
const silentUrl = `http://127.0.0.1:${silent.address().port}`;
after(async () => {
  for (const s of held) s.destroy();
  silent.close();
  for (const d of [first, plain, skewed]) await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

const secrets = [token, wrongToken];
const noSecret = (what, text) => {
  for (const t of secrets) assert.ok(!text.includes(t), `a token in ${what}`);
};
const post = async (body) => {
  const r = await api(first.url, 'POST', '/api/v1/peers', body);
  noSecret(`POST ${JSON.stringify(body.name)}`, r.text);
  return r;
};
const peers = async () => {
  const r = await api(first.url, 'GET', '/api/v1/peers', undefined, { timeoutMs: 30000 });
  assert.equal(r.status, 200, r.text);
  noSecret('GET /api/v1/peers', r.text);
  return r.json.peers;
};
const byName = (list) => Object.fromEntries(list.map((p) => [p.name, p]));
const show = (p) => JSON.stringify(p);

test('GET /api/v1/clock: this host\'s wall clock in ns, its version, OS, name and instance', async () => {
  const t0 = Date.now();
  const r = await api(plain.url, 'GET', '/api/v1/clock');
  const t1 = Date.now();
  assert.equal(r.status, 200, r.text);
  // unix_ns is an exact integer in the text (above 2^53, so not via JSON.parse)
  const ns = BigInt(/"unix_ns":\s*(\d+)/.exec(r.text)[1]);
  const ms = Number(ns / 1000000n);
  assert.ok(ms >= t0 - 5 && ms <= t1 + 5, `${ms} not within [${t0} - 5, ${t1} + 5] ms`);
  assert.deepEqual(Object.keys(r.json).sort(), ['hostname', 'instance', 'os', 'unix_ns', 'version']);
  // one instance per daemon start: the same on every answer, another daemon's differs
  assert.match(r.json.instance, /^[0-9a-f]{32}$/);
  assert.equal((await api(plain.url, 'GET', '/api/v1/clock')).json.instance, r.json.instance);
  assert.equal(r.json.os, 'linux');
  assert.equal(r.json.hostname, os.hostname());
  assert.match(r.json.version, /^\d+\.\d+/);
  // --clock-offset-ms: the clock reads that much ahead
  const s0 = Date.now();
  const s = await api(skewed.url, 'GET', '/api/v1/clock', undefined, { headers: { Authorization: `Bearer ${token}` } });
  const s1 = Date.now();
  const sms = Number(BigInt(/"unix_ns":\s*(\d+)/.exec(s.text)[1]) / 1000000n);
  assert.notEqual(s.json.instance, r.json.instance);
  assert.ok(sms - 250 >= s0 - 5 && sms - 250 <= s1 + 5, `${sms} - 250 not within [${s0} - 5, ${s1} + 5] ms`);
  // a token-protected route like every /api/ one
  assert.equal((await api(skewed.url, 'GET', '/api/v1/clock')).status, 401);
});

test('serve --clock-offset-ms: an integer from -3600000 to 3600000', async () => {
  for (const v of ['3600001', '-3600001', '1.5', 'abc', '']) {
    const r = await runCommand(bin, ['serve', '--listen', '127.0.0.1:1', '--data', dir('never'), '--clock-offset-ms', v]);
    assert.notEqual(r.status, 0, v);
    assert.match(r.stderr, /--clock-offset-ms .*an integer from -3600000 to 3600000/, r.stderr);
  }
  assert.ok(!fs.existsSync(dir('never')));
  const help = await runCommand(bin, ['serve', '--help']);
  assert.match(help.stdout, /--clock-offset-ms N for tests/);
});

test('peers: registered, probed live with version, OS, host name and clock offset', async () => {
  let r = await post({ name: 'plain', url: plain.url });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.headers.get('location'), '/api/v1/peers/plain');
  assert.equal(r.json.token_set, false);
  assert.equal(r.json.reachable, true, r.text);
  assert.ok(!('token' in r.json));
  r = await post({ name: 'skewed', url: skewed.url, token });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.token_set, true);
  assert.equal(r.json.reachable, true, r.text);

  const list = await peers();
  assert.deepEqual(list.map((p) => p.name), ['self', 'plain', 'skewed']);
  const version = (await api(first.url, 'GET', '/api/v1/clock')).json.version;
  for (const p of list) {
    assert.equal(p.reachable, true, show(p));
    assert.equal(p.status, 200, show(p));
    assert.equal(p.error, null, show(p));
    assert.equal(p.version, version, show(p));
    assert.equal(p.os, 'linux');
    assert.equal(p.hostname, os.hostname());
    assert.ok(p.rtt_ms > 0 && p.rtt_ms < 200, show(p));
    assert.equal(p.uncertainty_ms, p.rtt_ms / 2, show(p));
    assert.ok(!('token' in p), show(p));
  }
  const p = byName(list);
  assert.equal(p.self.url, first.url);
  assert.equal(p.plain.url, plain.url);
  assert.equal(p.skewed.token_set, true);
  assert.match(p.plain.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(p.plain.updated_at, p.plain.created_at);
  // one machine, one clock: within the uncertainty (and scheduling)
  for (const n of ['self', 'plain']) assert.ok(Math.abs(p[n].offset_ms) <= p[n].uncertainty_ms + 5, show(p[n]));
  assert.ok(Math.abs(p.skewed.offset_ms - 250) <= 20, show(p.skewed));
  // one peer, probed the same way
  r = await api(first.url, 'GET', '/api/v1/peers/skewed');
  assert.equal(r.status, 200, r.text);
  noSecret('GET /api/v1/peers/skewed', r.text);
  assert.equal(r.json.name, 'skewed');
  assert.ok(Math.abs(r.json.offset_ms - 250) <= 20, r.text);
  r = await api(first.url, 'GET', '/api/v1/peers/self');
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.reachable, true, r.text);
});

test('a wrong token, a closed port and silent peers: unreachable, said why, side by side', async () => {
  let r = await post({ name: 'wrong', url: skewed.url, token: wrongToken });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.reachable, false, r.text);
  assert.equal(r.json.status, 401, r.text);
  assert.match(r.json.error, /^wrong refused the token \(HTTP 401\)/, r.text);
  for (const k of ['version', 'os', 'hostname', 'rtt_ms', 'offset_ms', 'uncertainty_ms']) assert.equal(r.json[k], null, r.text);

  const closed = await freePort();
  let t0 = Date.now();
  r = await post({ name: 'gone', url: `http://127.0.0.1:${closed}` });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.reachable, false, r.text);
  assert.equal(r.json.status, 0, r.text);
  assert.match(r.json.error, /^gone did not answer/, r.text);
  assert.ok(Date.now() - t0 < 2500, `${Date.now() - t0} ms`);

  // a peer that takes the connection and never answers costs one 2 s try
  t0 = Date.now();
  r = await post({ name: 'mute1', url: silentUrl });
  const one = Date.now() - t0;
  assert.equal(r.json.reachable, false, r.text);
  assert.match(r.json.error, /^mute1 did not answer/, r.text);
  assert.ok(one >= 1500 && one < 3500, `${one} ms`);
  for (const n of ['mute2', 'mute3']) assert.equal((await post({ name: n, url: silentUrl })).status, 201);
  // three of them in the list: probed at once, about one timeout in all
  t0 = Date.now();
  const list = byName(await peers());
  const all = Date.now() - t0;
  assert.ok(all < 4500, `GET /api/v1/peers with 3 silent peers took ${all} ms`);
  for (const n of ['mute1', 'mute2', 'mute3', 'gone', 'wrong']) assert.equal(list[n].reachable, false, show(list[n]));
  for (const n of ['self', 'plain', 'skewed']) assert.equal(list[n].reachable, true, show(list[n]));
  for (const n of ['mute1', 'mute2', 'mute3', 'gone']) assert.equal((await api(first.url, 'DELETE', `/api/v1/peers/${n}`)).status, 204);

  // PUT replaces: the right token, and it is reachable
  r = await api(first.url, 'PUT', '/api/v1/peers/wrong', { url: skewed.url, token });
  assert.equal(r.status, 200, r.text);
  noSecret('PUT /api/v1/peers/wrong', r.text);
  assert.equal(r.json.reachable, true, r.text);
  assert.ok(Math.abs(r.json.offset_ms - 250) <= 20, r.text);
  assert.ok(r.json.updated_at >= r.json.created_at, r.text);
  // PUT of a name not there makes it
  r = await api(first.url, 'PUT', '/api/v1/peers/fresh', { url: plain.url });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.token_set, false);
});

test('tokens: in no answer, not in the archive or the log; credentials.db is 0600', async () => {
  const texts = { list: JSON.stringify(await peers()) };
  for (const n of ['skewed', 'wrong', 'plain']) texts[n] = (await api(first.url, 'GET', `/api/v1/peers/${n}`)).text;
  for (const f of fs.readdirSync(dir('first'))) {
    if (f.startsWith('storbench.db')) texts[f] = fs.readFileSync(path.join(dir('first'), f)).toString('latin1');
  }
  assert.ok('storbench.db' in texts);
  texts.log = first.output();
  for (const [what, text] of Object.entries(texts)) noSecret(what, text);
  // (they are where they belong: the private file)
  const creds = path.join(dir('first'), 'credentials.db');
  assert.equal(fs.statSync(creds).mode & 0o777, 0o600);
  assert.ok(fs.readFileSync(creds).toString('latin1').includes(token));
});

test('bad input: a 400 naming the field, a second name a 409, nothing stored', async () => {
  const before = (await api(first.url, 'GET', '/api/v1/credentials')).json;
  const names = async () => (await peers()).map((p) => p.name);
  const kept = await names();
  for (const [body, field, status] of [
    [{ name: 'self', url: 'http://x' }, 'name', 400],
    [{ name: 'a b', url: 'http://x' }, 'name', 400],
    [{ name: '', url: 'http://x' }, 'name', 400],
    [{ name: 'x'.repeat(65), url: 'http://x' }, 'name', 400],
    [{ url: 'http://x' }, 'name', 400],
    [{ name: 'x', url: 'ftp://x' }, 'url', 400],
    [{ name: 'x', url: 'javascript:alert(1)' }, 'url', 400],
    [{ name: 'x', url: 'http://x?y' }, 'url', 400],
    [{ name: 'x', url: 'http://x#y' }, 'url', 400],
    [{ name: 'x', url: 'http://' }, 'url', 400],
    [{ name: 'x', url: 'http://x:65536' }, 'url', 400],
    [{ name: 'x', url: 'http://x:99999999' }, 'url', 400],
    [{ name: 'x', url: 'http://x:port' }, 'url', 400],
    [{ name: 'x', url: 'http://u:p@x' }, 'url', 400],
    [{ name: 'x', url: 'http://:1' }, 'url', 400],
    [{ name: 'x', url: 42 }, 'url', 400],
    [{ name: 'x' }, 'url', 400],
    [{ name: 'x', url: 'http://x', token: 7 }, 'token', 400],
    [{ name: 'x', url: 'http://x', extra: 1 }, 'extra', 400],
    [{ name: 'plain', url: 'http://x' }, 'name', 409],
    // one name whatever its case: a host's name is in its test files'
    [{ name: 'PLAIN', url: 'http://x' }, 'name', 409],
  ]) {
    const r = await post(body);
    assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
    assert.match(r.headers.get('content-type'), /^application\/problem\+json/);
    assert.equal(r.json.field, field, `${JSON.stringify(body)}: ${r.text}`);
  }
  // a key given twice, and JSON that does not parse: where, by line and column
  for (const [raw, what] of [['{"name": "x", "url": "http://x", "name": "y"}', /duplicate object key near '"name"'/],
    ['{"name": "x",\n "url": }', /malformed JSON at line 2 column \d+/]]) {
    const r = await api(first.url, 'POST', '/api/v1/peers', raw);
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.detail, what, r.text);
    assert.match(r.json.detail, /line \d+ column \d+/, r.text);
  }
  // a bad token's refusal does not repeat it
  const r = await post({ name: 'x', url: 'http://x', token: `${wrongToken}\n` });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.field, 'token');
  for (const [p, body, status, field] of [
    ['/api/v1/peers/self', { url: 'http://x' }, 400, 'name'],
    ['/api/v1/peers/a%20b', { url: 'http://x' }, 400, 'name'],
    ['/api/v1/peers/plain', { name: 'plain', url: 'http://x' }, 400, 'name'],
    ['/api/v1/peers/plain', { url: 'ftp://x' }, 400, 'url'],
    ['/api/v1/peers/Plain', { url: 'http://x' }, 409, 'name'],
  ]) {
    const q = await api(first.url, 'PUT', p, body);
    assert.equal(q.status, status, `PUT ${p} ${JSON.stringify(body)}: ${q.text}`);
    assert.equal(q.json.field, field, q.text);
  }
  assert.deepEqual(await names(), kept);
  assert.equal(byName(await peers()).plain.url, plain.url);
  // a scheme in capitals is a scheme: taken, and the peer reached
  const upper = await post({ name: 'upper', url: plain.url.replace(/^http:/, 'HTTP:') });
  assert.equal(upper.status, 201, upper.text);
  assert.equal(byName(await peers()).upper.reachable, true);
  assert.equal((await api(first.url, 'DELETE', '/api/v1/peers/upper')).status, 204);
  // the credentials beside them are untouched
  assert.deepEqual((await api(first.url, 'GET', '/api/v1/credentials')).json, before);
});

test('DELETE: 204, then 404; self cannot be removed', async () => {
  assert.equal((await api(first.url, 'DELETE', '/api/v1/peers/fresh')).status, 204);
  assert.equal((await api(first.url, 'GET', '/api/v1/peers/fresh')).status, 404);
  assert.equal((await api(first.url, 'DELETE', '/api/v1/peers/fresh')).status, 404);
  assert.equal((await api(first.url, 'DELETE', '/api/v1/peers/self')).status, 409);
  assert.equal((await api(first.url, 'GET', '/api/v1/peers/no%20such')).status, 404);
  assert.deepEqual((await peers()).map((p) => p.name), ['self', 'plain', 'skewed', 'wrong']);
});

test('self is the address the daemon listens on: another loopback address', async () => {
  const d = await startDaemon({ bin, dataDir: dir('other'), host: '127.0.0.5', quiet: true });
  try {
    const r = await api(d.url, 'GET', '/api/v1/peers/self');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.url, d.url);
    assert.equal(r.json.reachable, true, r.text);
  } finally {
    await d.stop().catch(() => {});
  }
});
