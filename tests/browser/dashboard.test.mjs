// Browser test of the storbench dashboard in headless Chromium (system /usr/bin/chromium),
// driven by playwright-core, against the real daemon.
//
//   cd tests/browser && npm ci
//   STORBENCH_BIN=/path/to/build/storbench STORBENCH_OUT=/path/to/out node dashboard.test.mjs
//
// STORBENCH_OUT receives the screenshots (run.png, form-error.png, jobs-running.png,
// form-mailbox-db.png, form-mailbox-db-error.png, form-file-create-error.png, cdm-nvme.png, one
// per preset's card, run-warnings.png (a run with many warnings), and run-view-{tiles,sweep,methods,rows}.png: a whole run page of each
// profile view) and the scratch folders (data dir and benchmark target, which must be on a real disk filesystem,
// not tmpfs). Prints "N passed, M failed" last; exits non-zero on any failure, including a
// missing Chromium.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDaemon, api, waitJob } from '../lib/daemon.mjs';
import { CHROMIUM, CHROMIUM_ARGS, isLoopback } from '../lib/browser.mjs';
import { runPageSteps } from './dashboard-run.mjs';
import { formSteps } from './dashboard-forms.mjs';

const TESTS = ['SEQ1M Q8T1', 'SEQ1M Q1T1', 'RND4K Q32T1', 'RND4K Q1T1'];
const OVERALL_TIMEOUT_MS = 10 * 60 * 1000;

let passed = 0;
let failed = 0;
const t0 = Date.now();

function finish(code) {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code ?? (failed ? 1 : 0));
}

/** Run one named check. A failing critical step ends the test (later steps depend on it). */
async function step(name, fn, { critical = true } = {}) {
  const s = Date.now();
  try {
    const r = await fn();
    passed++;
    console.log(`ok - ${name} (${Date.now() - s} ms)`);
    return r;
  } catch (e) {
    failed++;
    console.log(`not ok - ${name} (${Date.now() - s} ms)`);
    console.log(String(e?.stack || e).split('\n').map((l) => `  # ${l}`).join('\n'));
    if (critical) throw new Abort(name);
    return undefined;
  }
}
class Abort extends Error {}

const fmtMBs = (v) => v.toFixed(2); // the dashboard's CrystalDiskMark format

const state = { daemon: null, browser: null, work: null, requests: [], pageErrors: [], jobPosts: 0 };

async function cleanup() {
  try { await state.browser?.close(); } catch { /* ignore */ }
  if (state.daemon) {
    try { await state.daemon.stop(10000); } catch (e) { console.log(`# stopping the daemon: ${e.message}`); }
  }
}

