// The dashboard's run page, for dashboard.test.mjs: the run made through
// the API opened from the archive list, its tiles against the archive's
// best MB/s, its bar, per-second and counters charts drawn, what it shows of
// the probe and spec, a steady-state run's rounds chart, and a run with many
// warnings (screenshots run.png, run-warnings.png).
import assert from 'node:assert/strict';
import path from 'node:path';
import { api, waitJob } from '../lib/daemon.mjs';
import { canvasDrawn } from '../lib/browser.mjs';

/**
 * The run page's steps. ctx: {url, page, run (the API's run), target, out,
 * step, TESTS (the cdm-default tests), fmtMBs}, from dashboard.test.mjs.
 */
export async function runPageSteps(ctx) {
  const { url, page, run, target, out, step, TESTS, fmtMBs } = ctx;
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
}
