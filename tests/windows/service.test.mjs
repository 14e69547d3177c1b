// storbench.exe as a Windows service under wine's own service control
// manager (services.exe; sc.exe and reg.exe to look at it): `service
// install` with serve's options (checked first: a bad one installs
// nothing), the SCM's record of it, `service start` until it serves,
// a long job on DATA/scratch, `service stop` while it runs (the job ends
// interrupted, its test file removed, as on a console's Ctrl-Break), the
// daemon's lines in DATA\storbench.log, `service uninstall`, and `service
// run` refused on a console.
//
// Wine's wineserver ends a prefix's services with the last ordinary
// program, so the prefix's wineserver is kept running (-p) for the test.
// What wine cannot show (elevation, LocalSystem's rights, a real shutdown)
// is printed and listed in docs/windows.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDaemon, api, freePort } from '../lib/daemon.mjs';
import { WINE, exeMissing, bootPrefix, wineRun, wineKill, winPath, wineEnv } from '../lib/wine.mjs';

const bin = process.env.STORBENCH_BIN;
const exe = process.env.STORBENCH_EXE;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const why = exeMissing(exe, 'service tests');
const opts = { skip: why ?? false };

fs.mkdirSync(out, { recursive: true });
const root = fs.mkdtempSync(path.join(path.resolve(out), 'wine-service-'));
const prefix = path.join(root, 'prefix');
const data = path.join(root, 'data');
// storbench.exe's text lines end in CR LF: compared without the CR
const win = (args) => {
  const r = wineRun(prefix, exe, args, { timeout: 120000 });
  return { ...r, stdout: r.stdout?.replace(/\r\n/g, '\n'), stderr: r.stderr?.replace(/\r\n/g, '\n') };
};
// a program of the prefix (sc, reg): { status, stdout, stderr }
const wine = (args) => spawnSync(WINE, args, { env: wineEnv(prefix), encoding: 'utf8', timeout: 60000 });
const scQuery = () => wine(['sc', 'query', 'storbench']);
const scState = () => /STATE\s*:\s*\d+\s+(\w+)/.exec(scQuery().stdout)?.[1] ?? null;

before(() => {
  if (why) return;
  // the SCM and its services live while the prefix's wineserver does
  // (wineBoot keeps it up, detached from the tests' pipes)
  bootPrefix(prefix, why);
  const q = spawnSync(WINE, ['sc', 'query', 'eventlog'], { env: wineEnv(prefix), stdio: 'ignore', timeout: 60000 });
  assert.equal(q.status, 0, 'sc query eventlog');
});
after(() => {
  if (!why) {
    win(['service', 'uninstall']); // (when a test failed half-way)
    wineKill(prefix);
  }
  fs.rmSync(root, { recursive: true, force: true });
});

test('service run on a console is refused: it is the service manager\'s', opts, () => {
  const r = win(['service', 'run']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^storbench service run: for the service manager, which starts it \(storbench service start\); on a console, run storbench serve$/m);
});

test('service install refuses what serve would, and installs nothing', opts, () => {
  const cases = [
    [['--bogus'], /^storbench service install: --bogus: unknown option$/m],
    [['--listen'], /^storbench service install: --listen needs a value$/m],
    [['--listen', 'localhost'], /^storbench service install: --listen localhost: not ADDR:PORT/m],
    [['--log-format', 'xml'], /^storbench service install: --log-format: text or json$/m],
    [['--reserve', '99%'], /^storbench service install: .*reserve/m],
    [['--allow', winPath(path.join(root, 'missing'))], /^storbench service install: .*missing/m],
    [['--token-file', winPath(path.join(root, 'no-token'))], /API token .*no-token/m],
    [['stray'], /^storbench service install: unexpected argument stray$/m],
    // a --data serve could not use: a file, a folder in a missing one
    [['--data', winPath(path.join(root, 'a-file'))], /^storbench service install: --data .*a-file: not a folder$/m],
    [['--data', winPath(path.join(root, 'no', 'data'))], /^storbench service install: --data .*data: .*no\\ is not a folder \(No such file or directory\)/m],
  ];
  fs.writeFileSync(path.join(root, 'a-file'), 'x');
  for (const [args, want] of cases) {
    const r = win(['service', 'install', ...args]);
    assert.equal(r.status, 2, `${args.join(' ')}: exit ${r.status}\n${r.stdout}${r.stderr}`);
    assert.match(r.stderr, want, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
  }
  const q = scQuery();
  assert.notEqual(q.status, 0, `sc query storbench: the service exists\n${q.stdout}`);
  // and the actions on a service that is not there say so (Windows' words)
  for (const action of ['start', 'stop', 'uninstall']) {
    const r = win(['service', action]);
    assert.equal(r.status, 1, `${action}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^storbench service ${action}: service storbench: .*\\(error 1060\\): storbench service install first$`, 'm'));
  }
  const bad = win(['service', 'frobnicate']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^storbench service: unknown action frobnicate$/m);
});

