// The CrystalDiskMark and fio importers through the API, on the published
// results kept in tests/fixtures/import (each with its .source note):
// a CrystalDiskMark 8 run exported as CrystalDiskMark text keeps the
// original's footer line for line; a number no tool could print (a hex
// float, an overflowing queue depth or count, inf, an exponent, a NUL in
// the comment) is a 422 naming the line and the field, and nothing is
// stored; fio 2.x JSON without job options gets the block size its numbers
// give (or none, said in a warning) and no device named after the job; fio
// 3.1 with group_reporting, 2.1.4 as PerfKitBenchmarker runs it and a
// --status-interval file (made here by Debian's fio) import as they state.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test import_cdm_fio.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { startDaemon, api, runCommand, runCsv } from '../lib/daemon.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (...p) => path.join(here, '..', 'fixtures', 'import', ...p);
// ../shared/fixtures beside the clone, else the machine's copy; tests of
// them are skipped (and say so) where neither is
const SHARED = [path.join(here, '..', '..', '..', 'shared', 'fixtures'), '/work/shared/fixtures'].find((p) => fs.existsSync(p));
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

test('the other CrystalDiskMark versions export the footer lines they had', { skip: !SHARED && 'no ../shared/fixtures' }, async () => {
  const cases = [
    // CrystalDiskMark 3: "Test : 1000 MB [C: …] (x5)", no Profile or Mode
    ['cdm301-ssd-crlf-ja-notes.txt', { test: '1000 MB [C: 33.0% (39.3/119.1 GB)] (x5)', mode: null, profile: null }],
    ['cdm520-usb-bitlocker-quoted-superuser.txt', { test: '1024 MiB [E: 0.4% (26.4/7167.0 MiB)] (x5)  [Interval=5 sec]', mode: null, profile: null }],
    ['cdm700-utf16le-bom-crlf-hdd.txt', { test: '1 GiB (x5) [Interval: 5 sec] <DefaultAffinity=DISABLED>', mode: null, profile: 'Default' }],
    ['cdm801-sata-no-trailing-newline.txt', { test: '1 GiB (x5) [C: 98% (109/111GiB)]', mode: '[Admin]', profile: 'Default', comment: 'Samsung 840 EVO 120GB' }],
  ];
  for (const [name, e] of cases) {
    const r = await importBody(fs.readFileSync(path.join(SHARED, "crystaldiskmark", name)));
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
  // as CrystalDiskMark text: the tool for a test size fio does not state
  // (it was "0 MiB")
  const text = await (await fetch(`${d.url}/api/v1/runs/${r.json.id}?format=cdm`)).text();
  assert.ok(text.split('\r\n').includes('   Test: fio 2.2.10 (x1)'), text);
  // a file that contradicts itself is refused: bw no longer io_bytes /
  // runtime
  const odd = fs.readFileSync(fio2, 'utf8').replace('"bw" : 62499', '"bw" : 60000');
  const bad = await importBody(odd);
  assert.equal(bad.status, 422, JSON.stringify(bad.json));
  assert.match(bad.json.detail, /jobs\[0\] \(test\) write\.bw: 61\.44 MB\/s is not io_bytes × 1000 \/ runtime/);
});

// Files real fio versions wrote here (tests/fixtures/import/fio/*.source
// says how): each was refused before; each imports with the numbers it states.
test('fio 3.1, group_reporting × numjobs 8: io_bytes in bytes beside io_kbytes', async () => {
  const r = await importBody(fs.readFileSync(fixture('fio', 'fio-3.1-group_reporting-numjobs8-randread.json')));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.import.version, '3.1');
  assert.equal(r.json.tests.length, 1);
  const t = r.json.tests[0];
  assert.deepEqual([t.test, t.rw, t.pattern, t.block_size, t.queue_depth, t.threads],
    ['random-read', 'read', 'random', 4096, 16, 8]);
  assert.equal(t.best.iops, 116166.915795);
  assert.ok(Math.abs(t.best.mb_s - 464667 * 1024 / 1e6) < 1e-9, `${t.best.mb_s}`);
  assert.ok(Math.abs(t.best.lat_mean_us - 1097.615607299) < 1e-9);
  assert.equal(r.json.target, '/work/tmp/oldfio/t.dat');
  // a job given a directory, not a file (fio names its files after the
  // job there): the directory is the target, whole, however long (it was
  // "(unknown)")
  const long = '/mnt/cluster-shared-volume-01/benchmarks/storbench/fio-runs/2026-12-04/host-a';
  const doc = JSON.parse(fs.readFileSync(fixture('fio', 'fio-3.1-group_reporting-numjobs8-randread.json'), 'utf8'));
  delete doc.jobs[0]['job options'].filename;
  doc.jobs[0]['job options'].directory = long;
  const dir = await importBody(JSON.stringify(doc));
  assert.equal(dir.status, 201, JSON.stringify(dir.json));
  assert.equal(dir.json.target, long);
  // a path the target cannot hold whole, or with a control character, is
  // refused naming the option (a 340-byte one was cut to 255 bytes)
  const before = await runCount();
  for (const bad of [`/${'d'.repeat(790)}`, '/x/a\u0001b']) {
    doc.jobs[0]['job options'].directory = bad;
    const r2 = await importBody(JSON.stringify(doc));
    assert.equal(r2.status, 422, JSON.stringify(r2.json));
    assert.match(r2.json.detail, /jobs\[0\] \(random-read\) directory: a path of 1 … 783 bytes without control characters/);
  }
  doc.jobs[0]['job options'].directory = `/${'d'.repeat(782)}`;
  const whole = await importBody(JSON.stringify(doc));
  assert.equal(whole.status, 201, JSON.stringify(whole.json));
  assert.equal(whole.json.target.length, 783);
  assert.equal(await runCount(), before + 1);
});

