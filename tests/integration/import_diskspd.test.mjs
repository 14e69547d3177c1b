// DiskSpd results as users publish them, through the API: a text report
// run with -F2 (a pool of 2 threads) is 2 threads; a file holding two
// complete reports (two drives, notes between) is two runs with their own
// targets and numbers, once however often it is imported; threads that
// the command line, the parameters, "thread count:" and the thread table
// (or the XML's <ThreadCount>s and <Thread> elements) disagree on are
// named in a warning; numbers no tool could print (1e-300 s, inf, a hex
// float, a queue depth of 10^8, a negative or NaN percentile, percentiles
// that fall) are refused with the field and the line, and leave the
// archive as it was. What the files state beside the rates is kept as
// they state it: -L's latency percentiles at DiskSpd's own levels (the
// text's "3-nines" is 99.9, the XML's <Percentile>99.99 99.99), min and
// max, bytes, I/Os and the test time; a table goes only to the tests
// whose I/Os it describes (the XML's one target, the text's "total:"
// table), never a target's table to the tests of all targets.
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
import { startDaemon, api, runCsv } from '../lib/daemon.mjs';

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
const FIVE = shared && path.join(shared, 'diskspd', 'diskspd-text-5targets-115threads-bom-no-cmdline.txt');
const fiveOpts = { skip: FIVE && fs.existsSync(FIVE) ? false : 'no shared fixtures (set STORBENCH_FIXTURES)' };

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
  return { status: r.status, type: r.headers.get('content-type'), json: await r.json() };
}
const runCount = async () => (await api(d.url, 'GET', '/api/v1/runs')).json.total;
const getRun = async (id) => (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
const test1 = (run, rw) => run.tests.find((t) => t.rw === rw);
const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
// DiskSpd prints latencies as %.3f ms: the µs as a decimal, exactly
const us = (ms) => {
  assert.match(ms, /^\d+\.\d{3}$/);
  return Number(ms.replace('.', ''));
};
// the text report's percentile levels, "25th" … "9-nines"
const TEXT_LEVELS = ['25', '50', '75', '90', '95', '99', '99.9', '99.99', '99.999', '99.9999', '99.99999',
  '99.999999', '99.9999999'];
const levelsOf = (lat) => Object.keys(lat.percentiles).sort((a, b) => a - b);
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
  // 2.0.x's one -L table (no "total:" heading: one target), the read
  // test its Read column, the write test its Write column
  const [r0, w0] = [rd.iterations[0], wr.iterations[0]];
  assert.deepEqual([r0.bytes, r0.ios, r0.seconds], [269783040, 65865, 600]);
  assert.deepEqual([w0.bytes, w0.ios, w0.seconds], [268537856, 65561, 600]);
  assert.deepEqual([r0.latency_us.min, r0.latency_us.max], [133, 2087053]);
  assert.deepEqual([w0.latency_us.min, w0.latency_us.max], [118, 3040254]);
  assert.equal(r0.latency_us.of, 'lat');
  assert.deepEqual([r0.latency_us.p50, r0.latency_us.p99, r0.latency_us['p99.9']], [283494, 1150540, 1413403]);
  assert.deepEqual([w0.latency_us.p50, w0.latency_us.p99, w0.latency_us['p99.9']], [127788, 1010959, 1353083]);
  assert.equal(w0.latency_us.percentiles['99.99'], 2079811, '2079.811 ms is 2079811 µs, not 2079811.0000000002');
  assert.deepEqual(levelsOf(r0.latency_us), TEXT_LEVELS, 'min and max are not levels; nothing in between');
  assert.equal(r0.latency_us.percentiles['99.9999999'], 2087053, '9-nines');
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
  const p99 = lineOf(f2, '   99th |');
  const cases = [
    ['a test time of 1e-300 s', f2.replace('600.00s', '1e-300s'),
      new RegExp(`^body: line ${time}: test time \\(s\\) 1e-300 out of range \\(0\\.001 … 10000000\\)$`)],
    ['an infinite test time', f2.replace('600.00s', 'infs'), new RegExp(`^body: line ${time}: test time \\(s\\): not a number$`)],
    ['a hex float block size', f2.replace('block size: 4096', 'block size: 0x1p20'), new RegExp(`line ${bs}: block size \\(B\\): not a number`)],
    ['a queue depth of 10^8', f2.replace('operations: 32', 'operations: 100000000'), new RegExp(`line ${qd}: queue depth 100000000 out of range`)],
    ['an I/O count of inf', f2.replace('|        65865 |', '|          inf |'), new RegExp(`line ${total}: count: not a number`)],
    ['a negative percentile', f2.replace('99th |   1150.540 |', '99th |  -1150.540 |'),
      new RegExp(`^body: line ${p99}: latency \\(µs\\) -1150540 out of range`)],
    ['a NaN percentile', f2.replace('99th |   1150.540 |', '99th |        nan |'), new RegExp(`^body: line ${p99}: latency \\(ms\\): not a number$`)],
    ['an infinite maximum', f2.replace('max |   2087.053 |', 'max |        inf |'), new RegExp(`^body: line ${p99 + 8}: latency \\(ms\\): not a number$`)],
    ['a percentile below the one before', f2.replace('99th |   1150.540 |', '99th |    900.000 |'),
      new RegExp(`^body: line ${p99}: latency percentile row 99th: Read 900 ms is below the row before's 911\\.805 ms`)],
    ['rows out of order', f2.replace('   95th |', '   75th |'), new RegExp(`^body: line ${p99 - 1}: latency percentile row 75th: its level is not above`)],
    ['a level DiskSpd does not print', f2.replace('   90th |', '   80th |'), new RegExp(`^body: line ${p99 - 2}: not a latency percentile row DiskSpd prints`)],
    ['a row without its Total', f2.replace(/(99th \|   1150\.540 \|   1010\.959) \|   1088\.947/, '$1'),
      new RegExp(`^body: line ${p99}: latency percentile row 99th: not Read \\| Write \\| Total$`)],
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
      ['XML: a NaN percentile', xml.replace('<ReadMilliseconds>21.897<', '<ReadMilliseconds>nan<'),
        new RegExp(`line ${lineOf(xml, '<ReadMilliseconds>21.897<')}: <ReadMilliseconds>: not a number`)],
      ['XML: a negative percentile', xml.replace('<WriteMilliseconds>4.184<', '<WriteMilliseconds>-4.184<'),
        new RegExp(`line ${lineOf(xml, '<WriteMilliseconds>4.184<')}: latency \\(µs\\) -4184 out of range .*<WriteMilliseconds>`)],
      ['XML: a percentile below the one before', xml.replace('<ReadMilliseconds>23.166<', '<ReadMilliseconds>20.000<'),
        new RegExp(`line ${lineOf(xml, '<Percentile>99.9<')}: latency percentile row <Percentile>99\\.9: Read 20 ms is below the row before's 21\\.897 ms`)],
      ['XML: a level above 100', xml.replace('<Percentile>100<', '<Percentile>101<'),
        new RegExp(`line ${lineOf(xml, '<Percentile>100<')}: percent.* 101 out of range .*<Percentile>`)],
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

test('DiskSpd XML -L: every <Percentile> at its level, the read test Read, the write test Write', xmlOpts, async () => {
  const xml = fs.readFileSync(xmlFile, 'utf8');
  const r = await post(xml);
  assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.json));
  const run = await getRun(r.json.id);
  // the file's 108 buckets: 0 (the minimum), 1 … 99, 99.9 … 99.9999999, 100 (the maximum)
  const buckets = [...xml.matchAll(/<Bucket>\s*<Percentile>([^<]*)<\/Percentile>\s*<ReadMilliseconds>([^<]*)<\/ReadMilliseconds>\s*<WriteMilliseconds>([^<]*)<\/WriteMilliseconds>/g)];
  assert.equal(buckets.length, 108);
  const csv = await runCsv(d.url, run.id);
  for (const [rw, col, bytes, ios, min, max, p99, p999] of [
    ['read', 2, 152215552, 37162, 45, 33846, 21897, 23166],
    ['write', 3, 64524288, 15753, 1117, 10958, 4184, 6649],
  ]) {
    const it = test1(run, rw).iterations[0];
    assert.deepEqual([it.bytes, it.ios, it.seconds], [bytes, ios, 120.01], `${rw}: <${rw === 'read' ? 'Read' : 'Write'}Bytes>, …Count, <TestTimeSeconds>`);
    const lat = it.latency_us;
    assert.equal(lat.of, 'lat');
    assert.deepEqual([lat.min, lat.max], [min, max], `${rw}: <Percentile>0 and 100`);
    assert.deepEqual([lat.p99, lat['p99.9']], [p99, p999]);
    assert.deepEqual(levelsOf(lat), buckets.slice(1, -1).map((b) => b[1]), `${rw}: 1 … 99, 99.9 … 99.9999999, as printed`);
    for (const b of buckets.slice(1, -1)) assert.equal(lat.percentiles[b[1]], us(b[col]), `${rw} <Percentile>${b[1]}`);
    assert.ok(!('0' in lat.percentiles) && !('100' in lat.percentiles), 'min and max are not percentiles');
    assert.ok(!('99.5' in lat.percentiles) && !('99.95' in lat.percentiles), 'a level the file does not state is absent');
    const row = csv.find((x) => x.test === 'RND4K Q1T1 W30' && x.rw === rw);
    assert.equal(Number(row.lat_p99_us), p99);
    assert.equal(Number(row['lat_p99.9_us']), p999);
    assert.equal(Number(row.lat_max_us), max);
    assert.equal(Number(row.bytes), bytes);
    assert.equal(Number(row.ios), ios);
  }
  assert.equal(test1(run, 'read').iterations[0].latency_us.percentiles['22'], 2038, '2.038 ms is 2038 µs exactly');
  // the run's own document imports again with every level
  const doc = await (await fetch(`${d.url}/api/v1/runs/${run.id}?format=storbench`)).text();
  const other = await startDaemon({ bin, dataDir: path.join(root, 'data-doc'), quiet: true });
  try {
    const again = await fetch(`${other.url}/api/v1/import`, { method: 'POST', body: doc });
    const j = await again.json();
    assert.equal(again.status, 201, JSON.stringify(j));
    for (const rw of ['read', 'write']) assert.deepEqual(test1(j, rw).iterations, test1(run, rw).iterations);
  } finally {
    await other.stop();
  }
});

