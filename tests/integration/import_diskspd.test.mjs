// DiskSpd results as users publish them, through the API: a text report
// run with -F2 (a pool of 2 threads) is 2 threads; a file holding two
// complete reports (two drives, notes between) is two runs with their own
// targets and numbers, once however often it is imported; threads that
// the command line, the parameters, "thread count:" and the thread table
// (or the XML's <ThreadCount>s and <Thread> elements) disagree on are
// named in a warning; numbers no tool could print (1e-300 s, inf, a hex
// float, a queue depth of 10^8) are refused with the field and the line,
// and leave the archive as it was.
//
// Fixtures: tests/fixtures/import/diskspd (each with its .source) and
// ../shared/fixtures/diskspd.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test import_diskspd.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, api } from '../lib/daemon.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const own = (name) => path.join(repo, 'tests', 'fixtures', 'import', 'diskspd', name);
const shared = process.env.STORBENCH_FIXTURES ??
  [path.resolve(repo, '..', 'shared', 'fixtures'), '/work/shared/fixtures'].find((p) => fs.existsSync(p));
const xmlFile = shared && path.join(shared, 'diskspd', 'diskspd-2.0.21a-rxml-mix30w-iops-buckets.xml');
const xmlOpts = { skip: xmlFile && fs.existsSync(xmlFile) ? false : 'no shared fixtures (set STORBENCH_FIXTURES)' };

