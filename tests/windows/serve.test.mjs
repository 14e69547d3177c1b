// storbench.exe serve under Debian's wine64: the same daemon as on Linux
// on a loopback port. /healthz; cdm-default jobs queued with curl finish and
// are archived; the dashboard, a run's page and the compare page draw in
// headless Chromium against it (screenshots wine-run.png, wine-compare.png
// in STORBENCH_OUT); a restart keeps every run; killing the wine process
// mid-job and starting again leaves that job interrupted, its test file
// removed, and the queue goes on; the data directory and token are private
// (an access list; wine keeps those as Unix modes).
//
// Wine checks logic, not Windows (docs/windows.md): the numbers are the
// Linux page cache's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startDaemon, api, waitJob } from '../lib/daemon.mjs';
import { CHROMIUM, CHROMIUM_ARGS, isLoopback, canvasDrawn } from '../lib/browser.mjs';
import { WINE, exeMissing, bootPrefix, dropPrefix, wineKill, winPath, wineEnv } from '../lib/wine.mjs';

const bin = process.env.STORBENCH_BIN;
const exe = process.env.STORBENCH_EXE;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const why = exeMissing(exe, 'serve tests') ??
  (!fs.existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM} (scripts/bootstrap --test)` : null);
const opts = { skip: why ?? false };

const root = fs.mkdtempSync(path.join(path.resolve(out), 'wine-serve-'));
const prefix = path.join(root, 'prefix');
const data = path.join(root, 'data');
const target = path.join(root, 'target');
fs.mkdirSync(target);
const SMALL = { size: '16MiB', iterations: 1, duration_s: 0.5 };

// the daemon: storbench.exe serve under wine, stopped with SIGINT (wine's
// Ctrl-C), on a free loopback port
const serve = (args = []) => startDaemon({ bin: exe, wrap: [WINE], env: wineEnv(prefix), dataDir: winPath(data),
  allow: [winPath(target)], args, stopSignal: 'SIGINT', startTimeoutMs: 90000, quiet: true });

// POST /api/v1/jobs with the curl users type: { status, json }
function curlJob(url, body) {
  const r = spawnSync('curl', ['-sS', '-w', '\n%{http_code}', '-X', 'POST', '-H', 'Content-Type: application/json',
    '--data-binary', JSON.stringify(body), `${url}/api/v1/jobs`], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  const nl = r.stdout.lastIndexOf('\n');
  return { status: Number(r.stdout.slice(nl + 1)), json: JSON.parse(r.stdout.slice(0, nl)) };
}

const testFiles = () => fs.readdirSync(target).filter((f) => f.startsWith('storbench-'));

before(() => bootPrefix(prefix, why));
after(() => dropPrefix(prefix, root, why));

let runs = [];

test('serve: /healthz, two cdm-default jobs queued with curl finish and are archived', opts, async () => {
  const d = await serve();
  try {
    const h = await api(d.url, 'GET', '/healthz');
    assert.equal(h.status, 200);
    assert.match(d.output(), /storbench \S+ serving http:\/\/127\.0\.0\.1:\d+\/ \(data Z:\/.*\/data\)/);
    assert.match(d.output(), /created the API token in .*api-token \(Administrators and .+ only\)/);
    for (const label of ['wine-a', 'wine-b']) {
      const r = curlJob(d.url, { ...SMALL, profile: 'cdm-default', target: winPath(target), labels: [label] });
      assert.equal(r.status, 202, JSON.stringify(r.json));
      const job = await waitJob(d.url, r.json.id, 180000);
      assert.equal(job.state, 'done', job.error);
      runs.push(job.run_id);
    }
    for (const id of runs) {
      const run = (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
      assert.equal(run.tests.length, 8);
      assert.equal(run.engine.target, 'iocp');
      assert.match(run.probe.kernel, /^Windows /);
      assert.equal(run.target, winPath(target).replace(/\\/g, '/'));
    }
    assert.deepEqual(testFiles(), [], 'no test file left');
    // bad input: a 4xx naming the field, nothing queued
    const bad = curlJob(d.url, { profile: 'cdm-default', target: winPath(target), size: 'lots' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.field, 'size');
  } finally {
    assert.equal((await d.stop(30000)).code, 0);
  }
});

test('the dashboard, a run\'s page and the compare page draw in Chromium against it', opts, async () => {
  assert.equal(runs.length, 2, 'the first test archived two runs');
  // playwright-core from the browser tests' pinned packages
  const req = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'browser', 'package.json'));
  const pw = await import(pathToFileURL(req.resolve('playwright-core')));
  const chromium = pw.chromium ?? pw.default.chromium;
  const d = await serve();
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(30000);
    const requests = [], errors = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(e.message));
    const resp = await page.goto(`${d.url}/`, { waitUntil: 'load' });
    assert.equal(resp.status(), 200);
    await page.goto(`${d.url}/#/runs`);
    for (const id of runs) await page.locator(`tr.run-row[data-run-id="${id}"]`).waitFor();
    await page.goto(`${d.url}/#/runs/${runs[0]}`);
    await page.waitForFunction(() => document.getElementById('run-chart')?.dataset.rendered === '1');
    assert.ok(await canvasDrawn(page, '#run-chart') > 1000, 'the run chart has pixels');
    const text = await page.locator('#run-root').innerText();
    assert.match(text, /wine-a/);
    assert.match(text, /ntfs/);
    await page.screenshot({ path: path.join(out, 'wine-run.png'), fullPage: true });
    await page.goto(`${d.url}/#/compare?runs=${runs.join(',')}`);
    await page.locator('#compare-table').waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('canvas.compare-bars')].every((c) => c.dataset.rendered === '1'));
    assert.ok(await canvasDrawn(page, 'canvas.compare-bars') > 1000, 'the bars have pixels');
    const cmp = (await api(d.url, 'GET', `/api/v1/compare?runs=${runs.join(',')}`)).json;
    const verdicts = await page.locator('#compare-verdicts p.verdict').allInnerTexts();
    assert.deepEqual(verdicts, cmp.verdicts.map((v) => v.text));
    await page.screenshot({ path: path.join(out, 'wine-compare.png'), fullPage: true });
    assert.deepEqual(requests.filter((u) => !isLoopback(u)), [], 'the dashboard loads nothing off loopback');
    assert.deepEqual(errors, []);
  } finally {
    await browser?.close();
    await d.stop(30000);
  }
});

