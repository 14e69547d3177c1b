// Importing other tools' results through the API: every CrystalDiskMark
// fixture in ../shared/fixtures (read there at run time, never copied)
// imports with its key numbers, the look-alike is refused, broken files
// leave the archive unchanged, a file imported twice is one run, the
// original comes back byte for byte, the NTFS vs ReFS set compares
// without inventing a significance, and a deleted run's id is never given
// to a later run.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test import.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, api } from '../lib/daemon.mjs';
import { FIXTURES, missing } from '../lib/fixtures.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixtures = FIXTURES;
const why = missing || null;
if (why) console.log(`skip import tests: ${why}`);
const opts = { skip: why ?? false };
const cdm = (name) => path.join(fixtures, 'crystaldiskmark', name);

const root = fs.mkdtempSync(path.join(path.resolve(out), 'import-'));
const d = await startDaemon({ bin, dataDir: path.join(root, 'data'), allow: [root], quiet: true });
after(async () => {
  await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

async function importFile(file, query = '') {
  const body = fs.readFileSync(file);
  const r = await fetch(`${d.url}/api/v1/import?filename=${encodeURIComponent(path.basename(file))}${query}`,
    { method: 'POST', body, headers: { 'Content-Type': 'application/octet-stream' } });
  const text = await r.text();
  return { status: r.status, json: JSON.parse(text), headers: r.headers };
}

const runCount = async () => (await api(d.url, 'GET', '/api/v1/runs')).json.total;
const best = (run, name, rw) => run.tests.find((t) => t.test === name && t.rw === rw)?.best;

// one or two key numbers per fixture, as the files print them
const expected = {
  'cdm301-ssd-crlf-ja-notes.txt': { version: '3.0.1', tests: 8, checks: [['Seq', 'read', 505.825, null], ['4K QD32', 'write', 174.695, 42650.1]] },
  'cdm520-usb-bitlocker-quoted-superuser.txt': { version: '5.2.0', tests: 8, checks: [['Seq Q32T1', 'read', 140.647, null], ['4K', 'write', 15.317, 3739.5]] },
  'cdm700-utf16le-bom-crlf-hdd.txt': { version: '7.0.0', tests: 8, checks: [['SEQ1M Q8T1', 'read', 101.514, 96.8], ['RND4K Q32T16', 'write', 0.691, 168.7]], lat: ['RND4K Q1T1', 'write', 6152.49] },
  'cdm801-sata-no-trailing-newline.txt': { version: '8.0.1', tests: 8, checks: [['RND4K Q32T1', 'read', 261.929, 63947.5], ['RND4K Q1T1', 'write', 101.729, 24836.2]], comment: 'Samsung 840 EVO 120GB' },
  'cdm804-nvme-mix-1M-iops.txt': { version: '8.0.4', tests: 12, checks: [['SEQ128K Q32T1', 'read', 7429.732, 56684.4], ['RND4K Q32T16', 'mix', 571.979, 139643.3]], lat: ['SEQ1M Q8T1', 'read', 987.81] },
};

test('every CrystalDiskMark fixture imports with its numbers', opts, async () => {
  for (const [name, e] of Object.entries(expected)) {
    const r = await importFile(cdm(name));
    assert.equal(r.status, 201, `${name}: ${JSON.stringify(r.json)}`);
    const run = r.json;
    assert.equal(run.import.tool, 'CrystalDiskMark', name);
    assert.equal(run.import.version, e.version, name);
    assert.equal(run.import.filename, name);
    assert.equal(run.tests.length, e.tests, name);
    assert.ok(run.labels.includes('imported'));
    assert.equal(run.spec.imported.best_of, 5, name);
    for (const [t, rw, mbs, iops] of e.checks) {
      const b = best(run, t, rw);
      assert.ok(b, `${name}: no ${t} ${rw} in ${run.tests.map((x) => `${x.test} ${x.rw}`)}`);
      assert.equal(b.mb_s, mbs, `${name} ${t} ${rw} MB/s`);
      if (iops != null) assert.equal(b.iops, iops, `${name} ${t} ${rw} IOPS`);
    }
    if (e.lat) assert.equal(best(run, e.lat[0], e.lat[1]).lat_mean_us, e.lat[2]);
    if (e.comment) assert.equal(run.notes, e.comment);
    // the original, byte for byte
    const orig = Buffer.from(await (await fetch(`${d.url}${run.import.original}`)).arrayBuffer());
    assert.ok(orig.equals(fs.readFileSync(cdm(name))), `${name}: original differs`);
  }
});

test('the NTFS/ReFS set: filesystem, allocation unit and cache from the comment line', opts, async () => {
  const ids = {};
  for (const f of fs.readdirSync(cdm('ntfs-refs-alloc')).filter((x) => x.endsWith('.txt')).sort()) {
    const r = await importFile(cdm(path.join('ntfs-refs-alloc', f)));
    assert.equal(r.status, 201, `${f}: ${JSON.stringify(r.json)}`);
    ids[f] = r.json.id;
    const p = r.json.probe;
    if (f.startsWith('ntfs')) {
      assert.equal(p.fs_type, 'ntfs');
      assert.equal(p.fs_block_size, Number.parseInt(f.slice(5, 7), 10) * 1024, f);
    } else {
      assert.equal(p.fs_type, 'refs');
    }
    if (f === 'refs-cache-on.txt') assert.equal(p.write_cache, 'on');
  }
  const r4 = (await api(d.url, 'GET', `/api/v1/runs/${ids['ntfs-04k-cache-off.txt']}`)).json;
  assert.equal(best(r4, 'Seq', 'read').mb_s, 158.635);
  assert.equal(best(r4, '4K', 'read').iops, 145.9);
  assert.equal(best(r4, '4K', 'read').lat_mean_us, null, 'CDM 3 prints no latency');
  // does the allocation unit change anything on NTFS? one imported run a
  // side: it cannot tell
  const byCluster = (await api(d.url, 'GET', '/api/v1/compare?group_by=cluster_size&fs_type=ntfs&values=4096,65536')).json;
  assert.match(byCluster.verdicts[0].text, /65536 vs 4096: cannot tell on 8 tests: an imported result holds only the best of its iterations/);
  assert.ok(byCluster.warnings.some((w) => /best of 5/.test(w)));
  const seq = byCluster.tests.find((t) => t.test === 'Seq' && t.rw === 'read').metrics.find((m) => m.metric === 'mb_s');
  assert.equal(seq.vs_baseline[1].verdict, 'cannot tell');
  assert.equal(seq.vs_baseline[1].p, null);
  // NTFS (five allocation units) against ReFS (cache off and on): several
  // imported runs a side are tested over runs, and the ReFS run with the
  // write cache on is named, not averaged in without a word
  const byFs = (await api(d.url, 'GET', '/api/v1/compare?group_by=fs_type&values=ntfs,refs')).json;
  const seqFs = byFs.tests.find((t) => t.test === 'Seq' && t.rw === 'read').metrics.find((m) => m.metric === 'mb_s');
  assert.equal(seqFs.vs_baseline[1].test, 'runs');
  assert.deepEqual(seqFs.vs_baseline[1].n, [5, 2]);
  assert.ok(Number.isFinite(seqFs.vs_baseline[1].p));
  const cacheWarn = byFs.warnings.find((w) => /write cache/.test(w));
  assert.ok(cacheWarn, JSON.stringify(byFs.warnings));
  // the cache-off files say nothing of the cache; the cache-on one does
  assert.match(cacheWarn, /refs: "unknown" \(run \d+\) and "on" \(run \d+\)/);
  assert.match(cacheWarn, /group_by=write_cache/);
  // …and the cache is a group_by key of its own
  const byCache = (await api(d.url, 'GET', '/api/v1/compare?group_by=write_cache&fs_type=refs&values=unknown,on')).json;
  assert.deepEqual(byCache.sides.map((s) => s.label), ['unknown', 'on']);
  assert.ok(!byCache.warnings.some((w) => /write cache/.test(w)), 'grouped by it: no warning about it');
  // ReFS with the cache off against NTFS 4K, test by test
  const refs = (await api(d.url, 'GET', `/api/v1/compare?runs=${ids['ntfs-04k-cache-off.txt']},${ids['refs-cache-off.txt']}`)).json;
  const q32 = refs.tests.find((t) => t.test === '4K QD32' && t.rw === 'read').metrics.find((m) => m.metric === 'iops');
  assert.equal(q32.sides[0].mean, 539.5);
  assert.equal(q32.sides[1].mean, 338.1);
  assert.ok(Math.abs(q32.vs_baseline[1].delta_pct - (338.1 - 539.5) / 539.5 * 100) < 1e-9);
  // the three files users publish (NTFS 4 KiB and 64 KiB clusters, ReFS),
  // one run a side: each explanation said once, no latency rows
  const three = [ids['ntfs-04k-cache-off.txt'], ids['ntfs-64k-cache-off.txt'], ids['refs-cache-off.txt']];
  const c3 = (await api(d.url, 'GET', `/api/v1/compare?runs=${three.join(',')}`)).json;
  const reason = /an imported result holds only the best of its iterations/;
  assert.equal(c3.verdicts.filter((v) => reason.test(v.text)).length, 1, JSON.stringify(c3.verdicts));
  assert.match(c3.verdicts[0].text, new RegExp(`^run ${three[1]} vs run ${three[0]}: cannot tell on 8 tests: an imported result`));
  assert.match(c3.verdicts[1].text, new RegExp(`^run ${three[2]} vs run ${three[0]}: cannot tell on 8 tests, for the reason given for run ${three[1]}; largest: `));
  const eight = ['Seq read', 'Seq write', '512K read', '512K write', '4K read', '4K write', '4K QD32 read', '4K QD32 write'];
  assert.equal(c3.cannot_tell.length, 1, JSON.stringify(c3.cannot_tell));
  assert.deepEqual(c3.cannot_tell[0].tests, eight);
  assert.deepEqual(c3.cannot_tell[0].sides, [1, 2]);
  assert.match(c3.cannot_tell[0].how, /one run per side and no run-to-run noise estimate/);
  const importWarnings = c3.warnings.filter((w) => /imported from CrystalDiskMark/.test(w));
  assert.deepEqual(importWarnings, [`runs ${three[0]}, ${three[1]} and ${three[2]} were imported from CrystalDiskMark: each number is the best of 5, with no spread; several imported runs per side are tested over runs, one is not`]);
  // CrystalDiskMark 3 states no latency: MB/s and IOPS rows only
  for (const t of c3.tests) assert.deepEqual(t.metrics.map((m) => m.metric), ['mb_s', 'iops'], `${t.test} ${t.rw}`);
  // what changed: the filesystem and the cluster size (ReFS's unstated)
  assert.deepEqual(c3.changed, [
    { field: 'probe.fs_type', label: 'file system', values: ['ntfs', 'ntfs', 'refs'] },
    { field: 'probe.fs_block_size', label: 'cluster size (B)', values: [4096, 65536, null] },
  ]);
});

test('fio JSON of 2.x and 3.x, json and json+, imports each job and direction', opts, async () => {
  const fio = (n) => path.join(fixtures, 'fio', n);
  const cases = [
    ['fio-2.17-pkb-group_reporting-numjobs2.json', '2.17', 'read', 8086.673998, 129386 * 1024 / 1e6, 245.531122, 16384, 1, 2],
    ['fio-3.26-git-readwrite-two-filenames-ns.json', '3.26-19-ge7e53', 'read', 569.699415, 149.343283, null, 262144, 64, 1],
    ['fio-3.39-jsonplus-macos-posixaio-bins.json', '3.39', 'write', 19621.556886, 20.092474, null, 1024, 8, 1],
  ];
  for (const [name, version, rw, iops, mbs, lat, bs, qd, threads] of cases) {
    const r = await importFile(fio(name));
    assert.equal(r.status, 201, `${name}: ${JSON.stringify(r.json)}`);
    assert.equal(r.json.import.tool, 'fio');
    assert.equal(r.json.import.version, version);
    assert.ok(r.json.labels.includes('fio'));
    const t = r.json.tests.find((x) => x.rw === rw);
    assert.ok(t, `${name}: no ${rw} test`);
    assert.equal(t.best.iops, iops, `${name} IOPS`);
    assert.ok(Math.abs(t.best.mb_s - mbs) < 1e-9, `${name} MB/s ${t.best.mb_s} vs ${mbs}`);
    if (lat != null) assert.ok(Math.abs(t.best.lat_mean_us - lat) < 1e-9, `${name} latency`);
    assert.equal(t.block_size, bs);
    assert.equal(t.queue_depth, qd);
    assert.equal(t.threads, threads);
  }
  // the read-only job's write side moved nothing and is not a test
  const r = (await api(d.url, 'GET', '/api/v1/runs?label=fio')).json.runs;
  assert.equal(r.length, 3);
});

test('DiskSpd XML imports a test per target and direction, and its text report its totals', opts, async () => {
  const r = await importFile(path.join(fixtures, 'diskspd', 'diskspd-2.0.21a-rxml-mix30w-iops-buckets.xml'));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.import.tool, 'DiskSpd');
  assert.equal(r.json.import.version, '2.0.21a');
  assert.equal(r.json.started_at, '2021-04-14T23:25:42Z');
  const rd = r.json.tests.find((t) => t.rw === 'read');
  const wr = r.json.tests.find((t) => t.rw === 'write');
  assert.equal(rd.test, 'RND4K Q1T1 W30');
  // the thread's counts over TestTimeSeconds (120.01 s), its mean latency
  assert.ok(Math.abs(rd.best.iops - 37162 / 120.01) < 1e-9);
  assert.ok(Math.abs(rd.best.mb_s - 152215552 / 120.01 / 1e6) < 1e-9);
  assert.ok(Math.abs(wr.best.iops - 15753 / 120.01) < 1e-9);
  assert.ok(Math.abs(rd.best.lat_mean_us - 2477) < 1e-6);
  assert.ok(Math.abs(wr.best.lat_mean_us - 1767) < 1e-6);
  // the text report (-Rtext, UTF-8 BOM, no command line): its totals
  const text = await importFile(path.join(fixtures, 'diskspd', 'diskspd-text-5targets-115threads-bom-no-cmdline.txt'));
  assert.equal(text.status, 201, JSON.stringify(text.json));
  assert.equal(text.json.tests.length, 1, 'write-only: no read test');
  const w = text.json.tests[0];
  assert.equal(w.test, 'RND8K Q22T23 5 files');
  assert.equal(w.rw, 'write');
  assert.equal(w.best.iops, 330118.77);
  assert.ok(Math.abs(w.best.mb_s - 162301329408 / 60.02 / 1e6) < 1e-6);
  assert.ok(Math.abs(w.best.lat_mean_us - 7681) < 1e-6);
  const bad = await fetch(`${d.url}/api/v1/import?format=diskspd`, { method: 'POST', body: '<Results><System>' });
  assert.equal(bad.status, 422);
  assert.match((await bad.json()).detail, /not XML|not DiskSpd XML/);
});

test('a file imported twice is one run', opts, async () => {
  const before = await runCount();
  const r = await importFile(cdm('cdm801-sata-no-trailing-newline.txt'));
  assert.equal(r.status, 200);
  assert.equal(r.json.duplicate, true);
  assert.equal(await runCount(), before);
});

test('look-alikes, broken and foreign files are refused and change nothing', opts, async () => {
  const before = await runCount();
  let r = await importFile(cdm('NEGATIVE-cdm3-lookalike-handmade-question-marks.txt'));
  assert.equal(r.status, 422);
  assert.equal(r.json.field, 'format');
  r = await importFile(cdm('NEGATIVE-cdm3-lookalike-handmade-question-marks.txt'), '&format=cdm');
  assert.equal(r.status, 422);
  assert.match(r.json.detail, /line \d+: not a CrystalDiskMark result/);
  const good = fs.readFileSync(cdm('cdm804-nvme-mix-1M-iops.txt'), 'utf8');
  const cases = [
    ['truncated after the banner', good.split('\n').slice(0, 5).join('\n'), /no result lines/],
    ['a result that is not a number', good.replace('7427.749 MB/s', '? MB/s'), /line 9: the result is not a number/],
    ['an unknown test', good.replace('SEQ    1MiB (Q=  8', 'FOO    1MiB (Q=  8'), /line 9: a result line/],
    ['broken UTF-16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('CrystalDiskMark 8', 'utf16le'), Buffer.from([0x00, 0xd8, 0x41])]), /UTF-16|banner|result/],
    ['garbage', Buffer.from([0x00, 0x01, 0xff, 0x43, 0x72, 0x79]), null],
  ];
  for (const [what, body, re] of cases) {
    const resp = await fetch(`${d.url}/api/v1/import?format=cdm`, { method: 'POST', body });
    const j = await resp.json();
    assert.ok(resp.status === 422 || resp.status === 400, `${what}: ${resp.status}`);
    assert.match(resp.headers.get('content-type'), /problem\+json/);
    if (re) assert.match(j.detail, re, what);
  }
  // values no tool prints are refused, not stored as 0
  const fio = fs.readFileSync(path.join(fixtures, 'fio', 'fio-3.39-jsonplus-macos-posixaio-bins.json'), 'utf8');
  for (const [what, body, re] of [
    ['iops as a string', fio.replace('"iops" : 19621.556886', '"iops" : "19621.5"'), /iops, bandwidth and mean latency must be numbers/],
    ['a zero block size', fio.replace(/"bs" : "[^"]*"/, '"bs" : "0"'), /jobs\[0\] \(.*\) bs: block size \(B\) 0 out of range/],
    ['a DiskSpd negative count', fs.readFileSync(path.join(fixtures, 'diskspd', 'diskspd-2.0.21a-rxml-mix30w-iops-buckets.xml'), 'utf8')
      .replace('<ReadBytes>152215552</ReadBytes>', '<ReadBytes>-5</ReadBytes>'), /line \d+: bytes -5 out of range .*<ReadBytes>/],
    ['a CrystalDiskMark file cut short', good.split('\n').slice(0, 12).join('\n'), /cut short/],
    ['an invalid date', good.replace('2024/01/06 5:41:48', '2024/13/45 25:61:99'), /the Date is not a date/],
  ]) {
    const resp = await fetch(`${d.url}/api/v1/import`, { method: 'POST', body });
    const j = await resp.json();
    assert.equal(resp.status, 422, `${what}: ${resp.status} ${JSON.stringify(j)}`);
    assert.equal(j.title, 'Unprocessable content');
    assert.match(j.detail, re, what);
  }
  for (const [q, field] of [['labels=a%01b', 'labels'], ['labels=a,a', 'labels'], ['filename=a%22b.txt', 'filename']]) {
    const resp = await fetch(`${d.url}/api/v1/import?${q}`, { method: 'POST', body: good });
    assert.equal(resp.status, 400, q);
    assert.equal((await resp.json()).field, field, q);
  }
  r = await fetch(`${d.url}/api/v1/import`, { method: 'POST', body: '{"fio version": "fio-3.33"}' });
  assert.equal(r.status, 422);
  assert.match((await r.json()).detail, /no "fio version" and "jobs"/);
  r = await fetch(`${d.url}/api/v1/import?format=fio`, { method: 'POST', body: 'fio: warning\n{"fio version": "fio-3.33", "jobs": [' });
  assert.equal(r.status, 422);
  assert.match((await r.json()).detail, /line 2: not JSON/);
  assert.equal(await runCount(), before, 'nothing was written');
});

test('storbench import on the command line stores the same runs, once', opts, async () => {
  const { spawnSync } = await import('node:child_process');
  const data = path.join(root, 'cli-data');
  const files = [cdm('cdm804-nvme-mix-1M-iops.txt'), path.join(fixtures, 'fio', 'fio-3.26-git-readwrite-two-filenames-ns.json')];
  let p = spawnSync(bin, ['import', '--data', data, '--label', 'cli', ...files], { encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  assert.match(p.stdout, /cdm804-nvme-mix-1M-iops.txt: imported as run 1 \(CrystalDiskMark 8.0.4, 12 tests\)/);
  assert.match(p.stdout, /imported as run 2 \(fio 3.26-19-ge7e53, 2 tests\)/);
  p = spawnSync(bin, ['import', '--data', data, files[0]], { encoding: 'utf8' });
  assert.equal(p.status, 0);
  assert.match(p.stdout, /already imported as run 1/);
  p = spawnSync(bin, ['import', '--data', data, cdm('NEGATIVE-cdm3-lookalike-handmade-question-marks.txt')], { encoding: 'utf8' });
  assert.equal(p.status, 1);
  assert.match(p.stderr, /not a result file storbench recognises/);
  // a daemon on that archive sees them, with the CLI's label
  const d2 = await startDaemon({ bin, dataDir: data, quiet: true });
  try {
    const runs = (await api(d2.url, 'GET', '/api/v1/runs?label=cli')).json;
    assert.equal(runs.total, 2);
  } finally {
    await d2.stop();
  }
});

test('a native run exported as CrystalDiskMark text imports back to the same numbers', async () => {
  const target = path.join(root, 'native');
  fs.mkdirSync(target, { recursive: true });
  const j = await api(d.url, 'POST', '/api/v1/jobs', { target, profile: 'cdm-default', size: '32MiB', iterations: 1, duration_s: 0.5 });
  assert.equal(j.status, 202, j.text);
  const { waitJob } = await import('../lib/daemon.mjs');
  const job = await waitJob(d.url, j.json.id, 120000);
  assert.equal(job.state, 'done', job.error);
  const native = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
  const resp = await fetch(`${d.url}/api/v1/runs/${job.run_id}?format=cdm`);
  assert.match(resp.headers.get('content-disposition'), /attachment; filename="storbench-run-\d+-cdm.txt"/);
  const text = await resp.text();
  assert.match(text, /^-+\r\nCrystalDiskMark 8 layout, written by storbench /);
  const back = await fetch(`${d.url}/api/v1/import?filename=roundtrip.txt`, { method: 'POST', body: text });
  assert.equal(back.status, 201);
  const imported = await back.json();
  assert.equal(imported.import.tool, 'storbench');
  assert.equal(imported.tests.length, native.tests.length);
  for (const t of native.tests) {
    const u = imported.tests.find((x) => x.test === t.test && x.rw === t.rw);
    assert.ok(u, `${t.test} ${t.rw} came back`);
    assert.ok(Math.abs(u.best.mb_s - t.best.mb_s) <= 0.0005 + 1e-9, `${t.test} ${t.rw} MB/s`);
    assert.ok(Math.abs(u.best.iops - t.best.iops) <= 0.05 + 1e-9, `${t.test} ${t.rw} IOPS`);
    assert.ok(Math.abs(u.best.lat_mean_us - t.best.lat_mean_us) <= 0.005 + 1e-9, `${t.test} ${t.rw} µs`);
  }
});

// issue 31: a run's id was given again once the newest run was deleted, so
// an old link opened another run
test('a deleted run\'s id is never given again: its address answers 404', opts, async () => {
  const text = fs.readFileSync(cdm('cdm801-sata-no-trailing-newline.txt'), 'utf8');
  const post = async (n) => {
    const body = text.replace(/Comment: .*/, `Comment: ids ${n}`);
    const r = await fetch(`${d.url}/api/v1/import?filename=ids-${n}.txt&labels=ids`, { method: 'POST', body });
    assert.equal(r.status, 201, `ids ${n}: ${r.status}`);
    return (await r.json()).id;
  };
  const ids = [await post(1), await post(2), await post(3)];
  assert.ok(ids[0] < ids[1] && ids[1] < ids[2], `${ids}`);
  const newest = (await api(d.url, 'GET', '/api/v1/runs?limit=1')).json.runs[0].id;
  assert.equal(newest, ids[2], 'the last import is the newest run');
  assert.equal((await api(d.url, 'DELETE', `/api/v1/runs/${ids[2]}`)).status, 204);
  const next = await post(4);
  assert.ok(next > ids[2], `the next run is ${next}, after ${ids[2]}`);
  const old = await fetch(`${d.url}/api/v1/runs/${ids[2]}`);
  assert.equal(old.status, 404);
  assert.match(old.headers.get('content-type'), /application\/problem\+json/);
  assert.equal((await old.json()).status, 404);
  assert.equal((await api(d.url, 'GET', `/api/v1/runs/${next}`)).json.notes, 'ids 4');
  assert.equal((await api(d.url, 'GET', '/api/v1/runs?label=ids')).json.total, 3);
});