const F2 = own('diskspd-2.0.x-text-F2-mix50-cp1251-wrapped-cmdline.txt');
const TWO = own('diskspd-2.0.x-text-two-runs-F2-hdd-ssd-prose.txt');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'import-diskspd-'));
const d = await startDaemon({ bin, dataDir: path.join(root, 'data'), allow: [root], quiet: true });
after(async () => {
  await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

async function post(body, name) {
  const q = name ? `?filename=${encodeURIComponent(name)}` : '';
  const r = await fetch(`${d.url}/api/v1/import${q}`,
    { method: 'POST', body, headers: { 'Content-Type': 'application/octet-stream' } });
  return { status: r.status, json: await r.json() };
}
const runCount = async () => (await api(d.url, 'GET', '/api/v1/runs')).json.total;
const getRun = async (id) => (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
const test1 = (run, rw) => run.tests.find((t) => t.rw === rw);
const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
// a file's text with its bytes kept (the -F2 file's notes are CP1251)
const bytes = (f) => fs.readFileSync(f).toString('latin1');
const lineOf = (text, what) => text.split('\n').findIndex((l) => l.includes(what)) + 1;

test('-F2: a pool of 2 threads, as "thread count:" and the thread table say', async () => {
  const r = await post(fs.readFileSync(F2), path.basename(F2));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.runs.length, 1);
  const run = await getRun(r.json.id);
  assert.deepEqual(run.tests.map((t) => `${t.test} ${t.rw}`).sort(), ['RND4K Q32T2 W50 read', 'RND4K Q32T2 W50 write']);
  const rd = test1(run, 'read');
  const wr = test1(run, 'write');
  for (const t of [rd, wr]) {
    assert.equal(t.threads, 2);
    assert.equal(t.queue_depth, 32);
    assert.equal(t.block_size, 4096);
  }
  // the Read IO and Write IO total rows over 600.00 s
  assert.equal(rd.best.iops, 109.77);
  assert.equal(wr.best.iops, 109.27);
  close(rd.best.mb_s, 269783040 / 600 / 1e6, 'read MB/s');
  close(wr.best.mb_s, 268537856 / 600 / 1e6, 'write MB/s');
  assert.equal(rd.best.lat_mean_us, 363914);
  assert.equal(wr.best.lat_mean_us, 220411);
  assert.equal(run.probe.device, 'C:\\testfile.foo');
  assert.deepEqual(run.warnings, [], 'the sources agree: nothing to warn of');
});

test('two complete reports in one file are two runs, stored once', async () => {
  const before = await runCount();
  const r = await post(fs.readFileSync(TWO), path.basename(TWO));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.runs.length, 2);
  assert.equal(await runCount(), before + 2);
  const [hdd, ssd] = await Promise.all(r.json.runs.map((x) => getRun(x.id)));
  assert.equal(r.json.id, r.json.runs[0].id, 'the answer is the first run');
  // each with its own target and the numbers of its own total rows
  assert.equal(hdd.probe.device, 'C:\\testfile.foo');
  assert.equal(ssd.probe.device, 'D:\\testfile.foo');
  for (const [run, rIops, wIops, rBytes, wBytes, rLat] of [
    [hdd, 197.44, 195.97, 485220352, 481611776, 119536],
    [ssd, 25197.22, 25248.01, 61925138432, 62049964032, 1270],
  ]) {
    assert.deepEqual(run.tests.map((t) => t.test), ['RND4K Q32T2 W50', 'RND4K Q32T2 W50'], 'no "2 files"');
    assert.equal(test1(run, 'read').best.iops, rIops);
    assert.equal(test1(run, 'write').best.iops, wIops);
    close(test1(run, 'read').best.mb_s, rBytes / 600 / 1e6, 'read MB/s');
    close(test1(run, 'write').best.mb_s, wBytes / 600 / 1e6, 'write MB/s');
    assert.equal(test1(run, 'read').best.lat_mean_us, rLat);
    assert.equal(test1(run, 'read').threads, 2);
  }
  assert.equal(r.json.runs[0].tests, 2);
  assert.equal(r.json.runs[1].tests, 2);
  // again: both runs known, nothing new
  const again = await post(fs.readFileSync(TWO), path.basename(TWO));
  assert.equal(again.status, 200, JSON.stringify(again.json));
  assert.equal(again.json.duplicate, true);
  assert.deepEqual(again.json.runs.map((x) => [x.id, x.duplicate]), r.json.runs.map((x) => [x.id, true]));
  assert.equal(await runCount(), before + 2);
});

test('numbers no tool could print are refused with the field and the line', async () => {
  const before = await runCount();
  const f2 = bytes(F2);
  const time = lineOf(f2, 'actual test time:');
  const bs = lineOf(f2, 'block size:');
  const qd = lineOf(f2, 'outstanding I/O operations');
  const total = f2.split('\n').findIndex((l, i) => i > lineOf(f2, 'Read IO') && l.startsWith('total:')) + 1;
  const cases = [
    ['a test time of 1e-300 s', f2.replace('600.00s', '1e-300s'),
      new RegExp(`^body: line ${time}: test time \\(s\\) 1e-300 out of range \\(0\\.001 … 10000000\\)$`)],
    ['an infinite test time', f2.replace('600.00s', 'infs'), new RegExp(`^body: line ${time}: test time \\(s\\): not a number$`)],
    ['a hex float block size', f2.replace('block size: 4096', 'block size: 0x1p20'), new RegExp(`line ${bs}: block size \\(B\\): not a number`)],
    ['a queue depth of 10^8', f2.replace('operations: 32', 'operations: 100000000'), new RegExp(`line ${qd}: queue depth 100000000 out of range`)],
    ['an I/O count of inf', f2.replace('|        65865 |', '|          inf |'), new RegExp(`line ${total}: count: not a number`)],
  ];
  if (xmlFile && fs.existsSync(xmlFile)) {
    const xml = fs.readFileSync(xmlFile, 'utf8');
    const xt = lineOf(xml, '<TestTimeSeconds>');
    cases.push(
      ['XML: a test time of 1e-300 s', xml.replace('<TestTimeSeconds>120.01<', '<TestTimeSeconds>1e-300<'),
        new RegExp(`line ${xt}: test time \\(s\\) 1e-300 out of range .*<TestTimeSeconds>`)],
      ['XML: a hex float block size', xml.replace('<BlockSize>4096<', '<BlockSize>0x1p12<'),
        new RegExp(`line ${lineOf(xml, '<BlockSize>')}: <BlockSize>: not a number`)],
      ['XML: inf bytes', xml.replace('<ReadBytes>152215552<', '<ReadBytes>inf<'), /<ReadBytes>: not a number/],
    );
  }
  for (const [what, text, re] of cases) {
    assert.ok(text !== f2 && text !== fs.readFileSync(xmlFile ?? F2, 'utf8'), `${what}: the edit took`);
    const r = await post(Buffer.from(text, 'latin1'));
    assert.equal(r.status, 422, `${what}: ${r.status} ${JSON.stringify(r.json)}`);
    assert.equal(r.json.field, 'body', what);
    assert.match(r.json.detail, re, what);
  }
  assert.equal(await runCount(), before, 'nothing was written');
});

test('thread counts that disagree: the thread table is believed, and the run says so', async () => {
  // the report's "thread count:" says 3, the table has threads 0 and 1
  const text = bytes(F2).replace(/thread count:( +)2/, 'thread count:$13');
  const r = await post(Buffer.from(text, 'latin1'));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const run = await getRun(r.json.id);
  assert.equal(test1(run, 'read').threads, 2);
  assert.equal(test1(run, 'read').test, 'RND4K Q32T2 W50');
  assert.equal(run.warnings.length, 1, JSON.stringify(run.warnings));
  assert.match(run.warnings[0], /thread counts disagree \(-F 2, "thread count:" 3, thread table 2\): believed the thread table's 2/);
});

test('DiskSpd XML: -F in the profile against the <Thread> elements', xmlOpts, async () => {
  // the profile's <ThreadCount> (first in the file) 2: a pool of 2; the
  // results count 1 and hold one <Thread>
  const xml = fs.readFileSync(xmlFile, 'utf8');
  const r = await post(xml.replace('<ThreadCount>0</ThreadCount>', '<ThreadCount>2</ThreadCount>'));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const run = await getRun(r.json.id);
  assert.equal(test1(run, 'read').threads, 1);
  assert.equal(test1(run, 'read').test, 'RND4K Q1T1 W30');
  assert.match(run.warnings[0], /thread counts disagree: the profile says 2 \(<ThreadCount>\), the results' <ThreadCount> 1, 1 <Thread> elements: believed the elements/);
  // as DiskSpd wrote it: they agree, no warning
  const plain = await post(xml);
  assert.ok(plain.status === 201 || plain.status === 200, JSON.stringify(plain.json));
  assert.deepEqual((await getRun(plain.json.id)).warnings, []);
});
