// The API never stalls and never loses track, against the real daemon:
// - a job POST whose SMB server accepts TCP and never answers (a listening
//   socket made here) waits alone: three of them at once take one check's
//   time, not three, and /healthz answers throughout;
// - 300 connections from 127.0.0.1 that send nothing, then more than the
//   server's 512 and 100 that trickle a header a byte a second
//   (slowloris), do not lock out a client that sends its request; idle ones
//   are closed; the closings are logged once per interval, not per
//   connection;
// - a run that has ended is served with a strong ETag: If-None-Match gives
//   304, editing its labels changes the ETag (also while other clients read
//   it: no answer read before an edit is kept after it); a running run's
//   answer is not to be stored;
// - the archive's own disk filling mid-job (a small tmpfs made here, root
//   only) ends the job failed at once in the API, /healthz and the event
//   stream, naming the archive, and the end is written once there is room.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDaemon, api, waitJob } from '../lib/daemon.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'stalls-'));
const isRoot = process.getuid?.() === 0;
const cleanups = [];
after(async () => {
  for (const c of cleanups.reverse()) {
    try { await c(); } catch { /* best effort */ }
  }
  fs.rmSync(root, { recursive: true, force: true });
});

/** /healthz every 25 ms until stop(); the answers' times in ms. */
function probe(url) {
  let stop = false;
  const ms = [];
  const done = (async () => {
    while (!stop) {
      const s = performance.now();
      const r = await api(url, 'GET', '/healthz', undefined, { timeoutMs: 30000 });
      assert.equal(r.status, 200);
      ms.push(performance.now() - s);
      await sleep(25);
    }
  })();
  return { ms, stop: async () => { stop = true; await done; return ms; } };
}

test('job POSTs to an SMB server that never answers wait alone; /healthz answers throughout', async () => {
  const sockets = new Set();
  const hole = net.createServer((s) => { sockets.add(s); s.on('error', () => {}); });
  await new Promise((r) => hole.listen(0, '127.0.0.1', r));
  cleanups.push(() => { for (const s of sockets) s.destroy(); hole.close(); });
  const port = hole.address().port;
  const d = await startDaemon({ bin, dataDir: path.join(root, 'smb-data'), allow: [`smb://127.0.0.1:${port}/bench`], quiet: true });
  cleanups.push(() => d.stop());
  let r = await api(d.url, 'POST', '/api/v1/credentials', { name: 'hole', user: 'u', password: 'p' });
  assert.equal(r.status, 201, r.text);

  const p = probe(d.url);
  await sleep(200);
  const t0 = performance.now();
  const posts = await Promise.all([0, 1, 2].map(() => api(d.url, 'POST', '/api/v1/jobs',
    { target: `smb://127.0.0.1:${port}/bench`, credential: 'hole' }, { timeoutMs: 60000 })));
  const wall = (performance.now() - t0) / 1000;
  const ms = await p.stop();
  for (const x of posts) {
    assert.equal(x.status, 400, x.text);
    assert.equal(x.json.field, 'target');
    assert.match(x.json.detail, /did not answer within 5 s/, 'the answer says what it waited for');
    const dur = Number(/^checks;dur=([\d.]+);desc="[^"]+"$/.exec(x.headers.get('server-timing') ?? '')?.[1]);
    assert.ok(dur >= 4500 && dur < 10000, `Server-Timing says how long: ${x.headers.get('server-timing')}`);
  }
  assert.ok(sockets.size >= 3, `the black hole saw the connections (${sockets.size})`);
  // side by side: about one check's 5 s, not three (15 s, one after another)
  assert.ok(wall < 11, `three POSTs took ${wall.toFixed(1)} s`);
  const worst = Math.max(...ms);
  assert.ok(ms.length > 20, `healthz answered ${ms.length} times meanwhile`);
  assert.ok(worst < 1000, `the slowest /healthz took ${worst.toFixed(0)} ms while the POSTs waited`);
  assert.equal((await api(d.url, 'GET', '/api/v1/jobs')).json.jobs.length, 0, 'nothing queued');
});