test('fio 2.1.4 as PerfKitBenchmarker runs it: five groups, no options, whole-number iops', async () => {
  const r = await importBody(fs.readFileSync(fixture('fio', 'fio-2.1.4-pkb-five-groups.json')));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.deepEqual(r.json.tests.map((t) => [t.test, t.rw, t.block_size, t.best.iops]), [
    ['sequential_write', 'write', 524288, 3081],
    ['sequential_read', 'read', 524288, 3541],
    ['random_write_test', 'write', 4096, 16100],
    ['random_read_test', 'read', 4096, 17738],
    ['random_read_test_parallel', 'read', 4096, 43523],
  ]);
  assert.equal(r.json.tests[0].best.mb_s, 1577816 * 1024 / 1e6);
  assert.equal(r.json.tests[0].best.lat_mean_us, 19916.1);
  assert.ok(r.json.warnings.some((w) => /no job options for 5 of 5 jobs/.test(w)), JSON.stringify(r.json.warnings));
});

test('fio 2.1.4 with two block sizes (bssplit): stored with the block size unknown, said in a warning', async () => {
  const r = await importBody(fs.readFileSync(fixture('fio', 'fio-2.1.4-bssplit-no-job-options.json')));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const t = r.json.tests[0];
  assert.equal(t.block_size, null);
  assert.equal(t.best.iops, 30295);
  assert.equal(t.best.mb_s, 731208 * 1024 / 1e6);
  assert.ok(r.json.warnings.some((w) => /block size of 1 test \(mixed_sizes write\) is unknown/.test(w)), JSON.stringify(r.json.warnings));
  // the CSV leaves the cell empty; the run's own document imports again
  const csv = await (await fetch(`${d.url}/api/v1/runs/${r.json.id}?format=csv`)).text();
  assert.match(csv.split('\n')[1], /,mixed_sizes,write,sequential,,1,1,/); // no options: fio's default pattern
  const doc = await (await fetch(`${d.url}/api/v1/runs/${r.json.id}?format=storbench`)).text();
  const other = await startDaemon({ bin, dataDir: path.join(root, 'data-doc'), quiet: true });
  try {
    const again = await fetch(`${other.url}/api/v1/import`, { method: 'POST', body: doc });
    const j = await again.json();
    assert.equal(again.status, 201, JSON.stringify(j));
    assert.equal(j.tests[0].block_size, null);
  } finally {
    await other.stop();
  }
});

