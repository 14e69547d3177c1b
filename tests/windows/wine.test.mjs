// storbench.exe under Debian's wine64 (a private prefix, no display): the
// static Windows program scripts/build-windows made runs cdm-default on a
// wine drive (8 results, Little's law, the CrystalDiskMark text equal to the
// stored run, read by the Linux daemon from the archive the exe wrote), its
// --json document imports into a Linux archive and reads back equal, its
// probe is filled as wine answers, file-create times every method or records
// it unsupported with Windows' error, misaligned I/O and a link out of the
// target are refused by storbench itself, Ctrl-C cancels and removes the
// test file, and bad arguments get the Linux binary's errors.
//
// Wine ignores FILE_FLAG_NO_BUFFERING and calls every Linux filesystem NTFS:
// these tests check the logic, not Windows' performance (docs/windows.md
// lists what only a Windows server can show).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, api } from '../lib/daemon.mjs';
import { cdmRows, assertRowsAreRun } from '../lib/cdm.mjs';
import { WINE, exeMissing, bootPrefix, dropPrefix, wineRun, wineSpawn, wineKill, winPath, wineEnv } from '../lib/wine.mjs';

const bin = process.env.STORBENCH_BIN;
const exe = process.env.STORBENCH_EXE;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const why = exeMissing(exe, 'tests');
const opts = { skip: why ?? false };

const root = fs.mkdtempSync(path.join(path.resolve(out), 'wine-'));
const prefix = path.join(root, 'prefix');
const target = path.join(root, 'target');
fs.mkdirSync(target);
const SMALL = ['--size', '16MiB', '--iterations', '1', '--duration', '0.5'];
const win = (args, o) => wineRun(prefix, exe, args, o);

before(() => bootPrefix(prefix, why));
after(() => dropPrefix(prefix, root, why));