test('DiskSpd XML with two targets: the timespan\'s table describes neither, so neither gets it', xmlOpts, async () => {
  // each <Target> (the profile's, the results') again for a second file
  const xml = fs.readFileSync(xmlFile, 'utf8')
    .replace(/<Target>[\s\S]*?<\/Target>/g, (m) => m + m.replace('<Path>diskspd.test<', '<Path>other.test<'));
  const r = await post(xml);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const run = await getRun(r.json.id);
  assert.equal(run.tests.length, 4, JSON.stringify(run.tests.map((t) => t.test)));
  for (const t of run.tests) {
    const it = t.iterations[0];
    assert.deepEqual([it.bytes, it.seconds], [t.rw === 'read' ? 152215552 : 64524288, 120.01], 'its own target\'s bytes');
    assert.equal(it.latency_us, null, `${t.test} ${t.rw}: no latency table of its own`);
    assert.ok(it.lat_mean_us > 0, 'the mean is the target\'s own');
  }
});

test('DiskSpd text, 5 targets: the "total:" table is the test\'s, the targets\' tables are not', fiveOpts, async () => {
  const r = await post(fs.readFileSync(FIVE));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const run = await getRun(r.json.id);
  assert.deepEqual(run.tests.map((t) => `${t.test} ${t.rw}`), ['RND8K Q22T23 5 files write'], 'write only: no read test');
  const it = run.tests[0].iterations[0];
  // the Write IO total row and the actual test time
  assert.deepEqual([it.bytes, it.ios, it.seconds], [162301329408, 19812174, 60.02]);
  const lat = it.latency_us;
  assert.equal(lat.of, 'lat');
  // the "total:" table's Write column (E:'s table says 0.015, 24.265, 2985.491)
  assert.deepEqual([lat.min, lat.p50, lat.p90, lat.p99, lat['p99.9'], lat['p99.99'], lat.max],
    [15, 1520, 7472, 368150, 398986, 444879, 3134107]);
  assert.deepEqual(levelsOf(lat), TEXT_LEVELS);
  assert.deepEqual(TEXT_LEVELS.slice(6).map((k) => lat.percentiles[k]), [398986, 444879, 1609390, 2985491, 3132189, 3134107, 3134107]);
  const row = (await runCsv(d.url, run.id))[0];
  assert.equal(Number(row.lat_p99_us), 368150);
});