test('killed mid-job: the next start marks the job interrupted, removes its test file, and runs the queue on', opts, async () => {
  const d = await serve();
  let jobs;
  try {
    const long = curlJob(d.url, { profile: 'cdm-default', target: winPath(target), size: '64MiB', iterations: 3, duration_s: 5 });
    const next = curlJob(d.url, { ...SMALL, profile: 'cdm-default', target: winPath(target), labels: ['after-kill'] });
    assert.equal(long.status, 202);
    assert.equal(next.status, 202);
    jobs = [long.json.id, next.json.id];
    const t0 = Date.now();
    while (testFiles().length === 0 && Date.now() - t0 < 60000) await new Promise((r) => setTimeout(r, 100));
    assert.equal(testFiles().length, 1, 'the test file appeared');
    await new Promise((r) => setTimeout(r, 1000));
  } finally {
    d.proc.kill('SIGKILL');
    await new Promise((r) => (d.proc.exitCode !== null || d.proc.signalCode ? r() : d.proc.once('exit', r)));
  }
  assert.equal(testFiles().length, 1, 'killed: the file is still there');
  const d2 = await serve();
  try {
    const first = (await api(d2.url, 'GET', `/api/v1/jobs/${jobs[0]}`)).json;
    assert.equal(first.state, 'interrupted', JSON.stringify(first));
    const second = await waitJob(d2.url, jobs[1], 180000);
    assert.equal(second.state, 'done', second.error);
    assert.deepEqual(testFiles(), [], 'the interrupted job\'s test file was removed');
    // every run archived before the kill is still there
    const list = (await api(d2.url, 'GET', '/api/v1/runs?limit=50')).json;
    for (const id of runs) assert.ok(list.runs.some((r) => r.id === id), `run ${id} kept`);
  } finally {
    await d2.stop(30000);
  }
});

test('the data directory and the token are private: a token others may read is refused with icacls\' words', opts, async () => {
  // a token file every user may read (wine turns mode 644 into an access
  // list with Everyone: read)
  const tok = path.join(root, 'shared-token');
  fs.writeFileSync(tok, 'abcdefghijklmnopqrstuvwxyz012345\n', { mode: 0o644 });
  fs.chmodSync(tok, 0o644);
  const r = spawnSync(WINE, [exe, 'serve', '--listen', '127.0.0.1:1', '--data', winPath(path.join(root, 'd2')),
    '--token-file', winPath(tok)], { env: wineEnv(prefix), encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /API token Z:.*shared-token: Everyone may read it; make it private: icacls "Z:.*shared-token" \/inheritance:r \/grant:r \*S-1-5-32-544:F \*S-1-5-[\d-]+:F/);
  // the token the daemon made: not for others
  const made = fs.statSync(path.join(data, 'api-token'));
  assert.equal(made.mode & 0o007, 0, `api-token mode ${(made.mode & 0o777).toString(8)}`);
});