test('a static Windows x86-64 program: only system DLLs', opts, () => {
  const b = fs.readFileSync(exe);
  assert.equal(b.toString('latin1', 0, 2), 'MZ');
  const pe = b.readUInt32LE(0x3c);
  assert.equal(b.toString('latin1', pe, pe + 4), 'PE\0\0');
  assert.equal(b.readUInt16LE(pe + 4), 0x8664, 'machine: x86-64');
  const dump = spawnSync('x86_64-w64-mingw32-objdump', ['-p', exe], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(dump.status, 0, dump.stderr);
  const dlls = [...dump.stdout.matchAll(/DLL Name: (\S+)/g)].map((m) => m[1].toLowerCase());
  const system = new Set(['kernel32.dll', 'msvcrt.dll', 'ws2_32.dll', 'advapi32.dll', 'bcrypt.dll',
    'crypt32.dll', 'secur32.dll', 'shell32.dll', 'user32.dll', 'ntdll.dll', 'ole32.dll', 'mpr.dll']);
  assert.ok(dlls.length > 0 && dlls.every((d) => system.has(d)), `imports: ${dlls.join(', ')}`);
});

test('cdm-default on a wine drive: 8 results, Little\'s law, the text is the archived run', opts, async () => {
  const data = path.join(root, 'var');
  const p = win(['run', ...SMALL, '--label', 'wine', '--data', winPath(data), winPath(target)]);
  assert.equal(p.status, 0, p.stderr);
  assert.match(p.stderr, /stored as run 1 in /);
  const rows = cdmRows(p.stdout);
  assert.equal(rows.length, 8, p.stdout);
  assert.equal(fs.readdirSync(target).length, 0, 'the test file is gone');
  console.log(`# storbench.exe run under wine:\n${p.stdout}`);
  // the archive the exe wrote, served by the Linux daemon
  const d = await startDaemon({ bin, dataDir: data, quiet: true });
  try {
    const r = (await api(d.url, 'GET', '/api/v1/runs/1')).json;
    assert.deepEqual(r.labels, ['wine']);
    assert.equal(r.target, `Z:${target}`);
    assert.equal(r.engine.target, 'iocp', 'overlapped I/O on a completion port');
    for (const t of assertRowsAreRun(rows, r)) {
      // Little's law: IOPS × mean latency = QD × threads (a little less
      // at the window's end)
      const qd = (t.best.iops * t.best.lat_mean_us) / 1e6;
      assert.ok(Math.abs(qd - t.queue_depth * t.threads) <= 0.1 * t.queue_depth * t.threads,
        `${t.test} ${t.rw}: IOPS×lat = ${qd}, QD×T ${t.queue_depth * t.threads}`);
    }
  } finally {
    await d.stop();
  }
});

test('push and run --push: storbench.exe\'s runs go whole to a Linux daemon (curl with schannel)', opts, async () => {
  const data = path.join(root, 'var-push');
  const linux = path.join(root, 'linux-push');
  const d = await startDaemon({ bin, dataDir: linux, quiet: true, args: ['--require-token'] });
  try {
    const token = path.join(linux, 'api-token');
    const auth = { Authorization: `Bearer ${fs.readFileSync(token, 'utf8').trim()}` };
    const r = win(['run', ...SMALL, '--label', 'from-windows', '--data', winPath(data), '--push', d.url,
      '--token-file', winPath(token), winPath(target)]);
    assert.equal(r.status, 0, r.stderr);
    const p = win(['push', '--data', winPath(data), '--token-file', winPath(token), d.url, '1']);
    assert.equal(p.status, 0, p.stderr);
    const runs = (await api(d.url, 'GET', '/api/v1/runs', undefined, { headers: auth })).json;
    // the run, once: the second push finds it there (its uuid)
    assert.equal(runs.total ?? runs.runs.length, 1, JSON.stringify(runs));
    const got = (await api(d.url, 'GET', `/api/v1/runs/${runs.runs[0].id}`, undefined, { headers: auth })).json;
    assert.deepEqual(got.labels, ['from-windows']);
    assert.equal(got.probe.kernel.startsWith('Windows'), true);
    assert.equal(got.tests.length, 8);
    // without the token the daemon refuses, and push says so (exit 1)
    const no = win(['push', '--data', winPath(data), d.url, '1']);
    assert.equal(no.status, 1, no.stderr);
    assert.match(no.stderr, /401/);
  } finally {
    await d.stop();
  }
});

test('--json: the document imports into a Linux archive and reads back equal; the probe as wine answers', opts, async () => {
  const p = win(['run', ...SMALL, '--json', '--data', winPath(path.join(root, 'var-json')), winPath(target)]);
  assert.equal(p.status, 0, p.stderr);
  const doc = JSON.parse(p.stdout);
  assert.equal(doc.document.format, 'storbench-run');
  assert.equal(doc.tests.length, 8);
  const pr = doc.probe;
  console.log(`# probe under wine: ${JSON.stringify(pr)}`);
  assert.equal(pr.fs_type, 'ntfs', 'wine calls every Linux filesystem NTFS');
  assert.match(pr.kernel, /^Windows \d+\.\d+\.\d+/);
  assert.equal(pr.mount_point, 'Z:/');
  assert.match(pr.device, /^\\\\\?\\Volume\{[0-9a-f-]+\}\\$/);
  assert.equal(pr.fs_block_size, 4096);
  assert.equal(pr.cpus, os.cpus().length);
  assert.ok(pr.memory_bytes > 2 ** 28 && pr.memory_bytes <= os.totalmem() * 1.01, `memory ${pr.memory_bytes}`);
  assert.ok(pr.total_bytes > 0 && pr.free_bytes > 0 && pr.free_bytes <= pr.total_bytes);
  const st = fs.statfsSync(target);
  assert.ok(Math.abs(pr.total_bytes - st.blocks * st.bsize) <= 0.01 * st.blocks * st.bsize, 'the Linux filesystem\'s size');
  assert.equal(pr.hostname.toLowerCase(), os.hostname().toLowerCase().slice(0, 15));
  // into a Linux archive, and back out equal
  const file = path.join(root, 'doc.json');
  fs.writeFileSync(file, p.stdout);
  const data = path.join(root, 'linux');
  const imp = spawnSync(bin, ['import', '--data', data, file], { encoding: 'utf8' });
  assert.equal(imp.status, 0, imp.stderr);
  const d = await startDaemon({ bin, dataDir: data, quiet: true });
  try {
    const back = JSON.parse((await api(d.url, 'GET', '/api/v1/runs/1?format=storbench')).text);
    for (const k of ['id', 'job_id', 'import']) { delete back[k]; delete doc[k]; }
    assert.deepEqual(back, doc);
  } finally {
    await d.stop();
  }
});

test('file-create: every method timed or recorded unsupported with Windows\' error', opts, () => {
  const p = win(['run', '--profile', 'file-create', '--size', '8MiB', '--iterations', '1', '--json', '--no-archive', winPath(target)]);
  assert.equal(p.status, 0, p.stderr);
  const doc = JSON.parse(p.stdout);
  const by = Object.fromEntries(doc.tests.map((x) => [x.rw, x.iterations[0]]));
  console.log(`# file-create under wine: ${JSON.stringify(Object.fromEntries(Object.entries(by).map(([k, v]) => [k, v.error ?? v.seconds])))}`);
  assert.deepEqual(Object.keys(by).sort(), ['clone', 'odx', 'preallocate', 'read/write', 'sparse', 'vhdx', 'zeros'].sort());
  for (const [m, it] of Object.entries(by)) {
    if (it.error) assert.match(it.error, /^unsupported: .*\(error \d+\)\)$/, `${m}: Windows' own error`);
    else assert.ok(it.seconds > 0 && it.bytes === 8 * 2 ** 20, `${m}: ${it.seconds} s`);
  }
  // what wine does: zeros and the copy through this host always; sparse
  // (FSCTL_SET_SPARSE) allocates nothing
  for (const m of ['zeros', 'read/write', 'sparse']) assert.ok(!by[m].error, `${m}: ${by[m].error}`);
  assert.ok(by.sparse.allocated_bytes < 2 ** 20, `sparse allocated ${by.sparse.allocated_bytes}`);
  assert.deepEqual(fs.readdirSync(target), [], 'no file left');
});

