// Shares through Windows' own SMB client in storbench.exe (\\server\share\dir
// targets), under Debian's wine64: one daemon started with --allow
// \\127.0.0.1\share, which wine cannot reach (it has no SMB client: every
// UNC path fails to open, WNetAddConnection2W answers "No network"). So
// these check storbench's side — the start's warning in Windows' words,
// confinement by the share's name before anything is opened, "..", the
// credential's checks, the refusal of smb:// URLs — and that a share that
// cannot be reached is a problem naming the field, not a crash, with
// nothing queued. What only a Windows server can show is listed in
// docs/windows.md ("What only a real Windows server can confirm").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, api } from '../lib/daemon.mjs';
import { WINE, exeMissing, bootPrefix, dropPrefix, wineRun, wineKill, winPath, wineEnv } from '../lib/wine.mjs';

const exe = process.env.STORBENCH_EXE;
const out = process.env.STORBENCH_OUT;
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const why = exeMissing(exe, 'share tests');
const opts = { skip: why ?? false };

const root = fs.mkdtempSync(path.join(path.resolve(out), 'unc-'));
const prefix = path.join(root, 'prefix');
const local = path.join(root, 'local');
fs.mkdirSync(local);
const SHARE = '\\\\127.0.0.1\\share';
let d = null;

before(async () => {
  if (why) return;
  bootPrefix(prefix, why);
  d = await startDaemon({ bin: exe, wrap: [WINE], env: wineEnv(prefix), dataDir: winPath(path.join(root, 'serve')),
    allow: [SHARE, winPath(local)], stopSignal: 'SIGINT', startTimeoutMs: 60000, quiet: true });
});
after(async () => {
  if (d) await d.stop();
  dropPrefix(prefix, root, why);
});

