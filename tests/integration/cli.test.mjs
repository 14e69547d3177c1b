// storbench run: one job in-process, no daemon. On a real directory it
// prints CrystalDiskMark's 8 lines, whose figures are the stored run's (read
// back through a daemon on the same archive); --json prints that run;
// --no-archive stores nothing; bad targets and arguments exit non-zero with
// the reason; an archive a daemon serves is refused; SIGINT cancels.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, api } from '../lib/daemon.mjs';
import { cdmRows, assertRowsAreRun } from '../lib/cdm.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'cli-'));
const target = path.join(root, 'target');
fs.mkdirSync(target);
after(() => fs.rmSync(root, { recursive: true, force: true }));

const run = (args, opts = {}) => spawnSync(bin, ['run', ...args], { encoding: 'utf8', timeout: 120000, ...opts });
const SMALL = ['--size', '32MiB', '--iterations', '1', '--duration', '0.5'];


test('prints the 8 CrystalDiskMark lines; they are the archived run\'s figures', async () => {
  const data = path.join(root, 'var');
  const p = run([...SMALL, '--label', 'cli', '--data', data, target]);
  assert.equal(p.status, 0, p.stderr);
  assert.ok(!p.stderr.includes('\r'), 'no progress line when stderr is not a terminal');
  assert.match(p.stderr, /stored as run 1 in /);
  const rows = cdmRows(p.stdout);
  assert.equal(rows.length, 8, p.stdout);
  assert.match(p.stdout, /Profile: cdm-default/);
  assert.equal(fs.readdirSync(target).length, 0, 'the test file is gone');
  // the same run, read through a daemon on the archive
  const d = await startDaemon({ bin, dataDir: data, quiet: true });
  try {
    const r = (await api(d.url, 'GET', '/api/v1/runs/1')).json;
    assert.deepEqual(r.labels, ['cli']);
    assert.equal(r.target, fs.realpathSync(target));
    assertRowsAreRun(rows, r);
    // while the daemon serves that archive, run refuses it
    const busy = run([...SMALL, '--data', data, target]);
    assert.equal(busy.status, 1);
    assert.match(busy.stderr, /in use \(a daemon serves it\?\)/);
  } finally {
    await d.stop();
  }
});

test('--json prints the run as the API does; --no-archive stores nothing', () => {
  const cwd = fs.mkdtempSync(path.join(root, 'cwd-'));
  const p = run([...SMALL, '--profile', 'custom', '--json', '--no-archive', target], { cwd });
  // custom needs tests: refused with the field's message, exit 2
  assert.equal(p.status, 2);
  assert.match(p.stderr, /tests: the custom profile needs a tests array/);
  const q = run(['--size', '16MiB', '--iterations', '2', '--duration', '0.5', '--profile', 'cdm-realworld', '--json', '--no-archive', target], { cwd });
  assert.equal(q.status, 0, q.stderr);
  const r = JSON.parse(q.stdout);
  assert.equal(r.profile, 'cdm-realworld');
  assert.equal(r.spec.iterations, 2);
  assert.ok(r.tests.length > 0 && r.tests.every((t) => t.iterations.length === 2 && t.best.iops > 0));
  assert.deepEqual(fs.readdirSync(cwd), [], 'no ./var made');
  assert.ok(!q.stderr.includes('stored as run'));
});

test('bad input: a clear reason on stderr and a non-zero exit', () => {
  for (const [args, code, re] of [
    [['/nonexistent/dir'], 2, /\/nonexistent\/dir: No such file or directory/],
    [['--size', 'abc', target], 2, /size: "abc" is not a size/],
    [['--iterations', 'x', target], 2, /--iterations: a whole number/],
    [['--iterations', '0', target], 2, /iterations: must be an integer from 1 to 100/],
    [['--profile', 'nope', target], 2, /unknown profile "nope"/],
    [['--size', '64TiB', target], 2, /does not fit/],
    [['smb://127.0.0.1/share'], 2, /runs through the daemon/],
    [[], 2, /usage: storbench run/],
    [['--bogus', target], 2, /usage: storbench run/],
    [['/'], 2, /whole filesystem/],
    [['--duration', 'NaN', target], 2, /--duration: seconds, a number/],
  ]) {
    const p = run(['--no-archive', ...args]);
    assert.equal(p.status, code, `${args}: ${p.stderr}`);
    assert.match(p.stderr, re, args.join(' '));
    assert.equal(p.stdout, '', 'nothing on stdout');
  }
});

test('bytes that are not UTF-8 are refused, never swapped for a default; a failed write of the result is an error', () => {
  // argv with raw bytes goes through sh's printf: node would re-encode them
  const sh = (script) => spawnSync('sh', ['-c', script, bin, target], { encoding: 'utf8', timeout: 60000 });
  const path = sh('d="$1/bad$(printf \'\\377\')name"; mkdir "$d" && "$0" run --no-archive --size 8MiB "$d"; rc=$?; rmdir "$d"; exit $rc');
  assert.equal(path.status, 2, path.stderr);
  assert.match(path.stderr, /the path is not UTF-8 text/);
  const label = sh('"$0" run --no-archive --size 8MiB --label "$(printf \'\\377\')" "$1"');
  assert.equal(label.status, 2, label.stderr);
  assert.match(label.stderr, /--label: not UTF-8 text/);
  const full = sh('"$0" run --no-archive --size 8MiB --iterations 1 --duration 0.5 "$1" > /dev/full');
  assert.equal(full.status, 1, full.stderr);
  assert.match(full.stderr, /writing the result: No space left on device/);
  assert.deepEqual(fs.readdirSync(target), []);
});

test('SIGINT cancels the job: exit 130, the test file removed', async () => {
  const p = spawn(bin, ['run', '--size', '64MiB', '--iterations', '3', '--duration', '5', '--no-archive', target]);
  let err = '';
  p.stderr.on('data', (c) => { err += c; });
  await new Promise((r) => setTimeout(r, 1500));
  p.kill('SIGINT');
  const code = await new Promise((r) => p.on('exit', r));
  assert.equal(code, 130, err);
  assert.match(err, /storbench run: cancelled/);
  assert.deepEqual(fs.readdirSync(target), []);
});

test('--help and --version', () => {
  for (const cmd of [['run', '--help'], ['serve', '--help'], ['import', '--help'], ['--help']]) {
    const p = spawnSync(bin, cmd, { encoding: 'utf8' });
    assert.equal(p.status, 0, cmd.join(' '));
    assert.match(p.stdout, /^usage: storbench/);
  }
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  assert.match(v.stdout, /^storbench \d+\.\d+\.\d+\n$/);
});