test('bad arguments: the Linux binary\'s errors and exit codes', opts, () => {
  const missing = path.join(root, 'nope');
  // a block size no volume takes: refused before any I/O, as on Linux
  const misaligned = path.join(root, 'misaligned.json');
  fs.writeFileSync(misaligned, JSON.stringify({ profile: 'custom', size: '16MiB', iterations: 1, duration_s: 0.5,
    tests: [{ name: 'odd', pattern: 'random', block_size: 4000, read_pct: 100, queue_depth: 1, threads: 1 }] }));
  const cases = [
    ['run'],
    ['run', '--profile', 'nope', target],
    ['run', '--size', 'lots', target],
    ['run', '--iterations', '0', target],
    ['run', '--duration', '-1', target],
    ['run', missing],
    ['run', '--token-file', 'x', target],
    ['run', '--push', 'ftp://x', target],
    ['run', '--spec', path.join(root, 'nope.json'), target],
    ['run', '--spec', misaligned, target],
    ['run', '--bogus', target],
    ['run', '--size'],
    ['run', '--data', path.join(root, 'd'), '--no-archive', target],
    ['push'],
    ['push', 'http://127.0.0.1:1', 'abc'],
    ['import'],
    ['frobnicate'],
  ];
  // Z:\… and Z:/… as the Linux path they name
  const norm = (s) => s.replace(/\r/g, '').replace(/Z:([\\/][^\s:'"]*)/g, (m, p) => p.replace(/\\/g, '/'));
  for (const c of cases) {
    const l = spawnSync(bin, c, { encoding: 'utf8', timeout: 60000 });
    const w = win(c.map((a) => (a.startsWith(root) ? winPath(a) : a)));
    assert.equal(w.status, l.status, `${c.join(' ')}: exit ${w.status} vs Linux ${l.status}\n${w.stderr}`);
    assert.equal(norm(w.stderr), norm(l.stderr), c.join(' '));
  }
  // where the builds differ: an SMB share (Linux: through the daemon's
  // libsmbclient; Windows: its own client, with the daemon on Windows)
  const smb = win(['run', 'smb://127.0.0.1/share/dir']);
  assert.equal(smb.status, 2);
  assert.match(smb.stderr, /smb:\/\/127\.0\.0\.1\/share\/dir: this build has no SMB back-end/);
});

test('Ctrl-C (SIGINT to the wine process) cancels: exit 130, the test file removed', opts, async () => {
  const p = wineSpawn(prefix, exe, ['run', '--size', '64MiB', '--iterations', '3', '--duration', '5', '--no-archive', winPath(target)]);
  let err = '';
  p.stderr.on('data', (c) => { err += c; });
  // until the test file is there and measured
  const t0 = Date.now();
  while (!fs.readdirSync(target).some((f) => f.startsWith('storbench-')) && Date.now() - t0 < 30000)
    await new Promise((r) => setTimeout(r, 100));
  assert.ok(fs.readdirSync(target).length > 0, `no test file appeared: ${err}`);
  await new Promise((r) => setTimeout(r, 1500));
  p.kill('SIGINT');
  const code = await new Promise((r) => p.on('exit', (c, s) => r(c ?? s)));
  assert.equal(code, 130, err);
  assert.match(err, /storbench run: cancelled/);
  assert.deepEqual(fs.readdirSync(target), [], 'the test file is gone');
});

test('a Unicode target path: UTF-16 at the boundary, UTF-8 in the run', opts, () => {
  const uni = path.join(root, 'Ünïcødé ✓');
  fs.mkdirSync(uni);
  const p = win(['run', ...SMALL, '--profile', 'cdm-default', '--json', '--no-archive', winPath(uni)]);
  assert.equal(p.status, 0, p.stderr);
  const doc = JSON.parse(p.stdout);
  assert.equal(doc.target, `Z:${uni}`);
  assert.deepEqual(fs.readdirSync(uni), []);
  // --no-archive's archive was a temporary folder: gone, lock and all
  const users = path.join(prefix, 'drive_c', 'users');
  const left = fs.readdirSync(users).flatMap((u) => {
    const tmp = path.join(users, u, 'Temp');
    return fs.existsSync(tmp) ? fs.readdirSync(tmp).filter((n) => n.startsWith('storbench-run')) : [];
  });
  assert.deepEqual(left, [], 'temporary archives left in %TEMP%');
});

test('confinement in storbench.exe serve: a link out of an allowed root and a raw volume are refused', opts, async () => {
  const allowed = path.join(root, 'allowed'), outside = path.join(root, 'outside');
  fs.mkdirSync(allowed);
  fs.mkdirSync(outside);
  // wine shows a Linux symlink as a reparse point and resolves it
  // (GetFinalPathNameByHandleW); it cannot make junctions
  fs.symlinkSync(outside, path.join(allowed, 'link'));
  const d = await startDaemon({ bin: exe, wrap: [WINE], env: wineEnv(prefix), dataDir: winPath(path.join(root, 'serve')),
    allow: [winPath(allowed)], stopSignal: 'SIGINT', startTimeoutMs: 60000, quiet: true });
  try {
    const post = async (target) => {
      const r = await fetch(`${d.url}/api/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ target, profile: 'cdm-default', size: '16MiB', iterations: 1, duration_s: 0.5 }) });
      return { status: r.status, type: r.headers.get('content-type'), body: await r.json() };
    };
    const link = await post(winPath(path.join(allowed, 'link')));
    assert.equal(link.status, 403, JSON.stringify(link.body));
    assert.equal(link.type, 'application/problem+json');
    assert.equal(link.body.field, 'target');
    assert.match(link.body.detail, /resolves to Z:.*outside, outside the allowed roots.*a symlink leads out of them/);
    const out2 = await post(winPath(outside));
    assert.equal(out2.status, 403, JSON.stringify(out2.body));
    for (const raw of ['\\\\.\\C:', '\\\\.\\PhysicalDrive0']) {
      const r = await post(raw);
      assert.equal(r.status, 403, `${raw}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.detail, /does not write raw devices on this system/);
    }
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing written outside');
  } finally {
    await d.stop();
  }
});

test('the seam\'s own probes: the engine on iocp and psync, every file op; a held directory; the data lock', opts, async () => {
  const dir = path.join(root, 'smoke');
  fs.mkdirSync(dir);
  const bin = (name) => path.join(path.dirname(exe), name);
  const e = wineRun(prefix, bin('engine_smoke.exe'), [winPath(dir)]);
  assert.equal(e.status, 0, e.stdout + e.stderr);
  // iocp 4K random QD8, iocp 1M sequential write QD4, psync 4K random QD8:
  // the I/Os in flight on average (latency sum / window) are the queue
  const flight = [...e.stdout.matchAll(/in flight ([\d.]+) of QD(\d+)/g)];
  assert.equal(flight.length, 3, e.stdout);
  for (const [, f, qd] of flight) assert.ok(Math.abs(f - qd) <= 0.1 * qd, `${f} in flight at QD${qd}`);
  assert.match(e.stdout, /^make read\/write +[\d.]+ s, 67108864 B allocated$/m);
  assert.deepEqual(fs.readdirSync(dir), [], 'engine_smoke removes its files');
  // a job's directory, held, cannot be renamed under it
  const held = wineRun(prefix, bin('sys_smoke.exe'), ['held', winPath(dir), 'x']);
  assert.match(held.stdout, /rename while held: refused, error 32/, held.stdout);
  assert.match(held.stdout, /rename after close: done/);
  // one process per data directory: a second one is refused while the
  // first holds the lock
  const data = path.join(root, 'lockdir');
  fs.mkdirSync(data);
  const holder = wineSpawn(prefix, bin('sys_smoke.exe'), ['lock', winPath(data), '6']);
  let held1 = '';
  holder.stdout.on('data', (c) => { held1 += c; });
  const t0 = Date.now();
  while (!/lock again in this process/.test(held1) && Date.now() - t0 < 30000)
    await new Promise((r) => setTimeout(r, 100));
  assert.match(held1, /^lock .*: 0$/m);
  const second = wineRun(prefix, bin('sys_smoke.exe'), ['lock', winPath(data), '0']);
  assert.match(second.stdout, /^lock .*: -16 \(EBUSY\)$/m, second.stdout);
  holder.kill('SIGKILL');
  await new Promise((r) => holder.on('exit', r));
});
