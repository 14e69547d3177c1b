// The CrystalDiskMark and fio importers through the API, on the published
// results kept in tests/fixtures/import (each with its .source note):
// a CrystalDiskMark 8 run exported as CrystalDiskMark text keeps the
// original's footer line for line; a number no tool could print (a hex
// float, an overflowing queue depth or count, inf, an exponent, a NUL in
// the comment) is a 422 naming the line and the field, and nothing is
// stored; fio 2.x JSON without job options gets the block size its numbers
// give and no device named after the job.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test import_cdm_fio.test.mjs

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
const fixture = (...p) => path.join(here, '..', 'fixtures', 'import', ...p);
const cdm8 = fixture('cdm', 'cdm804-shizuku-sata-usb-admin-comment.txt');
const fio2 = fixture('fio', 'fio-2.2.10-no-job-options-write.json');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'import-cdm-fio-'));
const d = await startDaemon({ bin, dataDir: path.join(root, 'data'), quiet: true });
after(async () => {
  await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

async function importBody(body, query = '') {
  const r = await fetch(`${d.url}/api/v1/import${query}`, { method: 'POST', body });
  return { status: r.status, json: await r.json() };
}
const runCount = async () => (await api(d.url, 'GET', '/api/v1/runs')).json.total;

// the footer: from "Profile:" (CrystalDiskMark 8) to the end, blank lines
// and the Time line (not kept) left out
const footer = (text) => {
  const lines = text.split(/\r?\n/);
  return lines.slice(lines.findIndex((l) => l.startsWith('Profile:')))
    .filter((l) => l.trim() && !/^\s*Time:/.test(l));
};

test('an imported CrystalDiskMark 8 run exported as CrystalDiskMark text keeps the original footer', async () => {
  const original = fs.readFileSync(cdm8, 'utf8');
  const r = await importBody(original, '?filename=gw560.txt');
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.spec.imported.test_line, '1 GiB (x1) [F: 0% (0/119GiB)]');
  assert.equal(r.json.spec.imported.mode, '[Admin]');
  assert.equal(r.json.spec.imported.best_of, 1);
  assert.equal(r.json.target, 'F:');
  const rnd = r.json.tests.find((t) => t.test === 'RND4K Q32T1' && t.rw === 'read');
  assert.equal(rnd.best.mb_s, 21.64);
  assert.equal(rnd.best.iops, 5283.2);
  assert.equal(rnd.best.lat_mean_us, 6020.22);

  const resp = await fetch(`${d.url}/api/v1/runs/${r.json.id}?format=cdm`);
  assert.equal(resp.status, 200);
  const text = await resp.text();
  const want = footer(original);
  assert.deepEqual(want, [
    'Profile: Default',
    '   Test: 1 GiB (x1) [F: 0% (0/119GiB)]',
    '   Mode: [Admin]',
    '   Date: 2024/05/25 19:26:52',
    '     OS: Windows 11 Enterprise [10.0 Build 22621] (x64)',
    'Comment: Great Wall GW560 128GB',
  ]);
  assert.deepEqual(footer(text), want, text);
  // the original itself, byte for byte, as before
  const orig = await fetch(`${d.url}/api/v1/runs/${r.json.id}/original`);
  assert.equal(await orig.text(), original);
  // and the export imports back to the same numbers and header
  const back = await importBody(text);
  assert.equal(back.status, 201, JSON.stringify(back.json));
  assert.equal(back.json.spec.imported.test_line, '1 GiB (x1) [F: 0% (0/119GiB)]');
  assert.equal(back.json.probe.os, 'Windows 11 Enterprise [10.0 Build 22621] (x64)');
  assert.equal(back.json.notes, 'Great Wall GW560 128GB');
});

test('the other CrystalDiskMark versions export the footer lines they had', { skip: !fs.existsSync('/work/shared/fixtures') && !fs.existsSync(path.join(here, '..', '..', '..', 'shared', 'fixtures')) }, async () => {
  const shared = [path.join(here, '..', '..', '..', 'shared', 'fixtures'), '/work/shared/fixtures'].find((p) => fs.existsSync(p));
  const cases = [
    // CrystalDiskMark 3: "Test : 1000 MB [C: …] (x5)", no Profile or Mode
    ['cdm301-ssd-crlf-ja-notes.txt', { test: '1000 MB [C: 33.0% (39.3/119.1 GB)] (x5)', mode: null, profile: null }],
    ['cdm520-usb-bitlocker-quoted-superuser.txt', { test: '1024 MiB [E: 0.4% (26.4/7167.0 MiB)] (x5)  [Interval=5 sec]', mode: null, profile: null }],
    ['cdm700-utf16le-bom-crlf-hdd.txt', { test: '1 GiB (x5) [Interval: 5 sec] <DefaultAffinity=DISABLED>', mode: null, profile: 'Default' }],
    ['cdm801-sata-no-trailing-newline.txt', { test: '1 GiB (x5) [C: 98% (109/111GiB)]', mode: '[Admin]', profile: 'Default', comment: 'Samsung 840 EVO 120GB' }],
  ];
  for (const [name, e] of cases) {
    const r = await importBody(fs.readFileSync(path.join(shared, 'crystaldiskmark', name)));
    assert.ok(r.status === 201 || r.status === 200, `${name}: ${JSON.stringify(r.json)}`);
    const id = r.json.id;
    const text = await (await fetch(`${d.url}/api/v1/runs/${id}?format=cdm`)).text();
    const lines = text.split('\r\n');
    assert.ok(lines.includes(`   Test: ${e.test}`), `${name}:\n${text}`);
    assert.equal(lines.some((l) => l.startsWith('   Mode:')), e.mode != null, name);
    if (e.mode) assert.ok(lines.includes(`   Mode: ${e.mode}`), name);
    assert.equal(lines.some((l) => l.startsWith('Profile:')), e.profile != null, name);
    if (e.profile) assert.ok(lines.includes(`Profile: ${e.profile}`), name);
    assert.ok(lines.includes(`     OS: ${r.json.probe.os}`), name);
    if (e.comment) assert.ok(lines.includes(`Comment: ${e.comment}`), name);
  }
});

test('a native run exported as CrystalDiskMark text keeps storbench\'s own footer', async () => {
  const target = path.join(root, 'native');
  fs.mkdirSync(target, { recursive: true });
  const d2 = await startDaemon({ bin, dataDir: path.join(root, 'data2'), allow: [root], quiet: true });
  try {
    const j = await api(d2.url, 'POST', '/api/v1/jobs', { target, profile: 'cdm-default', size: '32MiB', iterations: 1, duration_s: 0.5 });
    assert.equal(j.status, 202, j.text);
    const { waitJob } = await import('../lib/daemon.mjs');
    const job = await waitJob(d2.url, j.json.id, 120000);
    assert.equal(job.state, 'done', job.error);
    const text = await (await fetch(`${d2.url}/api/v1/runs/${job.run_id}?format=cdm`)).text();
    const lines = text.split('\r\n');
    assert.ok(lines.includes('Profile: cdm-default'), text);
    assert.ok(lines.includes('   Test: 32 MiB (x1)'), text);
    assert.ok(!lines.some((l) => l.startsWith('   Mode:')), text);
  } finally {
    await d2.stop();
  }
});

test('numbers no tool prints are refused with the field and the line, and nothing is stored', async () => {
  const good = fs.readFileSync(cdm8, 'utf8');
  const fio = fs.readFileSync(fio2, 'utf8');
  const before = await runCount();
  const cases = [
    // line 9: the first [Read] result; line 11: RND4K Q32T1; line 21: Test;
    // line 26: Comment
    ['a hex float', good.replace('384.064 MB/s', '0x1p20 MB/s'), /^line 9: the result is not a number of MB\/s/],
    ['an overflowing queue depth', good.replace('RND    4KiB (Q= 32, T= 1)', 'RND    4KiB (Q=99999999999, T=23)'),
      /^line 11: queue depth 99999999999 out of range \(1 … 65536\)/],
    ['an overflowing count', good.replace('(x1)', '(x99999999999)'), /^line 21: iterations 99999999999 out of range \(1 … 1000\)/],
    ['a count CrystalDiskMark cannot be set to', good.replace('(x1)', '(x10)'), /^line 21: \(x10\): CrystalDiskMark runs a test 1 to 9 times/],
    ['a NUL in the comment', good.replace('Great Wall', 'Great\0Wall'), /^line 26: a control character \(0x00\)/],
    ['inf IOPS', good.replace('366.3 IOPS', 'inf IOPS'), /^line 9: the result is not a number of IOPS/],
    ['an exponent', good.replace('21765.43 us', '1e-300 us'), /^line 9: the result is not a number of latency/],
    ['MB/s beyond any drive', good.replace('384.064 MB/s', '99999999.000 MB/s'), /^line 9: MB\/s 99999999 out of range \(0 … 10000000\)/],
    ['a fio runtime of 1e-300 ms', fio.replace('"runtime" : 600008', '"runtime" : 1e-300'), /^jobs\[0\] \(test\) write\.runtime: test time \(s\) 1e-303 out of range/],
    ['fio iops its I/Os and runtime do not give', fio.replace('"jobname" : "test",', '"jobname" : "test", "job options" : { "bs" : "4k" },')
      .replace('"iops" : 15624.70', '"iops" : 1e-300'), /^jobs\[0\] \(test\) write\.iops: 1e-300 is not total_ios × 1000 \/ runtime/],
    ['a fio iodepth beyond any device', fio.replace('"jobname" : "test",', '"jobname" : "test", "job options" : { "iodepth" : "99999999999", "bs" : "4k" },'),
      /^jobs\[0\] \(test\) iodepth: queue depth 99999999999 out of range \(1 … 65536\)/],
    ['a fio hex float block size', fio.replace('"jobname" : "test",', '"jobname" : "test", "job options" : { "bs" : "0x1p20" },'),
      /^jobs\[0\] \(test\) bs: "0x1p20" is not a size or count fio takes/],
  ];
  for (const [what, body, re] of cases) {
    const r = await importBody(body);
    assert.equal(r.status, 422, `${what}: ${r.status} ${JSON.stringify(r.json)}`);
    assert.equal(r.json.field, 'body', what);
    assert.match(r.json.detail.replace(/^body: /, ''), re, what);
  }
  assert.equal(await runCount(), before, 'nothing was stored');
});

test('fio 2.x JSON without job options: the block size its numbers give, no device named after the job', async () => {
  const r = await importBody(fs.readFileSync(fio2));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.import.version, '2.2.10');
  assert.equal(r.json.tests.length, 1, 'the read side moved nothing');
  const t = r.json.tests[0];
  assert.equal(t.test, 'test');
  assert.equal(t.rw, 'write');
  // bw 62499 KiB/s × 1024 / 15624.70 IOPS = 4096.005 B: 4 KiB, within the
  // rounding of fio's printed bw and iops
  assert.equal(t.block_size, 4096);
  assert.equal(t.best.iops, 15624.7);
  assert.ok(Math.abs(t.best.mb_s - 62499 * 1024 / 1e6) < 1e-9);
  assert.equal(t.best.lat_mean_us, 8182.26);
  // the job is called "test": that names no device or file
  assert.notEqual(r.json.target, 'test');
  assert.equal(r.json.target, '(unknown)');
  assert.equal(r.json.probe.device, '(unknown)');
  assert.ok(!r.json.notes, JSON.stringify(r.json.notes));
  assert.ok(r.json.warnings.some((w) => /no job options/.test(w)), JSON.stringify(r.json.warnings));
  // numbers that give no whole block size: refused rather than guessed
  const odd = fs.readFileSync(fio2, 'utf8').replace('"bw" : 62499', '"bw" : 60000').replace('"io_bytes" : 37500272', '"io_bytes" : 37500271');
  const bad = await importBody(odd);
  assert.equal(bad.status, 422, JSON.stringify(bad.json));
  assert.match(bad.json.detail, /jobs\[0\] \(test\) write: no bs option, and neither io_bytes \/ total_ios nor bw \/ iops is a whole block size/);
});