test('install, start, a job, stop (the job interrupted, its file removed), uninstall', opts, async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  const secs = () => ((Date.now() - t0) / 1000).toFixed(1);

  // install: the command line the SCM keeps, the data and the log
  const inst = win(['service', 'install', '--listen', `127.0.0.1:${port}`, '--data', winPath(data)]);
  assert.equal(inst.status, 0, inst.stderr);
  console.log(`# service install:\n${inst.stdout}`);
  assert.match(inst.stdout, /^installed service storbench \("storbench storage benchmark"\): started with Windows, as LocalSystem$/m);
  const line = `"${winPath(exe)}" service run --listen 127.0.0.1:${port} --data ${winPath(data)}`;
  assert.ok(inst.stdout.includes(`  command line: ${line}\n`), inst.stdout);
  assert.ok(inst.stdout.includes(`  log:  ${winPath(data)}\\storbench.log\n`), inst.stdout);
  // the SCM's record (wine keeps it in the registry, as Windows does)
  const reg = wine(['reg', 'query', 'HKLM\\System\\CurrentControlSet\\Services\\storbench']);
  assert.equal(reg.status, 0, reg.stderr);
  console.log(`# its registry key:\n${reg.stdout.trim()}`);
  assert.ok(reg.stdout.includes(line), reg.stdout);
  assert.match(reg.stdout, /Start\s+REG_DWORD\s+0x2\b/, 'automatic start');
  assert.match(reg.stdout, /Type\s+REG_DWORD\s+0x10\b/, 'its own process');
  assert.match(reg.stdout, /ObjectName\s+REG_SZ\s+LocalSystem/);
  assert.match(reg.stdout, /DisplayName\s+REG_SZ\s+storbench storage benchmark/);
  assert.equal(scState(), 'STOPPED');
  const again = win(['service', 'install', '--data', winPath(data)]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /^storbench service install: service storbench: .*\(error 1073\): storbench service uninstall first$/m);

  // start: RUNNING once it serves
  const start = win(['service', 'start']);
  console.log(`# service start (${secs()} s): ${start.stdout.trim()}`);
  assert.equal(start.status, 0, start.stdout + start.stderr);
  assert.match(start.stdout, new RegExp(`^storbench: RUNNING \\(pid \\d+\\), serving http://127\\.0\\.0\\.1:${port}/; log: .*storbench\\.log$`, 'm'));
  const health = await api(url, 'GET', '/healthz');
  assert.equal(health.status, 200);
  assert.equal(scState(), 'RUNNING');
  const twice = win(['service', 'start']);
  assert.equal(twice.status, 0, twice.stderr);
  assert.match(twice.stdout, /^storbench: RUNNING/m);

  // a long job on DATA/scratch (the default target)
  const job = await api(url, 'POST', '/api/v1/jobs',
    { profile: 'cdm-default', size: '64MiB', duration_s: 5, iterations: 3 });
  assert.equal(job.status, 202, job.text);
  const scratch = path.join(data, 'scratch');
  const testFile = () => fs.readdirSync(scratch).filter((f) => f.startsWith('storbench-'));
  while (testFile().length === 0 && Date.now() - t0 < 60000) await sleep(100);
  assert.equal(testFile().length, 1, 'the job\'s test file appeared');
  // and measured: stopped in the middle of a test
  let running = null;
  while (Date.now() - t0 < 60000) {
    running = (await api(url, 'GET', `/api/v1/jobs/${job.json.id}`)).json;
    if (running.progress?.phase === 'measuring') break;
    await sleep(100);
  }
  assert.equal(running.state, 'running');
  assert.equal(running.progress?.phase, 'measuring', JSON.stringify(running.progress));
  console.log(`# stopping with the job at ${running.progress.test} ${running.progress.rw}, test file ${testFile()[0]}`);

  // stop: STOP_PENDING, the job interrupted, STOPPED
  const s0 = Date.now();
  const stop = win(['service', 'stop']);
  console.log(`# service stop (${((Date.now() - s0) / 1000).toFixed(1)} s, a job running): ${stop.stdout.trim()}`);
  assert.equal(stop.status, 0, stop.stdout + stop.stderr);
  assert.match(stop.stdout, /^storbench: STOPPED; log: /m);
  assert.equal(scState(), 'STOPPED');
  assert.match(scQuery().stdout, /WIN32_EXIT_CODE\s*:\s*0\b/);
  assert.deepEqual(testFile(), [], 'the test file is gone');
  await assert.rejects(fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) }), 'nothing listens');

  // the log: the daemon's lines, from start to stop
  const log = fs.readFileSync(path.join(data, 'storbench.log'), 'utf8');
  console.log(`# DATA\\storbench.log:\n${log.trim()}`);
  assert.match(log, /storbench info: service storbench: started by the service manager\r\n/);
  assert.match(log, new RegExp(`storbench info: storbench \\S+ serving http://127\\.0\\.0\\.1:${port}/ \\(data Z:`));
  assert.match(log, /storbench info: signal 15: stopping\r\n/);
  assert.match(log, /storbench info: stopped\r\n$/);

  // the job, read from the archive the service wrote by the Linux daemon
  // (which wants the token file its owner's alone: wine made it with the
  // Linux umask's mode)
  fs.chmodSync(path.join(data, 'api-token'), 0o600);
  const d = await startDaemon({ bin, dataDir: data, quiet: true });
  try {
    const j = (await api(d.url, 'GET', `/api/v1/jobs/${job.json.id}`)).json;
    assert.equal(j.state, 'interrupted', JSON.stringify(j));
    assert.match(j.error, /the daemon stopped while this job ran/);
  } finally {
    await d.stop();
  }

  // a stopped service stops at once; uninstall removes it, its data stays
  const stopped = win(['service', 'stop']);
  assert.equal(stopped.status, 0, stopped.stderr);
  const un = win(['service', 'uninstall']);
  console.log(`# service uninstall: ${un.stdout.trim()}`);
  assert.equal(un.status, 0, un.stderr);
  assert.equal(un.stdout, `removed service storbench; its data stays in ${winPath(data)}\n`);
  assert.notEqual(scQuery().status, 0, 'sc query: gone');
  assert.ok(fs.existsSync(path.join(data, 'storbench.db')));
  console.log(`# install to uninstall: ${secs()} s`);
});