async function main() {
  const bin = process.env.STORBENCH_BIN;
  const out = process.env.STORBENCH_OUT;

  await step('environment: STORBENCH_BIN, STORBENCH_OUT, chromium, playwright-core', async () => {
    assert.ok(bin, 'set STORBENCH_BIN to the storbench binary');
    assert.ok(out, 'set STORBENCH_OUT to an output folder (screenshots and scratch dirs go there)');
    fs.accessSync(bin, fs.constants.X_OK);
    try {
      fs.accessSync(CHROMIUM, fs.constants.X_OK);
    } catch {
      throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium); this test does not skip`);
    }
    fs.mkdirSync(out, { recursive: true });
  });

  let chromium;
  await step('load playwright-core', async () => {
    try {
      ({ chromium } = await import('playwright-core'));
    } catch (e) {
      throw new Error(`playwright-core is not installed: run "npm ci" in ${path.dirname(fileURLToPath(import.meta.url))} (${e.message})`);
    }
  });

  const work = fs.mkdtempSync(path.join(path.resolve(out), 'browser-work-'));
  state.work = work;
  const dataDir = path.join(work, 'data');
  const target = path.join(work, 'target');
  fs.mkdirSync(dataDir);
  fs.mkdirSync(target);

  await step('scratch folders are on a real disk filesystem (not tmpfs)', async () => {
    const fstype = execFileSync('stat', ['-f', '-c', '%T', target], { encoding: 'utf8' }).trim();
    console.log(`  # target ${target} is on ${fstype}`);
    assert.ok(!['tmpfs', 'ramfs'].includes(fstype), `STORBENCH_OUT is on ${fstype}; point it at a disk-backed folder`);
  });

  const d = await step('start the daemon', async () => {
    state.daemon = await startDaemon({
      bin, dataDir, quiet: !process.env.STORBENCH_VERBOSE,
      allow: [work, 'smb://127.0.0.1:1/bench'],
    });
    return state.daemon;
  });
  const url = d.url;

  // ---------------------------------------------------------------- a run via the API
  const run = await step('POST a cdm-default job via the API, wait for done, fetch the run', async () => {
    const r = await api(url, 'POST', '/api/v1/jobs', {
      target, profile: 'cdm-default', size: '64MiB', iterations: 1, duration_s: 1, labels: ['browser-test'],
    });
    assert.equal(r.status, 202, `POST /api/v1/jobs answered ${r.status}: ${r.text}`);
    assert.ok(r.json && Number.isInteger(r.json.id), `job has no id: ${r.text}`);
    const job = await waitJob(url, r.json.id, 180000);
    assert.equal(job.state, 'done', `job ended ${job.state}: ${job.error}`);
    assert.ok(job.run_id != null, 'done job has no run_id');
    const rr = await api(url, 'GET', `/api/v1/runs/${job.run_id}`);
    assert.equal(rr.status, 200, `GET /api/v1/runs/${job.run_id} answered ${rr.status}`);
    const tests = rr.json.tests ?? [];
    for (const name of TESTS) {
      for (const rw of ['read', 'write']) {
        const t = tests.find((x) => x.test === name && x.rw === rw);
        assert.ok(t, `run has no test ${name} ${rw}`);
        assert.ok(typeof t.best?.mb_s === 'number', `${name} ${rw} has no best.mb_s`);
      }
    }
    return rr.json;
  });

  // ---------------------------------------------------------------- browser
  const page = await step('launch headless Chromium and open the dashboard', async () => {
    state.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60000 });
    const context = await state.browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const p = await context.newPage();
    p.setDefaultTimeout(20000);
    p.on('request', (req) => {
      state.requests.push(req.url());
      if (req.method() === 'POST' && req.url().endsWith('/api/v1/jobs')) state.jobPosts++;
    });
    p.on('pageerror', (e) => state.pageErrors.push(`pageerror: ${e.message}`));
    p.on('console', (m) => {
      // a 4xx from the API is expected where the test provokes one (bad size); the page shows it itself
      if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) {
        state.pageErrors.push(`console.error: ${m.text()}`);
      }
    });
    p.on('dialog', (dlg) => dlg.accept());
    const resp = await p.goto(`${url}/`, { waitUntil: 'load' });
    assert.equal(resp.status(), 200, `GET / answered ${resp.status()}`);
    assert.equal(await p.evaluate(() => typeof window.Chart), 'function', 'Chart.js (window.Chart) did not load from /static/vendor/');
    await p.locator('#job-form').waitFor();
    // profiles are loaded into the select
    await p.waitForFunction(() => [...document.querySelectorAll('#f-profile option')].some((o) => o.value === 'cdm-default'));
    // in the daemon's order, the first one selected
    const listed = (await api(url, 'GET', '/api/v1/profiles')).json.profiles.map((x) => x.name);
    assert.deepEqual(await p.$$eval('#f-profile option', (os) => os.map((o) => o.value)), listed);
    assert.equal(await p.inputValue('#f-profile'), listed[0]);
    return p;
  });

  const ctx = { url, page, run, target, out, state, step, TESTS, fmtMBs };
  await runPageSteps(ctx);
  await formSteps(ctx);

  // ---------------------------------------------------------------- live events
  await step('live: job cards move with the event stream; without it the page polls every second', async () => {
    await page.goto(`${url}/#/`);
    await page.waitForFunction(() => document.body.dataset.live === 'stream');
    // a job posted here, not from the page: an idle page polling finds it
    // at its next poll (up to 3 s: the stream's retry polls too), so the
    // polled job runs long enough to be seen running, then watched 2.4 s
    const job = async (duration_s = 3) => {
      const r = await api(url, 'POST', '/api/v1/jobs', { target, profile: 'custom', size: '16MiB', iterations: 1, duration_s,
        tests: [{ name: 'RND4K Q4T1', block_size: '4KiB', queue_depth: 4 }] });
      assert.equal(r.status, 202, r.text);
      return r.json.id;
    };
    // watch the card's live figure change over time
    const watch = async (id, want) => {
      const card = page.locator(`.job[data-job-id="${id}"]`);
      await card.locator('.live-num').first().waitFor({ timeout: 20000 });
      await page.waitForFunction((w) => document.querySelector('#jobs-status').textContent.includes(w), want);
      const seen = new Set();
      for (let i = 0; i < 12; i++) {
        seen.add(await card.locator('.job-progress').innerText().catch(() => ''));
        await sleep(200);
      }
      await waitJob(url, id, 60000);
      return seen.size;
    };
    const streamed = await watch(await job(), 'live');
    assert.ok(streamed >= 3, `${streamed} different progress texts over 2.4 s on the stream`);
    // the stream cannot be had: the page falls back to polling (the
    // aborted requests' console errors are ours, and dropped below)
    const errorsBefore = state.pageErrors.length;
    await page.route('**/api/v1/events', (r) => r.abort());
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.live === 'polling');
    const polled = await watch(await job(8), 'updating every second');
    assert.ok(polled >= 2, `${polled} different progress texts over 2.4 s by polling`);
    await page.unroute('**/api/v1/events');
    state.pageErrors.splice(errorsBefore, Infinity,
      ...state.pageErrors.slice(errorsBefore).filter((e) => !/net::ERR_FAILED/.test(e)));
  });

  // ---------------------------------------------------------------- a daemon that needs its token
  await step('--require-token: the dashboard asks for the token, keeps it in the tab, downloads with it', async () => {
    const d2 = await startDaemon({ bin, dataDir: path.join(work, 'data-token'), args: ['--require-token'], quiet: true });
    try {
      const tok = fs.readFileSync(path.join(work, 'data-token', 'api-token'), 'utf8').trim();
      const auth = { headers: { Authorization: `Bearer ${tok}` } };
      const q = await api(d2.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '8MiB', iterations: 1, duration_s: 0.5,
        labels: ['token-run'], tests: [{ name: 'RND4K Q1T1', block_size: '4KiB' }] }, auth);
      assert.equal(q.status, 202, q.text);
      const wait = Date.now() + 60000;
      let job;
      do {
        await sleep(250);
        job = (await api(d2.url, 'GET', `/api/v1/jobs/${q.json.id}`, undefined, auth)).json;
      } while (job.state !== 'done' && job.state !== 'failed' && Date.now() < wait);
      assert.equal(job.state, 'done', job.error);
      const p2 = await page.context().newPage();
      p2.setDefaultTimeout(20000);
      p2.on('request', (req) => state.requests.push(req.url()));
      p2.on('pageerror', (e) => state.pageErrors.push(`pageerror: ${e.message}`));
      await p2.goto(`${d2.url}/#/runs`);
      const dlg = p2.locator('#token-dialog');
      await dlg.waitFor({ state: 'visible' });
      assert.match(await p2.locator('#token-detail').innerText(), /needs the API token/);
      await p2.fill('#token-input', 'not-the-token-0000');
      await p2.click('#token-ok');
      await dlg.waitFor({ state: 'visible' });
      assert.match(await p2.locator('#token-detail').innerText(), /does not match/);
      await p2.fill('#token-input', tok);
      await p2.click('#token-ok');
      await dlg.waitFor({ state: 'hidden' });
      const row = p2.locator(`#runs-body tr[data-run-id="${job.run_id}"]`);
      await row.waitFor();
      assert.match(await row.innerText(), /token-run/);
      assert.equal(await p2.evaluate(() => sessionStorage.getItem('storbench.token')), tok);
      assert.equal(await p2.evaluate(() => localStorage.length), 0, 'nothing in localStorage');
      assert.ok(!p2.url().includes(tok), 'the token is not in the URL');
      await p2.goto(`${d2.url}/#/runs/${job.run_id}`);
      const csv = p2.locator('#run-csv');
      await csv.waitFor();
      const [dl] = await Promise.all([p2.waitForEvent('download'), csv.click()]);
      assert.match(dl.suggestedFilename(), /\.csv$/);
      const text = fs.readFileSync(await dl.path(), 'utf8');
      assert.match(text, /RND4K Q1T1/);
      assert.ok(!state.requests.some((u) => u.includes(tok)), 'no request carried the token in its URL');
      await p2.close();
    } finally {
      await d2.stop().catch(() => {});
    }
  });

  // ---------------------------------------------------------------- global checks
  await step('no request left the loopback interface', async () => {
    const outside = [...new Set(state.requests.filter((u) => !isLoopback(u)))];
    console.log(`  # ${state.requests.length} requests, all checked`);
    assert.deepEqual(outside, [], `non-loopback requests: ${outside.join(', ')}`);
  });

  await step('no JavaScript errors on the page', async () => {
    assert.deepEqual(state.pageErrors, []);
  }, { critical: false });

  // cleanup of the scratch folders happens only when everything passed
  if (!failed) fs.rmSync(work, { recursive: true, force: true });
}

const guard = setTimeout(() => {
  console.log(`not ok - overall timeout of ${OVERALL_TIMEOUT_MS / 1000} s`);
  failed++;
  cleanup().finally(() => finish(1));
}, OVERALL_TIMEOUT_MS);

try {
  await main();
} catch (e) {
  if (!(e instanceof Abort)) {
    failed++;
    console.log(`not ok - unexpected error\n  # ${String(e?.stack || e)}`);
  } else {
    console.log(`  # stopped after the failed step "${e.message}"`);
  }
  if (state.work) console.log(`  # scratch folders kept in ${state.work}`);
}
await cleanup();
clearTimeout(guard);
console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s`);
finish();