test('fio --status-interval: the final report is the run, the interim ones are skipped and counted', async () => {
  const file = path.join(root, 'interval.dat');
  const p = await runCommand('fio', ['--name=interval', `--filename=${file}`, '--size=8M', '--rw=randread', '--bs=4k',
    '--ioengine=psync', '--runtime=2', '--time_based', '--output-format=json', '--status-interval=1']);
  assert.equal(p.status, 0, p.stderr);
  // fio prints one whole JSON document per interval and the final one last
  const docs = p.stdout.split(/\n(?=\{)/).map((t) => JSON.parse(t));
  assert.ok(docs.length >= 2, `${docs.length} documents`);
  const iops = docs.map((x) => x.jobs[0].read.iops);
  assert.notEqual(iops[0], iops[iops.length - 1], 'the interim and final reports differ');
  const r = await importBody(p.stdout);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.tests[0].best.iops, iops[iops.length - 1]);
  const n = docs.length - 1;
  assert.ok(r.json.warnings.some((w) => w.includes(`holds ${n} interim report`)), JSON.stringify(r.json.warnings));
});

const haveFio = spawnSyncOk('fio', ['--version']);
function spawnSyncOk(cmd, args) {
  try {
    return child.spawnSync(cmd, args).status === 0;
  } catch {
    return false;
  }
}

// fio's client mode against fio servers of its own on loopback addresses
// ([host, port] each): fio's client goes on with the servers it reaches, so
// until every one listens a run reports fewer clients; it is run again
// until it has them all. The report and what the client printed.
async function clientReport(t, clients, jobText) {
  const servers = clients.map(([h, port]) => spawn('fio', [`--server=ip:${h},${port}`], { stdio: 'ignore' }));
  t.after(() => servers.forEach((s) => s.kill('SIGKILL')));
  const job = path.join(root, `clients-${clients[0][0]}-${clients[0][1]}.fio`);
  fs.writeFileSync(job, jobText);
  let p;
  let report;
  for (let attempt = 0; attempt < 50; attempt++) {
    p = await runCommand('fio', [...clients.flatMap(([h, port]) => [`--client=ip:${h},${port}`]), '--output-format=json', job]);
    report = p.status === 0 && p.stdout.includes('{') ? JSON.parse(p.stdout.slice(p.stdout.indexOf('{'))) : null;
    if (report?.client_stats?.length === clients.length + 1) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(p.status, 0, p.stderr);
  return { report, stdout: p.stdout };
}

const fioPort = 18765 + (process.pid % 1000);

test('fio --client on two hosts: a run per host and one for all clients, labelled by host', { skip: !haveFio && 'no fio' }, async (t) => {
  const hosts = ['127.0.0.2', '127.0.0.3'];
  const { report, stdout } = await clientReport(t, hosts.map((h) => [h, fioPort]),
    `[global]\nioengine=psync\nsize=8M\nruntime=1\ntime_based\n[cs]\nrw=randread\nbs=4k\nfilename=${path.join(root, 'cs-$jobnum.dat')}\n`);
  const stats = report.client_stats;
  assert.deepEqual(stats.map((s) => s.jobname), ['cs', 'cs', 'All clients']);
  const r = await importBody(stdout);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.runs.length, 3, JSON.stringify(r.json.runs));
  const runs = await Promise.all(r.json.runs.map(async (x) => (await api(d.url, 'GET', `/api/v1/runs/${x.id}`)).json));
  for (const [k, h] of stats.slice(0, 2).map((s) => s.hostname).entries()) {
    assert.ok(runs[k].labels.includes(h), JSON.stringify(runs[k].labels));
    assert.equal(runs[k].probe.hostname, h);
    assert.equal(runs[k].tests[0].best.iops, stats[k].read.iops);
  }
  assert.ok(runs[2].labels.includes('all-clients'), JSON.stringify(runs[2].labels));
  assert.equal(runs[2].tests[0].best.iops, stats[2].read.iops);
  assert.equal(stats[2].read.total_ios, stats[0].read.total_ios + stats[1].read.total_ios, 'fio sums the clients');
  // the sum has the options the hosts share: random 4 KiB reads
  assert.deepEqual([runs[2].tests[0].pattern, runs[2].tests[0].block_size], ['random', 4096]);
  assert.ok(!runs[2].warnings.some((w) => /no job options/.test(w)), JSON.stringify(runs[2].warnings));
});