test('a service that cannot serve (its port taken): start says STOPPED, its exit status and log say why', opts, async () => {
  const busy = net.createServer();
  await new Promise((r) => busy.listen(0, '127.0.0.1', r));
  const port = busy.address().port;
  const dir = path.join(root, 'busy');
  try {
    const inst = win(['service', 'install', '--listen', `127.0.0.1:${port}`, '--data', winPath(dir)]);
    assert.equal(inst.status, 0, inst.stderr);
    const start = win(['service', 'start']);
    console.log(`# service start on a taken port: ${start.stderr.trim()}`);
    assert.equal(start.status, 1, start.stdout + start.stderr);
    assert.equal(start.stderr, `storbench: STOPPED with exit status 1; its log says why: ${winPath(dir)}\\storbench.log\n`);
    const q = scQuery().stdout;
    assert.match(q, /STATE\s*:\s*1\s+STOPPED/);
    assert.match(q, /WIN32_EXIT_CODE\s*:\s*1066\b/, 'ERROR_SERVICE_SPECIFIC_ERROR');
    assert.match(q, /SERVICE_EXIT_CODE\s*:\s*1\b/);
    assert.match(fs.readFileSync(path.join(dir, 'storbench.log'), 'utf8'),
      new RegExp(`storbench error: cannot listen on 127\\.0\\.0\\.1:${port}: `));
  } finally {
    busy.close();
    const un = win(['service', 'uninstall']);
    assert.equal(un.status, 0, un.stderr);
  }
});

test('uninstall stops a running service first; the service\'s default data is %ProgramData%\\storbench', opts, async () => {
  const port = await freePort();
  const inst = win(['service', 'install', '--listen', `127.0.0.1:${port}`]);
  assert.equal(inst.status, 0, inst.stderr);
  const programData = path.join(prefix, 'drive_c', 'ProgramData', 'storbench');
  assert.match(inst.stdout, /^ {2}data: C:\\ProgramData\\storbench$/m);
  const start = win(['service', 'start']);
  assert.equal(start.status, 0, start.stdout + start.stderr);
  assert.equal((await api(`http://127.0.0.1:${port}`, 'GET', '/healthz')).status, 200);
  assert.ok(fs.existsSync(path.join(programData, 'storbench.db')), 'the archive in C:\\ProgramData\\storbench');
  const un = win(['service', 'uninstall']);
  assert.equal(un.status, 0, un.stderr);
  assert.notEqual(scQuery().status, 0, 'sc query: gone');
  assert.match(fs.readFileSync(path.join(programData, 'storbench.log'), 'utf8'), /storbench info: stopped\r\n$/);
  console.log('# not shown by wine: elevation (wine runs every program as an administrator, so "Access is denied ' +
    '(error 5)" and its hint are not reached), LocalSystem\'s own rights (wine runs the service as the Linux ' +
    'user), the stop at a system shutdown (SERVICE_CONTROL_SHUTDOWN) and a user\'s logoff left alone');
});