test('connections that send nothing cannot lock a client out; idle ones time out; logged once per interval', async () => {
  const d = await startDaemon({ bin, dataDir: path.join(root, 'conn-data'), quiet: true });
  cleanups.push(() => d.stop());
  const port = Number(new URL(d.url).port);
  const idle = [];
  let closedByServer = 0;
  const open = () => new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', () => {});
    s.on('close', () => { closedByServer++; });
    idle.push(s);
  });
  cleanups.push(() => { for (const s of idle) s.destroy(); });
  for (let i = 0; i < 300; i++) await open();
  await sleep(1500); // they count as waiting once a second has passed
  // the owner's requests go through, again and again, while they are open
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    const r = await api(d.url, 'GET', '/healthz', undefined, { timeoutMs: 5000 });
    assert.equal(r.status, 200);
    assert.ok(performance.now() - s < 2000, `healthz took ${(performance.now() - s).toFixed(0)} ms`);
    for (let k = 0; k < 60; k++) await open(); // and the flood goes on, past the limit
  }
  // slowloris: headers that never end, a byte a second
  const slow = [];
  for (let i = 0; i < 100; i++) {
    const s = await open();
    s.write('GET /healthz HTTP/1.1\r\nX-a: ');
    slow.push(s);
  }
  const trickle = setInterval(() => { for (const s of slow) if (!s.destroyed) s.write('a'); }, 1000);
  cleanups.push(() => clearInterval(trickle));
  await sleep(1500);
  for (let i = 0; i < 3; i++) {
    const s = performance.now();
    const r = await api(d.url, 'GET', '/healthz', undefined, { timeoutMs: 5000 });
    assert.equal(r.status, 200);
    assert.ok(performance.now() - s < 2000, `healthz took ${(performance.now() - s).toFixed(0)} ms among slow headers`);
    await sleep(500);
  }
  clearInterval(trickle);
  // idle connections are closed by the server after its idle timeout (10 s)
  const waitFor = Date.now() + 20000;
  while (closedByServer < idle.length && Date.now() < waitFor) await sleep(250);
  assert.equal(closedByServer, idle.length, `${closedByServer} of ${idle.length} idle connections were closed`);
  const lines = d.output().split('\n').filter((l) => /connection/i.test(l));
  assert.ok(lines.length >= 1 && lines.length <= 8, `log lines about connections: ${lines.length}\n${lines.join('\n')}`);
  assert.match(lines[0], /closed \d+ connection\(s\) that sent no request/);
});