test('fio --client, two servers on one host: a run each, told apart by port; the sum keeps the global options', { skip: !haveFio && 'no fio' }, async (t) => {
  const clients = [['127.0.0.4', fioPort + 1], ['127.0.0.4', fioPort + 2]];
  // rw and bs in [global] only: what every client's job ran with
  const { report, stdout } = await clientReport(t, clients,
    `[global]\nioengine=psync\nsize=8M\nruntime=1\ntime_based\nrw=randwrite\nbs=4k\n[cw]\nfilename=${path.join(root, 'cw-$jobnum.dat')}\n`);
  const stats = report.client_stats;
  const r = await importBody(stdout);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  assert.equal(r.json.runs.length, 3, JSON.stringify(r.json.runs));
  const runs = await Promise.all(r.json.runs.map(async (x) => (await api(d.url, 'GET', `/api/v1/runs/${x.id}`)).json));
  for (const k of [0, 1]) {
    // before: one run for both, "the sum of 1 fio clients"
    assert.ok(runs[k].labels.includes(`127.0.0.4:${stats[k].port}`), JSON.stringify(runs[k].labels));
    assert.equal(runs[k].probe.hostname, '127.0.0.4');
    assert.equal(runs[k].tests.length, 1);
    assert.equal(runs[k].tests[0].best.iops, stats[k].write.iops);
  }
  assert.notEqual(stats[0].port, stats[1].port);
  assert.equal(runs[2].notes, 'the sum of 2 fio clients');
  // before: sequential, fio's default, as the sum has no options of its own
  const sum = runs[2].tests[0];
  assert.deepEqual([sum.rw, sum.pattern, sum.block_size], ['write', 'random', 4096]);
  assert.equal(sum.best.iops, stats[2].write.iops);
  assert.ok(!runs[2].warnings.some((w) => /no job options|different options/.test(w)), JSON.stringify(runs[2].warnings));
  // a port no client can have is refused, naming it
  const doc = JSON.parse(stdout.slice(stdout.indexOf('{')));
  for (const port of [70000, 'abc', 0]) {
    const bad = structuredClone(doc);
    bad.client_stats[0].port = port;
    const r2 = await importBody(JSON.stringify(bad));
    assert.equal(r2.status, 422, `${port}: ${JSON.stringify(r2.json)}`);
    assert.match(r2.json.detail, /client_stats\[0\]: "port" must be a whole number 1 … 65535/);
  }
  // clients whose jobs ran with different options: the sum says so
  const differ = structuredClone(doc);
  differ.client_stats[0]['job options'] = { ...differ.client_stats[0]['job options'], iodepth: '4' };
  const r3 = await importBody(JSON.stringify(differ));
  assert.equal(r3.status, 201, JSON.stringify(r3.json));
  const sum3 = (await api(d.url, 'GET', `/api/v1/runs/${r3.json.runs[2].id}`)).json;
  assert.ok(sum3.warnings.some((w) => /clients ran jobs with different options/.test(w)), JSON.stringify(sum3.warnings));
  assert.ok(!sum3.warnings.some((w) => /no job options/.test(w)), JSON.stringify(sum3.warnings));
  // no file in the sum's options: its target is unknown, not its comment
  assert.equal(sum3.notes, 'the sum of 2 fio clients');
  assert.equal(sum3.target, '(unknown)');
});

