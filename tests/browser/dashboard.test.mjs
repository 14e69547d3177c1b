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
import { CHROMIUM, CHROMIUM_ARGS, isLoopback, canvasDrawn } from '../lib/browser.mjs';

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

  await step('open the run from the archive list', async () => {
    const row = page.locator(`#runs-body tr[data-run-id="${run.id}"]`);
    await row.waitFor();
    const rowText = await row.innerText();
    assert.match(rowText, /browser-test/, 'archive row does not show the label');
    assert.match(rowText, /cdm-default/, 'archive row does not show the profile');
    await row.locator('td').nth(2).click(); // a plain cell: the whole row is clickable
    await page.waitForFunction((id) => location.hash === `#/runs/${id}`, run.id);
    await page.locator('.tile[data-test="SEQ1M Q8T1"][data-rw="read"] .tile-mbs').waitFor();
  });

  await step('the 8 tiles show the archived best MB/s with 2 decimals', async () => {
    const tiles = await page.$$eval('.tile[data-test][data-rw]', (els) =>
      els.map((e) => ({ test: e.dataset.test, rw: e.dataset.rw, mbs: e.querySelector('.tile-mbs')?.textContent.trim() })));
    const problems = [];
    for (const name of TESTS) {
      for (const rw of ['read', 'write']) {
        const want = fmtMBs(run.tests.find((x) => x.test === name && x.rw === rw).best.mb_s);
        const got = tiles.filter((x) => x.test === name && x.rw === rw);
        if (got.length !== 1) problems.push(`${name} ${rw}: ${got.length} tiles`);
        else if (got[0].mbs !== want) problems.push(`${name} ${rw}: tile shows "${got[0].mbs}", archive best is ${want}`);
      }
    }
    assert.equal(tiles.length, 8, `expected 8 tiles, found ${tiles.length}`);
    assert.deepEqual(problems, []);
  });

  await step('the Chart.js bar chart has drawn pixels', async () => {
    await page.mouse.move(0, 0); // no hover highlight on a bar
    const deadline = Date.now() + 10000;
    let px;
    do {
      px = await page.evaluate(() => {
        const c = document.getElementById('run-chart');
        if (!c || !c.width || !c.height) return null;
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let opaque = 0, blue = 0, orange = 0;
        const near = (i, r, g, b) => Math.abs(d[i] - r) < 24 && Math.abs(d[i + 1] - g) < 24 && Math.abs(d[i + 2] - b) < 24;
        for (let i = 0; i < d.length; i += 4) {
          if (d[i + 3] === 0) continue;
          opaque++;
          if (d[i + 3] > 200 && near(i, 0x2f, 0x7e, 0xd8)) blue++;
          if (d[i + 3] > 200 && near(i, 0xe0, 0x88, 0x2b)) orange++;
        }
        return { w: c.width, h: c.height, opaque, blue, orange, rendered: c.dataset.rendered === '1' };
      });
      if (px && px.rendered && px.opaque > 3000 && px.blue > 50 && px.orange > 50) break;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() < deadline);
    console.log(`  # canvas ${px?.w}x${px?.h}: ${px?.opaque} drawn pixels, ${px?.blue} read-colour, ${px?.orange} write-colour`);
    assert.ok(px, '#run-chart canvas missing or empty');
    assert.ok(px.opaque > 3000, `only ${px.opaque} non-transparent pixels on #run-chart`);
    assert.ok(px.blue > 50, 'no read bars drawn');
    assert.ok(px.orange > 50, 'no write bars drawn');
  });

  await step('the per-second chart has drawn a line for every test', async () => {
    await page.waitForFunction(() => document.getElementById('samples-chart')?.dataset.rendered === '1', null, { timeout: 10000 });
    const px = await page.evaluate(() => {
      const c = document.getElementById('samples-chart');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let opaque = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]) opaque++;
      return { opaque, lines: window.Chart.getChart(c)?.data.datasets.length ?? 0 };
    });
    assert.ok(px.opaque > 2000, `only ${px.opaque} drawn pixels on #samples-chart`);
    assert.equal(px.lines, 8, 'one line per test and direction');
  });

  await step('the counters card draws the engine against the device and the CPU', async () => {
    const ids = ['counters-io-chart', 'counters-cpu-chart'];
    await page.waitForFunction((ids) => ids.every((id) => document.getElementById(id)?.dataset.rendered === '1'), ids, { timeout: 10000 });
    const got = [];
    for (const id of ids) {
      got.push({ opaque: await canvasDrawn(page, `#${id}`),
        labels: await page.$eval(`#${id}`, (c) => window.Chart.getChart(c)?.data.datasets.map((x) => x.label) ?? []) });
    }
    assert.ok(got[0].opaque > 2000 && got[1].opaque > 2000, JSON.stringify(got.map((g) => g.opaque)));
    assert.ok(got[0].labels.includes('engine IOPS') && got[1].labels.includes('busiest core %'), JSON.stringify(got));
    // a device when the target is on one (the card names it)
    const dev = run.probe?.disk ? got[0].labels.find((l) => /^device \S+ IOPS$/.test(l)) : true;
    assert.ok(dev, `no device line: ${JSON.stringify(got[0].labels)}`);
  });

  await step('the run page shows probe, spec, engine, labels and every iteration', async () => {
    const text = await page.locator('#run-root').innerText();
    assert.ok(run.probe?.hostname == null || text.includes(run.probe.hostname), 'hostname missing');
    assert.ok(run.probe?.fs_type == null || text.includes(run.probe.fs_type), 'fs type missing');
    assert.match(text, /browser-test/, 'label missing');
    assert.match(text, /MB\/s/, 'MB/s unit missing');
    assert.match(text, /µs/, 'µs unit missing');
    const rows = await page.locator('#iter-table tbody tr').count();
    const want = run.tests.reduce((n, t) => n + (t.iterations?.length ?? 0), 0);
    assert.equal(rows, want, `iteration table has ${rows} rows, run has ${want} iterations`);
  }, { critical: false });

  await step('screenshot run.png', async () => {
    await page.waitForFunction(() => document.getElementById('run-chart')?.dataset.rendered === '1');
    await page.screenshot({ path: path.join(out, 'run.png'), fullPage: true });
  }, { critical: false });

  await step('a steady-state run: the rounds chart is drawn and says whether it settled', async () => {
    const r = await api(url, 'POST', '/api/v1/jobs', { target, profile: 'custom', size: '16MiB', engine: 'null',
      tests: [{ block_size: '4KiB', queue_depth: 4, steady_state: { round_s: 0.1, window: 3, max_rounds: 4, range_pct: 0 } }] });
    assert.equal(r.status, 202, r.text);
    const job = await waitJob(url, r.json.id, 60000);
    assert.equal(job.state, 'done', job.error);
    await page.goto(`${url}/#/runs/${job.run_id}`);
    await page.waitForFunction(() => document.querySelector('#steady-card .steady-chart')?.dataset.rendered === '1', null, { timeout: 10000 });
    const px = await canvasDrawn(page, '#steady-card .steady-chart');
    assert.ok(px > 2000, `only ${px} drawn pixels on the steady-state chart`);
    const text = await page.locator('#steady-card').innerText();
    assert.match(text, /not reached/);
    assert.match(text, /not steady after 4 rounds: rounds 2–4, range [\d.]+ % of the mean \(limit 0 %\)/);
    const sets = await page.evaluate(() => window.Chart.getChart(document.querySelector('#steady-card .steady-chart')).data.datasets.map((d) => d.label));
    assert.deepEqual(sets.filter((l) => !l.endsWith('(low)')), ['IOPS', 'window mean', 'least-squares fit', '±20 %', '±10 %']);
  }, { critical: false });

  await step('many warnings: the banner shows the first kinds, one line per kind, the rest behind "N more"', async () => {
    // four tests that cannot settle (one kind, said four times) and a
    // buffered file smaller than RAM (another): 5 warnings, 2 lines
    const ss = { round_s: 0.1, window: 2, max_rounds: 2, range_pct: 0 };
    const r = await api(url, 'POST', '/api/v1/jobs', { target, profile: 'custom', size: '16MiB', engine: 'null', direct: false,
      tests: ['A', 'B', 'C', 'D'].map((n) => ({ name: `RND4K ${n}`, block_size: '4KiB', queue_depth: 1, steady_state: ss })) });
    assert.equal(r.status, 202, r.text);
    const job = await waitJob(url, r.json.id, 60000);
    assert.equal(job.state, 'done', job.error);
    const run = (await api(url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
    const notSteady = run.warnings.filter((w) => /^RND4K [A-D] read: /.test(w));
    assert.equal(notSteady.length, 4, run.warnings.join('\n'));
    await page.goto(`${url}/#/runs/${job.run_id}`);
    const banner = page.locator('#run-root .warnings-banner');
    await banner.waitFor();
    assert.match(await banner.innerText(), new RegExp(`^${run.warnings.length} warnings:`));
    const inline = await banner.locator(':scope > ul > li').allInnerTexts();
    assert.ok(inline.length >= 2 && inline.length <= 3, inline.join('\n'));
    const grouped = inline.filter((t) => t.startsWith(notSteady[0]));
    assert.deepEqual(grouped, [`${notSteady[0]} (and 3 more like it)`]);
    const details = banner.locator('details');
    assert.equal(await details.evaluate((d) => d.open), false, 'the rest is folded');
    const rest = run.warnings.length - inline.length;
    assert.equal(await details.locator('summary').innerText(), `${rest} more`);
    const folded = await details.locator('li').allTextContents();
    assert.equal(folded.length, rest);
    for (const w of notSteady.slice(1)) assert.ok(folded.includes(w), `${w} is behind "${rest} more"`);
    await page.screenshot({ path: path.join(out, 'run-warnings.png') });
  }, { critical: false });

  // ---------------------------------------------------------------- job form
  await step('job form: bad size "abc" shows the daemon\'s error naming the field size', async () => {
    await page.goto(`${url}/#/`);
    await page.locator('#job-form').waitFor();
    await page.fill('#f-target', target);
    await page.fill('#f-size', 'abc');
    const respP = page.waitForResponse((r) => r.url().endsWith('/api/v1/jobs') && r.request().method() === 'POST');
    await page.click('#job-submit');
    const resp = await respP;
    assert.equal(resp.status(), 400, `POST with size "abc" answered ${resp.status()}`);
    assert.match(resp.headers()['content-type'] ?? '', /application\/problem\+json/);
    const prob = await resp.json();
    assert.equal(prob.field, 'size', `problem+json names field ${prob.field}`);
    const box = page.locator('#job-error');
    await box.waitFor({ state: 'visible' });
    assert.equal(await box.getAttribute('data-field'), 'size');
    const msg = await box.innerText();
    assert.match(msg, /size/, `error box says: ${msg}`);
    assert.ok(msg.includes(prob.detail), `error box does not show the detail "${prob.detail}": ${msg}`);
    assert.equal(await page.getAttribute('#f-size', 'aria-invalid'), 'true', 'size input is not marked invalid');
    assert.ok(await page.$eval('#f-size', (e) => e.classList.contains('invalid')), 'size input is not highlighted');
    await page.screenshot({ path: path.join(out, 'form-error.png') });
  }, { critical: false });

  await step('job form: an smb:// target shows the SMB fields with the stored credentials, and sends them', async () => {
    const c = await api(url, 'POST', '/api/v1/credentials', { name: 'filer-ui', user: 'bench', password: 'ui-secret-9' });
    assert.equal(c.status, 201, c.text);
    await page.goto(`${url}/#/`);
    await page.locator('#job-form').waitFor();
    assert.ok(await page.locator('#smb-fields').isHidden(), 'SMB fields hidden for a local target');
    // nothing listens on port 1: the daemon answers that it cannot reach the server
    await page.fill('#f-target', 'smb://127.0.0.1:1/bench');
    await page.locator('#smb-fields').waitFor({ state: 'visible' });
    await page.locator('#f-credential option[value="filer-ui"]').waitFor({ state: 'attached' });
    assert.match(await page.locator('#f-credential').innerText(), /filer-ui \(bench\)/);
    await page.selectOption('#f-smb-max', 'SMB3_02');
    await page.check('input[name=smb_signing]');
    await page.fill('#f-size', '');
    const respP = page.waitForResponse((r) => r.url().endsWith('/api/v1/jobs') && r.request().method() === 'POST');
    await page.click('#job-submit');
    const resp = await respP;
    const sent = JSON.parse(resp.request().postData());
    assert.equal(sent.credential, 'filer-ui');
    assert.deepEqual(sent.smb, { max_protocol: 'SMB3_02', require_signing: true });
    assert.equal(resp.status(), 400);
    const prob = await resp.json();
    assert.equal(prob.field, 'target');
    assert.match(prob.detail, /cannot reach the SMB server/);
    const box = page.locator('#job-error');
    await box.waitFor({ state: 'visible' });
    assert.ok((await box.innerText()).includes(prob.detail));
    assert.ok(!(await page.content()).includes('ui-secret-9'), 'the password is nowhere on the page');
    await page.screenshot({ path: path.join(out, 'form-smb.png') });
    await page.fill('#f-target', target);
    assert.ok(await page.locator('#smb-fields').isHidden(), 'SMB fields hidden again for a local target');
  }, { critical: false });

  await step('job form: submit a job, watch live progress, cancel it', async () => {
    await page.fill('#f-size', '64MiB');
    await page.fill('#f-iterations', '3');
    await page.fill('#f-duration', '2');
    await page.fill('#f-labels', 'browser-cancel, ui');
    const respP = page.waitForResponse((r) => r.url().endsWith('/api/v1/jobs') && r.request().method() === 'POST');
    await page.click('#job-submit');
    const resp = await respP;
    assert.equal(resp.status(), 202, `POST answered ${resp.status()}: ${await resp.text()}`);
    const job = await resp.json();
    assert.deepEqual(job.labels, ['browser-cancel', 'ui']);
    assert.equal(job.size, 64 * 1024 * 1024);
    assert.equal(await page.isVisible('#job-error'), false, 'error box still visible after a good submit');
    const card = page.locator(`.job[data-job-id="${job.id}"]`);
    await card.waitFor();
    await page.waitForFunction((id) => {
      const c = document.querySelector(`.job[data-job-id="${id}"]`);
      return c && c.dataset.state === 'running' && /measuring/.test(c.querySelector('.job-progress')?.textContent ?? '');
    }, job.id, { timeout: 60000 });
    const width = await card.locator('.bar-fill').evaluate((e) => parseFloat(e.style.width));
    assert.ok(width > 0, 'progress bar is empty while measuring');
    await page.waitForTimeout(1500); // let the live chart collect a few samples
    await page.screenshot({ path: path.join(out, 'jobs-running.png') });
    await card.locator('button', { hasText: 'Cancel' }).click();
    await page.waitForFunction((id) => document.querySelector(`.job[data-job-id="${id}"]`)?.dataset.state === 'cancelled',
      job.id, { timeout: 15000 });
    assert.equal(await card.locator('button', { hasText: 'Cancel' }).isVisible(), false, 'Cancel still shown for a cancelled job');
    const final = await api(url, 'GET', `/api/v1/jobs/${job.id}`);
    assert.equal(final.json.state, 'cancelled');
  }, { critical: false });

  await step('custom profile: the form sends every workload field; a bad block size marks its input', async () => {
    await page.goto(`${url}/#/`);
    await page.locator('#job-form').waitFor();
    await page.fill('#f-target', target);
    await page.selectOption('#f-profile', 'custom');
    await page.locator('#custom-tests').waitFor({ state: 'visible' });
    await page.fill('#f-size', '64MiB');
    await page.fill('#f-iterations', '2');
    await page.fill('#f-duration', '1');
    await page.fill('#f-labels', 'browser-custom');
    const row = page.locator('#custom-rows .test-row').first();
    await row.locator('[data-key=read_pct]').fill('70');
    await row.locator('[data-key=block_size]').fill('1000');
    await row.locator('[data-key=queue_depth]').fill('4');
    await row.locator('[data-key=threads]').fill('2');
    let respP = page.waitForResponse((r) => r.url().endsWith('/api/v1/jobs') && r.request().method() === 'POST');
    await page.click('#job-submit');
    let resp = await respP;
    assert.equal(resp.status(), 400);
    assert.equal((await resp.json()).field, 'tests[0].block_size');
    await page.locator('#job-error').waitFor({ state: 'visible' });
    assert.equal(await row.locator('[data-key=block_size]').getAttribute('aria-invalid'), 'true', 'block size input not marked');
    assert.match(await page.innerText('#job-error'), /multiple of 512/);

    await row.locator('[data-key=block_size]').fill('8KiB');
    await page.click('#add-test');
    const row2 = page.locator('#custom-rows .test-row').nth(1);
    await row2.locator('[data-key=pattern]').selectOption('sequential');
    await row2.locator('[data-key=read_pct]').fill('0');
    await row2.locator('[data-key=block_size]').fill('1MiB');
    await row2.locator('[data-key=queue_depth]').fill('2');
    await row2.locator('[data-key=io_size]').fill('16MiB');
    await row2.locator('[data-key=sync]').selectOption('fdatasync');
    await row2.locator('[data-key=sync_every]').fill('4');
    await page.click('#advanced summary');
    await page.selectOption('#f-data', 'zeros');
    await page.fill('#f-ramp', '0.5');
    respP = page.waitForResponse((r) => r.url().endsWith('/api/v1/jobs') && r.request().method() === 'POST');
    await page.click('#job-submit');
    resp = await respP;
    assert.equal(resp.status(), 202, `custom job answered ${resp.status()}: ${await resp.text()}`);
    const job = await resp.json();
    assert.equal(job.profile, 'custom');
    assert.deepEqual(job.tests.map((t) => [t.name, t.pattern, t.read_pct, t.block_size, t.queue_depth, t.threads, t.io_size, t.sync, t.sync_every ?? null, t.data, t.ramp_s]), [
      ['RND8K Q4T2 R70', 'random', 70, 8192, 4, 2, 0, 'none', null, 'zeros', 0.5],
      ['SEQ1M Q2T1', 'sequential', 0, 1048576, 2, 1, 16777216, 'fdatasync', 4, 'zeros', 0],
    ]);
    const done = await waitJob(url, job.id, 120000);
    assert.equal(done.state, 'done', `custom job ended ${done.state}: ${done.error}`);
    await page.goto(`${url}/#/runs/${done.run_id}`);
    await page.locator('#plan-table').waitFor();
    const plan = await page.locator('#plan-table tbody tr').allInnerTexts();
    assert.equal(plan.length, 2);
    assert.match(plan[1], /SEQ1M Q2T1\s+sequential\s+0\s+1 MiB\s+2\s+1\s+16 MiB of I\/O/);
    assert.match(plan[1], /fdatasync every 4/);
    const lat = await page.locator('#latency-table tbody tr').allInnerTexts();
    assert.equal(lat.length, 2, `latency rows: ${lat.join(' | ')}`);
    const runJson = (await api(url, 'GET', `/api/v1/runs/${done.run_id}`)).json;
    const mix = runJson.tests.find((t) => t.test === 'RND8K Q4T2 R70');
    assert.equal(mix.rw, 'mix');
    assert.equal(mix.latency_us.ios, mix.iterations.reduce((a, it) => a + it.ios, 0), 'merged histogram holds every I/O of both iterations');
    const seq = runJson.tests.find((t) => t.test === 'SEQ1M Q2T1');
    assert.deepEqual(seq.iterations.map((it) => it.bytes), [16777216, 16777216], 'size-based test moved exactly its io_size');
    await page.screenshot({ path: path.join(out, 'custom-run.png'), fullPage: true });
  }, { critical: false });

  // ---------------------------------------------------------------- typed option fields
  const jobCount = async () => (await api(url, 'GET', '/api/v1/jobs?limit=1000')).json.jobs.length;
  const el = (name) => page.locator(`[name="${name}"]`);
  /** Submit; the form itself refuses, marks `field` (the input `input`), sends nothing, queues nothing. */
  const refusedByForm = async (field, input, text) => {
    const posts = state.jobPosts;
    const queued = await jobCount();
    await page.click('#job-submit');
    await page.locator(`#job-error[data-field="${field}"]`).waitFor({ state: 'visible' });
    assert.equal(await el(input).getAttribute('aria-invalid'), 'true', `${input} is not marked`);
    const beside = await page.locator(`.field-error[data-for="${input}"]`).innerText();
    assert.match(beside, text, `beside ${input}: "${beside}"`);
    assert.equal(state.jobPosts, posts, 'the form sent a request');
    assert.equal(await jobCount(), queued, 'a job was queued');
  };
  /** Submit; the daemon refuses with problem+json naming `field`, marked on `input`; nothing queued. */
  const refusedByDaemon = async (field, input, status = 400) => {
    const queued = await jobCount();
    const respP = page.waitForResponse((r) => r.url().endsWith('/api/v1/jobs') && r.request().method() === 'POST');
    await page.click('#job-submit');
    const resp = await respP;
    assert.equal(resp.status(), status, await resp.text());
    assert.match(resp.headers()['content-type'] ?? '', /application\/problem\+json/);
    const prob = await resp.json();
    assert.equal(prob.field, field);
    await page.locator(`#job-error[data-field="${field}"]`).waitFor({ state: 'visible' });
    assert.equal(await el(input).getAttribute('aria-invalid'), 'true', `${input} is not marked`);
    assert.ok((await page.locator(`.field-error[data-for="${input}"]`).innerText()).includes(prob.detail), 'the detail is not beside the input');
    assert.equal(await jobCount(), queued, 'a job was queued');
    return prob;
  };
  const accepted = async () => {
    const respP = page.waitForResponse((r) => r.url().endsWith('/api/v1/jobs') && r.request().method() === 'POST');
    await page.click('#job-submit');
    const resp = await respP;
    assert.equal(resp.status(), 202, await resp.text());
    assert.equal(await page.isVisible('#job-error'), false, 'error box still visible after a good submit');
    return { sent: JSON.parse(resp.request().postData()), job: await resp.json() };
  };
  const openForm = async (profile) => { // a fresh form: nothing left from the steps before
    await page.goto(`${url}/#/`);
    await page.reload();
    await page.locator('#job-form').waitFor();
    await page.waitForFunction((p) => [...document.querySelectorAll('#f-profile option')].some((o) => o.value === p), profile);
    await page.fill('#f-target', target);
    await page.selectOption('#f-profile', profile);
  };

  await step('preset from the form: seq-sweep with typed options; bad input is caught before sending', async () => {
    await openForm('seq-sweep');
    await page.locator('#options-field').waitFor({ state: 'visible' });
    await page.fill('#f-size', '32MiB');
    await page.fill('#f-iterations', '1');
    await page.fill('#f-duration', '0.5');
    await el('options.block_sizes').fill('4096,'); // an empty item: no request
    await refusedByForm('options.block_sizes[1]', 'options.block_sizes', /empty/);
    await el('options.block_sizes').fill('4KiB, 1MiB');
    await el('options.queue_depth').fill('2');
    const { sent, job } = await accepted();
    assert.deepEqual(sent.options, { block_sizes: ['4KiB', '1MiB'], queue_depth: 2 });
    assert.deepEqual(job.options, { block_sizes: [4096, 1048576], queue_depth: 2, threads: 1 });
    assert.equal((await waitJob(url, job.id, 60000)).state, 'done');
  }, { critical: false });

  await step('cdm-nvme from the form: its eight tiles on the run page (screenshot cdm-nvme.png)', async () => {
    const prof = (await api(url, 'GET', '/api/v1/profiles')).json.profiles.find((x) => x.name === 'cdm-nvme');
    assert.ok(prof, 'no cdm-nvme in /profiles');
    assert.equal(prof.view, 'tiles');
    await openForm('cdm-nvme');
    assert.equal(await page.locator('#options-field').isVisible(), false, 'cdm-nvme has no options');
    assert.match(await page.innerText('#profile-hint'), /SEQ128K Q32T1/);
    await page.fill('#f-size', '32MiB');
    await page.fill('#f-iterations', '1');
    await page.fill('#f-duration', '0.5');
    await page.fill('#f-labels', 'browser-nvme');
    const { sent, job } = await accepted();
    assert.deepEqual(sent, { target, profile: 'cdm-nvme', size: '32MiB', iterations: 1, duration_s: 0.5, labels: ['browser-nvme'] });
    const done = await waitJob(url, job.id, 120000);
    assert.equal(done.state, 'done', done.error);
    const run = (await api(url, 'GET', `/api/v1/runs/${done.run_id}`)).json;
    await page.goto(`${url}/#/runs/${done.run_id}`);
    await page.locator('.tile[data-test="RND4K Q32T16"][data-rw="write"] .tile-mbs').waitFor();
    await page.waitForFunction(() => document.getElementById('run-chart')?.dataset.rendered === '1');
    const tiles = await page.$$eval('.tile[data-test][data-rw]', (els) =>
      els.map((e) => ({ test: e.dataset.test, rw: e.dataset.rw, mbs: e.querySelector('.tile-mbs')?.textContent.trim() })));
    assert.equal(tiles.length, 8, `tiles: ${JSON.stringify(tiles)}`);
    assert.deepEqual(tiles.map((t) => `${t.test} ${t.rw}`).sort(), prof.tests.map((t) => `${t.test} ${t.rw}`).sort());
    for (const t of tiles) {
      const best = run.tests.find((x) => x.test === t.test && x.rw === t.rw)?.best;
      assert.ok(best, `${t.test} ${t.rw} not in the run`);
      assert.equal(t.mbs, fmtMBs(best.mb_s), `${t.test} ${t.rw}`);
    }
    const rows = await page.locator('.tile-rowhead').allInnerTexts();
    assert.deepEqual(rows.map((r) => r.replace(/\s+/g, ' ').trim()), ['SEQ1M Q8T1', 'SEQ128K Q32T1', 'RND4K Q32T16', 'RND4K Q1T1']);
    assert.equal(await page.locator('#preset-card').count(), 0, 'a tiles profile has no extra card');
    await page.mouse.move(0, 0);
    await page.locator('.run-top').screenshot({ path: path.join(out, 'cdm-nvme.png') });
  }, { critical: false });

  await step('mailbox-db from the form: typed options; bad values marked on their own fields (screenshots form-mailbox-db*.png)', async () => {
    await openForm('mailbox-db');
    await page.locator('#options-field').waitFor({ state: 'visible' });
    // inputs generated from fields.options, named by their API paths
    for (const name of ['options.database_paths[0]', 'options.log_paths[0]', 'options.databases', 'options.database_size',
      'options.log_size', 'options.threads', 'options.db_block_size', 'options.db_read_pct', 'options.log_block_size',
      'options.thresholds.db_read_mean_ms', 'options.thresholds.log_write_p99_ms']) {
      assert.equal(await el(name).count(), 1, `no input ${name}`);
    }
    assert.equal(await el('options.threads').getAttribute('placeholder'), '4, 8, 12');
    assert.equal(await el('options.thresholds.db_read_mean_ms').inputValue(), '20');
    assert.equal(await el('options.thresholds.db_read_p99_ms').getAttribute('placeholder'), 'not checked');
    await page.fill('#f-size', '64MiB');
    await page.fill('#f-iterations', '1');
    await page.fill('#f-duration', '1');
    await page.fill('#f-labels', 'browser-mailbox');
    // the form's own checks: a thread count over 256, a threshold of 0
    await el('options.threads').fill('2, 300');
    await el('options.log_size').fill('16MiB');
    await refusedByForm('options.threads[1]', 'options.threads', /256/);
    await el('options.threads').fill('2, 4');
    await el('options.thresholds.db_read_mean_ms').fill('0');
    await refusedByForm('options.thresholds.db_read_mean_ms', 'options.thresholds.db_read_mean_ms', /> 0/);
    await el('options.thresholds.db_read_mean_ms').fill('50');
    // the daemon's: a database directory outside the allowed roots
    await el('options.database_paths[0]').fill(target);
    await page.locator('fieldset[name="options.database_paths"] button.list-add').click();
    await el('options.database_paths[1]').fill('/etc');
    await page.locator('#new-job').screenshot({ path: path.join(out, 'form-mailbox-db.png') });
    const prob = await refusedByDaemon('options.database_paths[1]', 'options.database_paths[1]', 403);
    assert.match(prob.detail, /outside the allowed roots/);
    await page.locator('#new-job').screenshot({ path: path.join(out, 'form-mailbox-db-error.png') });
    // remove the bad row, set more thresholds, clear one (not checked)
    await page.locator('fieldset[name="options.database_paths"] .list-row').nth(1).locator('button').click();
    assert.equal(await el('options.database_paths[1]').count(), 0);
    await el('options.thresholds.db_write_mean_ms').fill('30');
    await el('options.thresholds.log_write_mean_ms').fill('');
    const { sent, job } = await accepted();
    assert.deepEqual(sent.options, { database_paths: [target], log_size: '16MiB', threads: [2, 4],
      thresholds: { db_read_mean_ms: 50, db_write_mean_ms: 30, log_write_mean_ms: null } });
    const got = (await api(url, 'GET', `/api/v1/jobs/${job.id}`)).json;
    assert.equal(got.profile, 'mailbox-db');
    assert.deepEqual(got.labels, ['browser-mailbox']);
    assert.deepEqual(got.options.database_paths, [got.target]);
    assert.deepEqual(got.options.threads, [2, 4]);
    assert.equal(got.options.log_size, 16 * 1024 * 1024);
    assert.deepEqual(got.options.thresholds, { db_read_mean_ms: 50, db_read_p99_ms: null, db_write_mean_ms: 30,
      log_write_mean_ms: null, log_write_p99_ms: null });
    const c = await api(url, 'DELETE', `/api/v1/jobs/${job.id}`); // its run is not needed here
    assert.ok([202, 409].includes(c.status), c.text);
    await waitJob(url, job.id, 30000);
  }, { critical: false });

  await step('file-create from the form: typed sizes; a duplicate caught by the form, "1GB" by the daemon', async () => {
    await openForm('file-create');
    await page.locator('#options-field').waitFor({ state: 'visible' });
    await page.fill('#f-iterations', '1');
    await el('options.sizes').fill('16MiB, 16MiB');
    await refusedByForm('options.sizes[1]', 'options.sizes', /twice/);
    await el('options.sizes').fill('1GB');
    const prob = await refusedByDaemon('options.sizes[0]', 'options.sizes');
    assert.match(prob.detail, /whole MiB/);
    await page.locator('#new-job').screenshot({ path: path.join(out, 'form-file-create-error.png') });
    await el('options.sizes').fill('16MiB, 32MiB');
    const { sent, job } = await accepted();
    assert.deepEqual(sent.options, { sizes: ['16MiB', '32MiB'] });
    assert.deepEqual((await api(url, 'GET', `/api/v1/jobs/${job.id}`)).json.options, { sizes: [16777216, 33554432] });
    assert.equal((await waitJob(url, job.id, 60000)).state, 'done');
  }, { critical: false });

  // ---------------------------------------------------------------- presets: each draws its chart
  const presets = [
    ['cdm-peak', { profile: 'cdm-peak', size: '32MiB', iterations: 1, duration_s: 0.5 }, 2, /RND4K/],
    ['cdm-realworld', { profile: 'cdm-realworld', size: '32MiB', iterations: 1, duration_s: 0.5 }, 2, /SEQ1M/],
    ['cdm3', { profile: 'cdm3', size: '32MiB', iterations: 1, duration_s: 0.5 }, 2, /4K/],
    ['seq-sweep', { profile: 'seq-sweep', size: '32MiB', iterations: 1, duration_s: 0.5, options: { block_sizes: ['4KiB', '64KiB', '1MiB'], queue_depth: 4 } }, 2, /SEQ Q4T1 1M/],
    ['thread-sweep', { profile: 'custom', size: '32MiB', iterations: 1, duration_s: 0.5, tests: [{ name: 'scale', queue_depth: 4, threads: [1, 2, 4] }] }, 1, /scale T4/],
    ['mailbox-db', { profile: 'mailbox-db', size: '64MiB', iterations: 1, duration_s: 1, options: { threads: [2, 4], log_size: '16MiB' } }, 5, /PASS|FAIL/],
    ['file-create', { profile: 'file-create', iterations: 1, options: { sizes: ['64MiB', '128MiB'] } }, 6, /fallocate/],
  ];
  const profiles = (await api(url, 'GET', '/api/v1/profiles')).json.profiles;
  const viewShots = new Set();
  for (const [name, body, lines, text] of presets) {
    await step(`preset ${name}: the run page draws its chart (screenshot ${name}.png)`, async () => {
      const r = await api(url, 'POST', '/api/v1/jobs', { target, labels: ['browser-preset'], ...body });
      assert.equal(r.status, 202, r.text);
      const job = await waitJob(url, r.json.id, 120000);
      assert.equal(job.state, 'done', job.error);
      await page.goto(`${url}/#/runs/${job.run_id}`);
      // the CrystalDiskMark sets answer with their tiles and bar chart
      const cdm = name.startsWith('cdm');
      const chartId = cdm ? 'run-chart' : 'preset-chart';
      const cardSel = cdm ? '.run-top' : '#preset-card';
      await page.locator(cardSel).waitFor();
      await page.waitForFunction((id) => document.getElementById(id)?.dataset.rendered === '1', chartId, { timeout: 10000 });
      const px = await page.evaluate((id) => {
        const c = document.getElementById(id);
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let opaque = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i]) opaque++;
        return { opaque, lines: window.Chart.getChart(c)?.data.datasets.length ?? 0 };
      }, chartId);
      assert.ok(px.opaque > 2000, `only ${px.opaque} drawn pixels on the ${name} chart`);
      assert.equal(px.lines, lines, `${name}: datasets drawn`);
      assert.match(await page.locator(cardSel).innerText(), text);
      await page.locator(cardSel).screenshot({ path: path.join(out, `${name}.png`) });
      // a whole run page of each profile view, as /profiles names it
      const view = profiles.find((x) => x.name === body.profile).view;
      assert.equal(await page.locator('#preset-card').count(), view === 'tiles' ? 0 : 1, `${name}: view ${view}`);
      if (!viewShots.has(view)) {
        viewShots.add(view);
        await page.mouse.move(0, 0);
        await page.screenshot({ path: path.join(out, `run-view-${view}.png`), fullPage: true });
      }
    }, { critical: false });
  }

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