test('a run that has ended: strong ETag, If-None-Match gives 304, an edit changes it; a running one is not stored', async () => {
  const d = await startDaemon({ bin, dataDir: path.join(root, 'etag-data'), quiet: true });
  cleanups.push(() => d.stop());
  const r = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '16MiB', iterations: 3, duration_s: 1,
    tests: [{ name: 'RND4K Q8T1', block_size: '4KiB', queue_depth: 8 }] });
  assert.equal(r.status, 202, r.text);
  let live = null;
  for (let i = 0; i < 100 && !live; i++) {
    const x = await api(d.url, 'GET', '/api/v1/runs/1');
    if (x.status === 200 && x.json.state === 'running') live = x;
    else await sleep(50);
  }
  assert.ok(live, 'the run was seen running');
  assert.equal(live.headers.get('cache-control'), 'no-store');
  assert.equal(live.headers.get('etag'), null, 'a running run has no ETag');
  assert.equal((await waitJob(d.url, r.json.id)).state, 'done');

  const variants = ['/api/v1/runs/1', '/api/v1/runs/1?format=csv', '/api/v1/runs/1?format=cdm', '/api/v1/runs/1/samples'];
  const tags = [];
  for (const v of variants) {
    const a = await api(d.url, 'GET', v);
    const b = await api(d.url, 'GET', v);
    assert.equal(a.status, 200, v);
    const tag = a.headers.get('etag');
    assert.match(tag ?? '', /^"[0-9a-f]{16}"$/, `${v}: strong ETag`);
    assert.equal(a.headers.get('cache-control'), 'private, no-cache', v);
    assert.equal(b.text, a.text, `${v}: the same bytes twice`);
    assert.equal(b.headers.get('etag'), tag, v);
    const nm = await api(d.url, 'GET', v, undefined, { headers: { 'If-None-Match': `"0000000000000000", W/${tag}` } });
    assert.equal(nm.status, 304, `${v}: If-None-Match with its ETag`);
    assert.equal(nm.text, '', '304 has no body');
    assert.equal(nm.headers.get('etag'), tag);
    const other = await api(d.url, 'GET', v, undefined, { headers: { 'If-None-Match': '"0000000000000000"' } });
    assert.equal(other.status, 200, `${v}: another ETag gets the answer`);
    tags.push(tag);
  }
  assert.equal(new Set(tags).size, tags.length, 'each form has its own ETag');
  // the JSON matches the archive's (a fresh read after a restart is the same bytes)
  const before = await api(d.url, 'GET', '/api/v1/runs/1');
  const p = await api(d.url, 'PATCH', '/api/v1/runs/1', { labels: ['after'] });
  assert.equal(p.status, 200, p.text);
  const edited = await api(d.url, 'GET', '/api/v1/runs/1');
  assert.deepEqual(edited.json.labels, ['after']);
  assert.notEqual(edited.headers.get('etag'), before.headers.get('etag'), 'the edit changed the ETag');
  const stale = await api(d.url, 'GET', '/api/v1/runs/1', undefined, { headers: { 'If-None-Match': before.headers.get('etag') } });
  assert.equal(stale.status, 200, 'the old ETag no longer matches');
  // edits while eight clients read the run: what any of them read before
  // an edit is never served after it
  let reading = true;
  const readers = Array.from({ length: 8 }, (_, k) => (async () => {
    while (reading) await api(d.url, 'GET', k % 2 ? '/api/v1/runs/1' : '/api/v1/runs/1?format=csv');
  })());
  for (let i = 0; i < 40; i++) {
    const pr = await api(d.url, 'PATCH', '/api/v1/runs/1', { labels: [`edit-${i}`] });
    assert.equal(pr.status, 200, pr.text);
    const now = await api(d.url, 'GET', '/api/v1/runs/1');
    assert.deepEqual(now.json.labels, [`edit-${i}`], `after edit ${i}`);
  }
  reading = false;
  await Promise.all(readers);
  await sleep(100);
  const last = await api(d.url, 'GET', '/api/v1/runs/1');
  assert.deepEqual(last.json.labels, ['edit-39'], 'the last edit, once the readers are done');
  await d.stop();
  const d2 = await startDaemon({ bin, dataDir: path.join(root, 'etag-data'), quiet: true });
  cleanups.push(() => d2.stop());
  const fresh = await api(d2.url, 'GET', '/api/v1/runs/1');
  assert.equal(fresh.text, last.text, 'what was kept is what the archive gives');
  assert.equal(fresh.headers.get('etag'), last.headers.get('etag'));
  assert.equal((await api(d2.url, 'DELETE', '/api/v1/runs/1')).status, 204);
  assert.equal((await api(d2.url, 'GET', '/api/v1/runs/1')).status, 404, 'a deleted run is not served from memory');
});