// fio 3.x json+ made here and now: every number the file states beside its
// rates is the run's, exactly (percentiles at their levels, never
// interpolated), in the run, its CSV and its own document
import * as child from 'node:child_process';

test('fio json+: bytes, ios, seconds and every percentile at its own level, kept exactly', { skip: !haveFio && 'no fio' }, async () => {
  const file = path.join(root, 'fio-data.dat');
  const json = path.join(root, 'fio-jsonplus.json');
  const run = child.spawnSync('fio', ['--name=rrw', `--filename=${file}`, '--size=2M', '--rw=randrw', '--bs=4k',
    '--ioengine=psync', '--percentile_list=1:50:99:99.9:99.95', '--output-format=json+', `--output=${json}`]);
  assert.equal(run.status, 0, String(run.stderr));
  const src = JSON.parse(fs.readFileSync(json, 'utf8')).jobs[0];
  const r = await importBody(fs.readFileSync(json));
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const csv = await runCsv(d.url, r.json.id);
  for (const dir of ['read', 'write']) {
    const s = src[dir];
    const t = r.json.tests.find((x) => x.rw === dir);
    const it = t.iterations[0];
    assert.equal(it.bytes, s.io_bytes);
    assert.equal(it.ios, s.total_ios);
    assert.equal(it.seconds, s.runtime / 1e3);
    assert.equal(it.iops, s.iops); // as printed, not recomputed
    const lat = it.latency_us;
    assert.equal(lat.of, 'clat');
    assert.equal(lat.min, s.clat_ns.min / 1e3);
    assert.equal(lat.max, s.clat_ns.max / 1e3);
    const levels = Object.keys(s.clat_ns.percentile);
    assert.deepEqual(Object.keys(lat.percentiles).map(Number), levels.map(Number));
    for (const k of levels) assert.equal(lat.percentiles[String(Number(k))], s.clat_ns.percentile[k] / 1e3);
    assert.equal(lat.p50, s.clat_ns.percentile['50.000000'] / 1e3);
    assert.equal(lat.p99, s.clat_ns.percentile['99.000000'] / 1e3);
    assert.equal(lat['p99.9'], s.clat_ns.percentile['99.900000'] / 1e3);
    assert.ok(!('p90' in lat) && !('p99.99' in lat), 'levels the file does not state are absent');
    assert.equal(lat.percentiles['99.95'], s.clat_ns.percentile['99.950000'] / 1e3);
    const row = csv.find((x) => x.test === 'rrw' && x.rw === dir);
    assert.equal(Number(row.lat_p99_us), lat.p99);
    assert.equal(row.lat_p90_us, '');
    assert.equal(Number(row.bytes), s.io_bytes);
  }
  // the run's own document imports again as the same run
  const doc = await (await fetch(`${d.url}/api/v1/runs/${r.json.id}?format=storbench`)).text();
  const other = await startDaemon({ bin, dataDir: path.join(root, 'data-jsonplus'), quiet: true });
  try {
    const again = await fetch(`${other.url}/api/v1/import`, { method: 'POST', body: doc });
    const j = await again.json();
    assert.equal(again.status, 201, JSON.stringify(j));
    for (const k of [0, 1]) assert.deepEqual(j.tests[k].iterations, r.json.tests[k].iterations);
  } finally {
    await other.stop();
  }
});

// Each [what, body, re]: a 422 problem+json on the body naming the key or
// line (re), and nothing stored.
async function refusedAll(cases) {
  const before = await runCount();
  for (const [what, body, re] of cases) {
    const r = await fetch(`${d.url}/api/v1/import`, { method: 'POST', body });
    const j = await r.json();
    assert.equal(r.status, 422, `${what}: ${r.status} ${JSON.stringify(j)}`);
    assert.match(r.headers.get('content-type'), /application\/problem\+json/, what);
    assert.equal(j.field, 'body', what);
    assert.match(j.detail.replace(/^body: /, ''), re, what);
  }
  assert.equal(await runCount(), before, 'nothing was stored');
}