// bad input: a 422 problem naming the line, and no run stored
async function refused(body, re) {
  const before = await runCount();
  const r = await post(Buffer.from(body, 'latin1'));
  assert.equal(r.status, 422, JSON.stringify(r.json));
  assert.match(r.type, /^application\/problem\+json/);
  assert.match(r.json.detail, re);
  assert.equal(await runCount(), before, 'nothing stored');
  return r;
}

test('DiskSpd targets: the whole path, never cut; a path too long is refused, one in another encoding made fit', fiveOpts, async () => {
  const r = await post(fs.readFileSync(FIVE));
  assert.equal((await getRun(r.json.id)).probe.device, 'E:\\diskspd-test.dat');
  const xr = await post(fs.readFileSync(xmlFile));
  assert.equal((await getRun(xr.json.id)).probe.device, 'diskspd.test', 'the <Path> as written');
  const f2 = bytes(F2);
  const long = `D:\\very\\long\\directory\\${'sub\\'.repeat(40)}diskspd.test`;
  const lr = await post(Buffer.from(f2.replace('C:\\testfile.foo', long), 'latin1'));
  assert.equal(lr.status, 201, JSON.stringify(lr.json));
  assert.equal((await getRun(lr.json.id)).probe.device, long);
  const at = lineOf(f2, 'path:');
  await refused(f2.replace('C:\\testfile.foo', `D:\\${'x'.repeat(800)}`), new RegExp(`^body: line ${at}: path: `));
  // a Latin-1 path (a real file's own encoding) imports: the byte that is
  // not UTF-8 becomes '?', as in every text field of an import
  const l1 = await post(Buffer.from(f2.replace('C:\\testfile.foo', 'E:\\disk\xf3pd.dat'), 'latin1'));
  assert.equal(l1.status, 201, JSON.stringify(l1.json));
  assert.equal((await getRun(l1.json.id)).probe.device, 'E:\\disk?pd.dat');
  const x = fs.readFileSync(xmlFile, 'utf8');
  const xat = lineOf(x, '<Path>');
  await refused(x.replace(/<Path>[^<]*<\/Path>/g, `<Path>E:\\${'x'.repeat(800)}</Path>`), new RegExp(`^body: line ${xat}: Path: `));
});

test('DiskSpd text cut short inside the Write IO table: refused at its last line', async () => {
  const f2 = bytes(F2);
  const lines = f2.split('\n');
  const w = lineOf(f2, 'Write IO');
  const cut = lines.slice(0, w + 3).join('\n');
  await refused(cut, new RegExp(`^body: line ${w + 3}: the report stops here, before the Write IO table's "total:" row`));
});

test('DiskSpd text, 5 targets: without the "total:" table\'s max row, no max', fiveOpts, async () => {
  const five = fs.readFileSync(FIVE, 'utf8');
  const r = await post(Buffer.from(five.replace(/\n +max \|[^\n]*$/, '')));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const lat = (await getRun(r.json.id)).tests[0].iterations[0].latency_us;
  assert.equal(lat.max ?? null, null, 'the file states no max for the test');
  assert.deepEqual([lat.min, lat.p50, lat.percentiles['99.9999999']], [15, 1520, 3134107]);
});