test('the archive disk filling mid-job: failed at once in the API, /healthz and events; written once there is room', async (t) => {
  if (!isRoot) return t.skip('needs root (mounts a small tmpfs for the archive)');
  const mnt = path.join(root, 'small');
  fs.mkdirSync(mnt);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', mnt]);
  } catch (e) {
    return t.skip(`cannot mount a tmpfs here (${String(e.stderr ?? e.message).trim()})`);
  }
  cleanups.push(() => execFileSync('umount', ['-l', mnt]));
  const target = path.join(root, 'target'); // the test file on this machine's disk
  fs.mkdirSync(target);
  const data = path.join(mnt, 'data');
  const d = await startDaemon({ bin, dataDir: data, allow: [target], quiet: true });
  cleanups.push(() => d.stop());
  const ctl = new AbortController();
  const events = [];
  const es = (async () => {
    try {
      const res = await fetch(`${d.url}/api/v1/events`, { signal: ctl.signal });
      const rd = res.body.getReader();
      for (;;) {
        const { value, done } = await rd.read();
        if (done) break;
        events.push(Buffer.from(value).toString());
      }
    } catch { /* aborted */ }
  })();
  const r = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'custom', target, size: '16MiB', iterations: 8, duration_s: 1,
    tests: [{ name: 'RND4K Q8T1', block_size: '4KiB', queue_depth: 8 }] });
  assert.equal(r.status, 202, r.text);
  // once the first iteration is stored, fill the archive's disk
  for (let i = 0; i < 200; i++) {
    const j = await api(d.url, 'GET', `/api/v1/jobs/${r.json.id}`);
    if (j.json.progress?.iteration >= 2) break;
    await sleep(50);
  }
  const filler = path.join(mnt, 'filler');
  try { execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' }); } catch { /* full */ }
  const job = await waitJob(d.url, r.json.id, 60000);
  assert.equal(job.state, 'failed', JSON.stringify(job));
  assert.match(job.error, /archive/, 'the reason names the archive');
  assert.match(job.error, /disk is full/);
  assert.doesNotMatch(job.error, /ran out of space during the job/, 'the target is not blamed');
  const h = await api(d.url, 'GET', '/healthz');
  assert.equal(h.json.queue.running, 0, '/healthz counts it ended');
  const run = await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`);
  assert.equal(run.json.state, 'failed', 'its run too');
  const del = await api(d.url, 'DELETE', `/api/v1/jobs/${r.json.id}`);
  assert.equal(del.status, 409, 'a job that ended cannot be cancelled');
  await sleep(300);
  ctl.abort();
  await es;
  assert.match(events.join(''), new RegExp(`"id": ?${r.json.id}, ?"state": ?"failed"`), 'the event stream said failed');
  assert.match(d.output(), /could not be written to the archive/);
  assert.equal(fs.readdirSync(target).length, 0, 'no test file left');
  // writes refused for the full disk are 507s that say so
  const runDel = await api(d.url, 'DELETE', `/api/v1/runs/${job.run_id}`);
  assert.equal(runDel.status, 409);
  assert.match(runDel.json.detail, /end is not in the archive/);
  const cdm = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}?format=cdm`)).text;
  for (const [method, route, body] of [['POST', '/api/v1/jobs', { profile: 'custom', target, size: '16MiB',
    tests: [{ name: 'RND4K Q1T1', block_size: '4KiB' }] }], ['POST', '/api/v1/import?filename=again.txt', cdm],
  ['PATCH', `/api/v1/runs/${job.run_id}`, { notes: 'x'.repeat(4000) }]]) {
    const w = await api(d.url, method, route, body);
    assert.equal(w.status, 507, `${method} ${route}: ${w.text}`);
    assert.equal(w.headers.get('content-type'), 'application/problem+json');
    assert.match(w.json.detail, /the archive's disk is full/);
  }
  // room again: the end is written (with its reason and time), as a restart shows
  fs.rmSync(filler);
  const until = Date.now() + 10000;
  while (!/is in the archive now/.test(d.output()) && Date.now() < until) await sleep(100);
  assert.match(d.output(), /its end \(failed\) is in the archive now/);
  await d.stop();
  const d2 = await startDaemon({ bin, dataDir: data, allow: [target], quiet: true });
  cleanups.push(() => d2.stop());
  const again = (await api(d2.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json;
  assert.equal(again.state, 'failed', 'not "interrupted" after a restart');
  assert.equal(again.error, job.error);
  assert.equal(again.finished_at, job.finished_at, 'the time it ended, not the time it was written');
});