test('fio json+: bins that are not counts, or do not sum to N, are refused', { skip: !SHARED && 'no ../shared/fixtures' }, async () => {
  const bins = fs.readFileSync(path.join(SHARED, 'fio', 'fio-3.39-jsonplus-macos-posixaio-bins.json'), 'utf8');
  const at = 'jobs\\[0\\] \\(.*\\) write\\.clat_ns\\.bins';
  await refusedAll([
    ['a bin of 10^18 I/Os', bins.replace('"2008" : 1,', '"2008" : 1000000000000000000,'), new RegExp(`^${at}: the counts sum to .* not the 16384 I/Os of N`)],
    ['a negative bin', bins.replace('"2008" : 1,', '"2008" : -1,'), new RegExp(`^${at}\\.2008: not a count`)],
    ['a fractional bin', bins.replace('"2008" : 1,', '"2008" : 0.5,'), new RegExp(`^${at}\\.2008: not a count`)],
    ['a bin keyed by no latency', bins.replace('"2008" : 1,', '"2008" : 1, "x" : 0,'), new RegExp(`^${at}\\.x: not a count`)],
  ]);
});

// Files fio cannot have written, made by editing real ones: each is a 422
// naming the key or line, and nothing is stored.
test('fio: a cut-off final report, two runs in one file, impossible percentiles are refused', async () => {
  const f31 = fs.readFileSync(fixture('fio', 'fio-3.1-group_reporting-numjobs8-randread.json'), 'utf8');
  const f2 = fs.readFileSync(fio2, 'utf8');
  const n31 = f31.split("\n").length + 1; // the second document's line
  const job = 'jobs\\[0\\] \\(random-read\\) read\\.clat_ns';
  const cases = [
    ['a cut-off final report', `${f31}\n${f31.slice(0, f31.length / 2)}`, new RegExp(`^line ${n31}: the fio report that starts here is not whole JSON`)],
    ['text after the final report', `${f31}\n${f31}\ngarbage\n`, new RegExp(`^line ${2 * n31 - 1}: the fio report that starts here is not whole JSON`)],
    ['two unrelated runs', `${f31}\n${f2}`, new RegExp(`^line ${n31}: .*two fio runs in one file\\?`)],
    ['a later report with fewer I/Os', `${f31}\n${f31.replace('"total_ios" : 233147', '"total_ios" : 233146')}`, new RegExp(`^line ${n31}: .*two fio runs in one file\\?`)],
    ['a negative percentile', f31.replace('"99.000000" : ', '"99.000000" : -1, "x" : '), new RegExp(`^${job}\\.percentile\\.99\\.000000: not a latency`)],
    ['a percentile that is a string', f31.replace('"99.000000" : ', '"99.000000" : "x", "x" : '), new RegExp(`^${job}\\.percentile\\.99\\.000000: not a latency`)],
    ['p50 above p99', f31.replace('"50.000000" : 173056', '"50.000000" : 90000000'), new RegExp(`^${job}\\.percentile\\.\\d+\\.\\d+: below a lower level`)],
    ['p50 above max', f31.replace('"50.000000" : 173056', '"50.000000" : 990000000'), new RegExp(`^${job}\\.percentile\\.50\\.000000: above the maximum`)],
    ['min above max', f31.replace('"min" : 4379', '"min" : 996980904'), new RegExp(`^${job}\\.max: below min`)],
    ['a negative max', f31.replace('"max" : 96980904', '"max" : -1'), new RegExp(`^${job}\\.max: not a latency`)],
  ];
  await refusedAll(cases);
  // the file whole, twice (an interim report equal to the final): imported
  const two = await importBody(`${f31}\n${f31}`);
  assert.equal(two.status, 201, JSON.stringify(two.json));
});
