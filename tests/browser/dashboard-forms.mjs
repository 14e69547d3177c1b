// The dashboard's forms, for dashboard.test.mjs: the job form (a refusal
// naming its field, an smb:// target's fields, a job submitted, watched and
// cancelled), the custom profile's workload fields, every preset's typed
// options from the form, and each preset's run page drawing its chart
// (screenshots form-*.png, cdm-nvme.png, one per preset, run-view-*.png).
import assert from 'node:assert/strict';
import path from 'node:path';
import { api, waitJob } from '../lib/daemon.mjs';

/**
 * The form and preset steps. ctx: {url, page, target, out, state, step,
 * fmtMBs}, from dashboard.test.mjs.
 */
export async function formSteps(ctx) {
  const { url, page, target, out, state, step, fmtMBs } = ctx;
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
}