// POST /api/v1/jobs: { status, type, body }
async function post(job) {
  const r = await fetch(`${d.url}/api/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ profile: 'cdm-default', size: '16MiB', iterations: 1, duration_s: 0.5, ...job }) });
  return { status: r.status, type: r.headers.get('content-type'), body: await r.json() };
}

// A refusal: status, application/problem+json, the field, the detail.
function refused(r, status, field, detail) {
  const what = JSON.stringify(r.body);
  assert.equal(r.status, status, what);
  assert.equal(r.type, 'application/problem+json', what);
  assert.equal(r.body.field, field, what);
  assert.match(r.body.detail, detail, what);
}

test('serve --allow \\\\127.0.0.1\\share starts, warning in Windows\' words that the share cannot be reached now', opts, () => {
  const log = d.output();
  assert.match(log, /warn: --allow \\\\127\.0\.0\.1\\share: the share cannot be reached now \(.+ \(error \d+\)\); allowed by its name/,
    log);
  assert.match(log, /jobs may write under: .*\\\\127\.0\.0\.1\\share/, log);
});

test('a share that cannot be reached: a 400 naming target, in Windows\' words; nothing queued', opts, async () => {
  for (const target of [`${SHARE}\\dir`, '//127.0.0.1/share/dir', `${SHARE}\\`]) {
    const r = await post({ target });
    refused(r, 400, 'target', /Windows' SMB client cannot open it \(.+ \(error \d+\)\) with the daemon's account/);
  }
  const jobs = (await api(d.url, 'GET', '/api/v1/jobs')).json;
  assert.deepEqual(jobs.jobs, [], 'nothing queued');
});

test('outside every allowed share: 403 naming target and the --allow that would allow it, before anything is opened', opts, async () => {
  refused(await post({ target: '\\\\127.0.0.1\\other\\dir' }), 403, 'target',
    /outside the allowed shares \(\\\\127\.0\.0\.1\\share\); the daemon's --allow \\\\127\.0\.0\.1\\other would allow it/);
  refused(await post({ target: '\\\\otherhost\\share' }), 403, 'target',
    /--allow \\\\otherhost\\share would allow it/);
  // a share's name is compared whole and without case
  refused(await post({ target: '\\\\127.0.0.1\\SHARE2\\dir' }), 403, 'target', /--allow \\\\127\.0\.0\.1\\SHARE2/);
  refused(await post({ target: '\\\\127.0.0.1\\SHARE\\dir' }), 400, 'target', /cannot open it/);
  // an interleaved side is checked as the target is
  refused(await post({ target: winPath(local), iterations: 2, compare_with: ['\\\\otherhost\\share\\x'] }),
    403, 'compare_with[0]', /--allow \\\\otherhost\\share would allow it/);
});

test('"..", a server without a share, the device forms: refused by their text', opts, async () => {
  refused(await post({ target: `${SHARE}\\..\\x` }), 403, 'target', /names "\.\."/);
  refused(await post({ target: '//127.0.0.1/share/a/../../other' }), 403, 'target', /names "\.\."/);
  refused(await post({ target: '\\\\127.0.0.1' }), 400, 'target', /names the server 127\.0\.0\.1 but no share/);
  refused(await post({ target: '\\\\?\\UNC\\127.0.0.1\\share\\dir' }), 400, 'target', /must be an absolute path/);
  refused(await post({ target: '\\\\.\\C:' }), 403, 'target', /does not write raw devices/);
});

test('credentials: an unknown one is a 400 on credential; a stored one is tried (WNetAddConnection2W) and Windows\' answer named', opts, async () => {
  refused(await post({ target: `${SHARE}\\dir`, credential: 'nope' }), 400, 'credential', /no credential named "nope"/);
  refused(await post({ target: `${SHARE}\\dir`, credential: 'bad name!' }), 400, 'credential', /stored credential/);
  const c = await api(d.url, 'POST', '/api/v1/credentials',
    { name: 'filer1', user: 'bench', password: 'se/cr\\et', domain: 'CORP' });
  assert.equal(c.status, 201, JSON.stringify(c.json));
  // wine has no network provider: Windows' words are wine's "No network"
  const r = await post({ target: `${SHARE}\\dir`, credential: 'filer1' });
  refused(r, 400, 'target', /^target: \\\\127\.0\.0\.1\\share: cannot connect with credential "filer1": .+ \(error \d+\)$/);
  assert.doesNotMatch(r.body.detail, /se\/cr/, 'no password in the answer');
  // no credential goes to a server outside the allowed shares
  refused(await post({ target: '\\\\otherhost\\share\\dir', credential: 'filer1' }), 403, 'target', /outside the allowed shares/);
  // the smb back-end's knobs: Windows negotiates them itself
  refused(await post({ target: `${SHARE}\\dir`, smb: { require_signing: true } }), 400, 'smb',
    /Windows' own SMB client negotiates/);
  // a local target takes no credential
  refused(await post({ target: winPath(local), credential: 'filer1' }), 400, 'credential', /only for a target on a share/);
  assert.deepEqual((await api(d.url, 'GET', '/api/v1/jobs')).json.jobs, [], 'nothing queued');
});

test('smb:// in storbench.exe: no SMB back-end, name the share as \\\\server\\share\\dir', opts, async () => {
  refused(await post({ target: 'smb://127.0.0.1/share/dir' }), 400, 'target',
    /this build has no SMB back-end: name the share as \\\\127\.0\.0\.1\\share\\dir \(Windows' own SMB client measures it\)/);
  refused(await post({ target: 'smb://127.0.0.1/share/dir', credential: 'filer1' }), 400, 'target', /no SMB back-end/);
  const run = wineRun(prefix, exe, ['run', 'smb://srv/bench/x']);
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /smb:\/\/srv\/bench\/x: this build has no SMB back-end: name the share as \\\\srv\\bench\\x/);
  const serve = wineRun(prefix, exe, ['serve', '--data', winPath(path.join(root, 'serve2')), '--allow', 'smb://srv/bench']);
  assert.equal(serve.status, 2, serve.stderr);
  assert.match(serve.stderr, /--allow smb:\/\/srv\/bench: this build has no SMB back-end: name the share as \\\\srv\\bench /);
});

test('sys.h under wine: a share\'s path is absolute, the device forms are not; resolving one fails in Windows\' words', opts, () => {
  const smoke = path.join(path.dirname(exe), 'sys_smoke.exe');
  const r = wineRun(prefix, smoke, ['abs', '\\\\srv\\share\\x', '//srv/share', '\\\\?\\UNC\\srv\\share', '\\\\.\\C:', 'C:\\x', '\\x']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^abs \\\\srv\\share\\x: 1$/m);
  assert.match(r.stdout, /^abs \/\/srv\/share: 1$/m);
  assert.match(r.stdout, /^abs \\\\\?\\UNC\\srv\\share: 0$/m);
  assert.match(r.stdout, /^abs \\\\\.\\C:: 0$/m);
  assert.match(r.stdout, /^abs C:\\x: 1$/m);
  assert.match(r.stdout, /^abs \\x: 0$/m);
  const real = wineRun(prefix, smoke, ['real', '\\\\127.0.0.1\\share\\dir', '\\\\127.0.0.1\\share']);
  assert.match(real.stdout, /^real \\\\127\.0\.0\.1\\share\\dir: -\d+ /m, real.stdout);
  assert.match(real.stdout, /^real \\\\127\.0\.0\.1\\share: -\d+ /m, real.stdout);
});
