// storbench's own runs between servers: a native run's document
// (GET /api/v1/runs/{id}?format=storbench, `storbench run --json`) imported
// into another archive is the same run — the same JSON, samples and
// exports byte for byte but its id, job and import note — under the same
// uuid, so a second import is a duplicate; `storbench push` and
// `run --push` send runs to another daemon (with its token); a document
// changed by hand, a running run or a broken histogram is a 422 that
// stores nothing; the API's plain GET imports with a warning saying what
// it could not carry.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test transfer.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startDaemon, api, waitJob, runCommand } from '../lib/daemon.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'transfer-'));
const dirA = path.join(root, 'a');
const dirB = path.join(root, 'b');
const a = await startDaemon({ bin, dataDir: dirA, quiet: true });
const b = await startDaemon({ bin, dataDir: dirB, quiet: true, args: ['--require-token'] });
const tokenB = fs.readFileSync(path.join(dirB, 'api-token'), 'utf8').trim();
const authB = { Authorization: `Bearer ${tokenB}` };
after(async () => {
  await a.stop().catch(() => {});
  await b.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

async function get(d, p, headers = {}) {
  const r = await fetch(`${d.url}${p}`, { headers });
  return { status: r.status, text: await r.text() };
}

async function importDoc(d, body, query = '', headers = {}) {
  const r = await fetch(`${d.url}/api/v1/import${query}`, { method: 'POST', body, headers });
  const text = await r.text();
  return { status: r.status, json: JSON.parse(text) };
}

const total = async (d, headers = {}) => JSON.parse((await get(d, '/api/v1/runs', headers)).text).total;

// The run's JSON text without what differs by design between two archives:
// its id, its job (an imported run has none) and the import note.
function sameParts(text) {
  const o = JSON.parse(text);
  delete o.id;
  delete o.job_id;
  delete o.import;
  return o;
}

// the raw texts must match too: the numbers as the daemon printed them
function numbersOf(text) {
  return text.replace(/^\{"id":\d+,/, '{').replace(/"job_id":(\d+|null),/, '').replace(/,"import":(null|\{[^}]*\})/, '')
    .match(/-?\d+(\.\d+)?(e[+-]?\d+)?/g);
}

// A native run on A: two tests (one a thread sweep), two iterations each.
const job = (await api(a.url, 'POST', '/api/v1/jobs', {
  profile: 'custom', size: '8MiB', duration_s: 1, iterations: 2, labels: ['transfer'], notes: 'from A',
  tests: [{ read_pct: 70, block_size: '4KiB', queue_depth: 4 }, { read_pct: 100, block_size: '64KiB', threads: [1, 2] }],
})).json;
const done = await waitJob(a.url, job.id, 180000);
assert.equal(done.state, 'done', done.error);
const runA = done.run_id;

let restoredB; // the run the first test restored in B
test('a native run imported elsewhere is the same run, byte for byte', async () => {
  const doc = await get(a, `/api/v1/runs/${runA}?format=storbench`);
  assert.equal(doc.status, 200);
  const d = JSON.parse(doc.text);
  assert.deepEqual(d.document, { format: 'storbench-run', version: 1, storbench: JSON.parse(doc.text).engine.version });
  assert.match(d.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.ok(d.samples.length >= 6, `samples: ${d.samples.length}`);
  for (const t of d.tests)
    for (const it of t.iterations) {
      assert.ok(it.raw.window_ns > 0 && Number.isInteger(it.raw.lat_sum_ns));
      assert.ok(it.raw.histogram.length > 40, 'a histogram per iteration');
    }

  const before = await total(b, authB);
  const imp = await importDoc(b, doc.text, '?filename=run.json', authB);
  assert.equal(imp.status, 201, JSON.stringify(imp.json));
  assert.equal(imp.json.duplicate, false);
  assert.equal(imp.json.runs.length, 1);
  assert.equal(imp.json.uuid, d.uuid);
  assert.equal(imp.json.import.tool, 'storbench');
  assert.equal(imp.json.import.format, 'storbench');
  assert.equal(imp.json.job_id, null);
  const runB = imp.json.id;
  restoredB = runB;
  assert.equal(await total(b, authB), before + 1);

  const ja = await get(a, `/api/v1/runs/${runA}`);
  const jb = await get(b, `/api/v1/runs/${runB}`, authB);
  assert.deepEqual(sameParts(jb.text), sameParts(ja.text));
  assert.deepEqual(numbersOf(jb.text), numbersOf(ja.text));
  // merged latency over iterations comes from the restored histograms
  const lat = JSON.parse(jb.text).tests[0].latency_us;
  assert.ok(lat && lat.p99 > 0 && lat.ios > 0, JSON.stringify(lat));
  // samples and the CrystalDiskMark text: the same bytes
  assert.equal((await get(b, `/api/v1/runs/${runB}/samples`, authB)).text, (await get(a, `/api/v1/runs/${runA}/samples`)).text);
  assert.equal((await get(b, `/api/v1/runs/${runB}?format=cdm`, authB)).text, (await get(a, `/api/v1/runs/${runA}?format=cdm`)).text);
  // its own document again: the same apart from id, job and import
  const back = JSON.parse((await get(b, `/api/v1/runs/${runB}?format=storbench`, authB)).text);
  for (const k of ['id', 'job_id', 'import']) { delete back[k]; delete d[k]; }
  assert.deepEqual(back, d);
  // the original document is kept, byte for byte
  assert.equal((await get(b, `/api/v1/runs/${runB}/original`, authB)).text, doc.text);

  // a second import of the same run: a duplicate, nothing written
  const again = await importDoc(b, doc.text, '', authB);
  assert.equal(again.status, 200);
  assert.equal(again.json.duplicate, true);
  assert.equal(again.json.id, runB);
  assert.equal(await total(b, authB), before + 1);
  // the same run through its pretty-printed document is the same uuid
  const pretty = JSON.stringify(d, null, 2);
  const again2 = await importDoc(b, pretty, '', authB);
  assert.equal(again2.status, 200);
  assert.equal(again2.json.runs[0].duplicate, true);
});

test('storbench push and run --push send runs to another daemon', async () => {
  const tokenFile = path.join(dirB, 'api-token');
  const before = await total(b, authB);
  // without the token B refuses; the answer is printed, exit 1
  const refused = await runCommand(bin, ['push', '--data', dirA, b.url, String(runA)]);
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /answered 401/);
  // already there (the first test imported it): said so, exit 0
  const p = await runCommand(bin, ['push', '--data', dirA, '--token-file', tokenFile, b.url, String(runA)]);
  assert.equal(p.status, 0, p.stderr);
  assert.match(p.stdout, new RegExp(`^run ${runA}: already there as run \\d+ at ${b.url}\\n$`));
  // a run this archive does not have: exit 1, nothing sent
  const none = await runCommand(bin, ['push', '--data', dirA, '--token-file', tokenFile, b.url, '999']);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /run 999: no such run in this archive/);
  for (const url of ['ftp://127.0.0.1/', `${b.url}/x?a=b`, '127.0.0.1:80']) {
    const bad = await runCommand(bin, ['push', '--data', dirA, url, String(runA)]);
    assert.equal(bad.status, 2, url);
    assert.match(bad.stderr, /an http:\/\/ or https:\/\/ URL without a query/);
  }
  // a token file others may read: refused before the run, not after it
  const loose = path.join(root, 'loose-token');
  fs.writeFileSync(loose, tokenB, { mode: 0o644 });
  fs.chmodSync(loose, 0o644);
  const t0 = Date.now();
  const early = await runCommand(bin, ['run', '--push', b.url, '--token-file', loose, '--data', path.join(root, 'x'), root]);
  assert.equal(early.status, 2, early.stderr);
  assert.match(early.stderr, /others may read it/);
  assert.ok(Date.now() - t0 < 5000, 'no benchmark ran');
  assert.equal(await total(b, authB), before);

  // a run here and now, pushed when done; its --json output imports too
  const dirC = path.join(root, 'c');
  const tgt = path.join(root, 'tgt');
  fs.mkdirSync(tgt);
  // (not spawnSync: the run takes longer than the daemons' idle timeout)
  const r = await runCommand(bin, ['run', '--profile', 'cdm-default', '--size', '8MiB', '--iterations', '1', '--duration', '1',
    '--data', dirC, '--json', '--push', b.url, '--token-file', tokenFile, tgt]);
  assert.equal(r.status, 0, r.stderr);
  // stdout is the document alone; what the other daemon said is on stderr
  const runDoc = JSON.parse(r.stdout);
  assert.equal(runDoc.document.format, 'storbench-run');
  const m = r.stderr.match(/run (\d+): imported as run (\d+) at /);
  assert.ok(m, r.stderr.slice(-300));
  const pushed = JSON.parse((await get(b, `/api/v1/runs/${m[2]}`, authB)).text);
  assert.equal(pushed.uuid, runDoc.uuid);
  assert.equal(pushed.tests.length, 8);
  assert.deepEqual(pushed.tests.map((t) => t.best.mb_s), runDoc.tests.map((t) => t.best.mb_s));
  // a pushed run is storbench's own measurement, not another tool's: it
  // compares with its iterations' spread, without the imported warning
  const cmp = JSON.parse((await get(b, `/api/v1/compare?runs=${m[2]},${restoredB}`, authB)).text);
  assert.ok(!cmp.warnings.some((w) => /imported from/.test(w)), JSON.stringify(cmp.warnings));
  const listed = cmp.sides.flatMap((s) => s.runs);
  assert.equal(listed.length, 2);
  assert.ok(listed.every((x) => x.imported === false), JSON.stringify(listed));
  // storbench import of the printed document into a third archive
  const docFile = path.join(root, 'run.json');
  fs.writeFileSync(docFile, JSON.stringify(runDoc));
  const dirD = path.join(root, 'd');
  const im = execFileSync(bin, ['import', '--data', dirD, docFile], { encoding: 'utf8' });
  assert.match(im, /imported as run 1 \(storbench [0-9.]+, 8 tests\)/);
  const im2 = execFileSync(bin, ['import', '--data', dirD, docFile], { encoding: 'utf8' });
  assert.match(im2, /already imported as run 1/);
});

test('a run cancelled mid-iteration moves too: the stopped iteration\'s seconds stay behind', async () => {
  const r = await api(a.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '8MiB', duration_s: 1, iterations: 3,
    tests: [{ name: 'W', read_pct: 0 }] });
  assert.equal(r.status, 202, r.text);
  // into iteration 2 (its first second streamed), then cancelled
  for (let i = 0; i < 100; i++) {
    const j = (await api(a.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json;
    if (j.progress?.iteration === 2 && j.progress?.phase === 'measuring') break;
    await new Promise((res) => setTimeout(res, 50));
  }
  await new Promise((res) => setTimeout(res, 600));
  assert.equal((await api(a.url, 'DELETE', `/api/v1/jobs/${r.json.id}`)).status, 202);
  const j = await waitJob(a.url, r.json.id, 30000);
  assert.equal(j.state, 'cancelled');
  const run = JSON.parse((await get(a, `/api/v1/runs/${j.run_id}`)).text);
  assert.deepEqual(run.tests[0].iterations.map((it) => it.iteration), [1]);
  const stored = JSON.parse((await get(a, `/api/v1/runs/${j.run_id}/samples`)).text).samples;
  assert.ok(stored.some((s) => s.iteration === 2), 'the stopped iteration\'s seconds are kept where they were measured');
  const text = (await get(a, `/api/v1/runs/${j.run_id}?format=storbench`)).text;
  const doc = JSON.parse(text);
  assert.deepEqual([...new Set(doc.samples.map((s) => s.iteration))], [1]);
  const imp = await importDoc(b, text, '', authB);
  assert.equal(imp.status, 201, JSON.stringify(imp.json));
  const back = (await get(b, `/api/v1/runs/${imp.json.runs[0].id}?format=storbench`, authB)).text;
  assert.deepEqual(JSON.parse(back).samples, doc.samples);
});

test('a document changed by hand, a running run, a broken histogram: 422, nothing stored', async () => {
  const text = (await get(a, `/api/v1/runs/${runA}?format=storbench`)).text;
  const fresh = () => { const o = JSON.parse(text); o.uuid = o.uuid.replace(/^.{8}/, 'abcdef01'); return o; };
  const before = await total(b, authB);
  const cases = [
    ['a faster MB/s than its counts give', (o) => { o.tests[0].iterations[0].mb_s *= 1.5; }, /tests\[0\]\.iterations\[0\]: MB\/s .* do not follow from its counts/],
    ['a run still running', (o) => { o.state = 'running'; }, /state: must be one of/],
    ['a histogram that is not one', (o) => { o.tests[1].iterations[1].raw.histogram = 'AAAA'; }, /tests\[1\]\.iterations\[1\]\.raw: histogram: not a storbench latency histogram/],
    ['a negative count', (o) => { o.tests[0].iterations[1].raw.window_ns = -5; }, /tests\[0\]\.iterations\[1\]\.raw\.window_ns/],
    ['no uuid', (o) => { delete o.uuid; }, /uuid: missing/],
    ['a label with a newline', (o) => { o.labels = ['a\nb']; }, /labels\[0\]/],
    ['a sample without its counts', (o) => { delete o.samples[3].write_bytes; }, /samples\[3\]\.write_bytes: missing/],
    ['an upper-case uuid', (o) => { o.uuid = o.uuid.toUpperCase(); }, /uuid: must be a UUID as storbench writes one/],
    ['a uuid that is not one', (o) => { o.uuid = 'gggggggg' + o.uuid.slice(8); }, /uuid: must be a UUID/],
    ['a test twice', (o) => { o.tests.push(o.tests[0]); }, /tests\[3\]: test "RND4K Q4T1 R70" mix is tests\[0\] too/],
    ['an iteration twice', (o) => { o.tests[0].iterations[1] = o.tests[0].iterations[0]; }, /tests\[0\]\.iterations\[1\]: iteration 1 after 1/],
    ['no probe', (o) => { delete o.probe; }, /probe: must be an object/],
    ['a latency sum tripled', (o) => { o.tests[0].iterations[0].raw.lat_sum_ns *= 3; }, /tests\[0\]\.iterations\[0\]: .*do not follow from its counts/],
    ['a latency sum tripled with its mean', (o) => { const it = o.tests[0].iterations[0]; it.raw.lat_sum_ns *= 3; it.lat_mean_us = it.raw.lat_sum_ns / it.ios / 1e3; }, /tests\[0\]\.iterations\[0\]\.raw: histogram: its I\/Os or their latencies are not the iteration's/],
    ['a second of a test it does not have', (o) => { o.samples[0].test = 'NOPE'; }, /samples\[0\]: a second of test "NOPE"/],
    ['a second twice', (o) => { o.samples[1] = o.samples[0]; }, /samples\[1\]: second 0 after second 0/],
    ['a day that does not exist', (o) => { o.started_at = '2026-02-30T10:00:00Z'; }, /started_at: must be a time/],
    ['an end before its start', (o) => { o.finished_at = '2000-01-01T00:00:00Z'; }, /finished_at: before started_at/],
    ['a newer document', (o) => { o.document.version = 2; }, /document\.version/],
    ['a queue depth of 0', (o) => { o.tests[0].queue_depth = 0; }, /tests\[0\]\.queue_depth/],
    ['a pattern storbench does not run', (o) => { o.tests[0].pattern = 'zigzag'; }, /tests\[0\]\.pattern/],
    ['a label twice', (o) => { o.labels = ['x', 'x']; }, /labels/],
    ['the nil uuid', (o) => { o.uuid = '00000000-0000-0000-0000-000000000000'; }, /uuid: must be a UUID/],
    ['its seconds changed', (o) => { o.tests[1].iterations[0].seconds *= 2; }, /tests\[1\]\.iterations\[0\]: .*its seconds/],
    ['a measured iteration said to be imported', (o) => { o.tests[0].iterations[0].raw.imported = true; }, /raw\.imported, yet the run is no import/],
    ['a block size of 0 measured', (o) => { o.tests[0].block_size = 0; }, /a block size of 0 or no bytes/],
    ['a second far beyond its iteration', (o) => { o.samples[0].second = 5000; }, /samples\[0\]: second 5000 of an iteration of/],
  ];
  for (const [what, edit, re] of cases) {
    const o = fresh();
    edit(o);
    const r = await importDoc(b, JSON.stringify(o), '?format=storbench', authB);
    assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.json)}`);
    assert.equal(r.json.field, 'body', what);
    assert.match(r.json.detail, re, what);
  }
  // the uuid of a run here with other iterations: not the same run
  const other = JSON.parse(text);
  other.tests = other.tests.slice(1);
  other.samples = other.samples.filter((x) => other.tests.some((t) => t.test === x.test && t.rw === x.rw));
  const clash = await importDoc(b, JSON.stringify(other), '', authB);
  assert.equal(clash.status, 409, JSON.stringify(clash.json));
  assert.match(clash.json.detail, /uuid .* is run \d+ here, which has other iterations than this document/);
  // broken JSON that means to be a document: its parser says where
  const cut = await importDoc(b, text.slice(0, 2000), '', authB);
  assert.equal(cut.status, 422);
  assert.match(cut.json.detail, /^body: line 1, column \d+: /);
  const broken = await importDoc(b, text.slice(0, 2000), '?format=storbench', authB);
  assert.equal(broken.status, 422);
  assert.match(broken.json.detail, /^body: line 1, column \d+: /);
  assert.equal(await total(b, authB), before);
});

test('the API\'s plain GET imports with a warning saying what it could not carry', async () => {
  const plain = (await get(a, `/api/v1/runs/${runA}`)).text;
  const dirE = path.join(root, 'e');
  const f = path.join(root, 'plain.json');
  fs.writeFileSync(f, plain);
  execFileSync(bin, ['import', '--data', dirE, f], { encoding: 'utf8' });
  const e = await startDaemon({ bin, dataDir: dirE, quiet: true });
  try {
    const run = JSON.parse((await get(e, '/api/v1/runs/1')).text);
    const orig = JSON.parse(plain);
    assert.ok(run.warnings.some((w) => /without its raw counts/.test(w)), JSON.stringify(run.warnings));
    // the rates follow from the counts rounded back: the same doubles
    assert.deepEqual(run.tests.map((t) => t.iterations.map((i) => [i.mb_s, i.iops, i.lat_mean_us])),
      orig.tests.map((t) => t.iterations.map((i) => [i.mb_s, i.iops, i.lat_mean_us])));
    assert.deepEqual(run.tests.map((t) => t.iterations.map((i) => i.latency_us)),
      orig.tests.map((t) => t.iterations.map((i) => i.latency_us)));
    assert.equal(run.tests[0].latency_us, null, 'no histograms, no merged latency');
    assert.deepEqual(JSON.parse((await get(e, '/api/v1/runs/1/samples')).text).samples, []);
  } finally {
    await e.stop();
  }
});
