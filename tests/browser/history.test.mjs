// A target's history in headless Chromium: 30 generated CrystalDiskMark
// runs of drive C: (tests/lib/cdmgen.mjs), 18 at one level and 12 after a
// 15 % step. From a run's page, a tile's "history" link opens the page of
// that test over the target's runs: the chart is drawn, one change point
// is listed at the step's run with its shift and what changed there (the
// Windows build), and its compare link opens the compare of the runs either side; the metric selector redraws the
// series in IOPS. Nothing but loopback is requested, no page error.
// Screenshot: history.png in STORBENCH_OUT.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test history.test.mjs

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon } from '../lib/daemon.mjs';
import { CHROMIUM, CHROMIUM_ARGS, canvasDrawn, isLoopback } from '../lib/browser.mjs';
import { importSeries } from '../lib/cdmgen.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');
assert.ok(fs.existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM} (apt-get install chromium)`);
const { chromium } = await import('playwright-core');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'browser-history-'));
const d = await startDaemon({ bin, dataDir: path.join(root, 'data'), quiet: true });
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
after(async () => {
  await browser.close().catch(() => {});
  await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

test('from a run to its test\'s history: the step marked, its compare one click away', async () => {
  const ids = await importSeries(d.url, { n: 30, stepAt: 18, step: 0.15, seed: 5,
    os: 'Windows 10 [10.0 Build 19042] (x64)', os2: 'Windows 10 [10.0 Build 19045] (x64)' });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
  page.setDefaultTimeout(30000);
  const requests = [], errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${d.url}/#/runs/${ids.at(-1)}`);
  await page.waitForSelector('.tile a.tile-history');
  assert.doesNotMatch(await page.textContent('#run-root'), /\bnull\b/, 'no stray "null" on the run page');
  await page.click('.tile[data-test="SEQ1M Q8T1"][data-rw="read"] a.tile-history');
  await page.waitForSelector('#history-chart[data-rendered="1"]');
  assert.ok(await canvasDrawn(page, '#history-chart') > 1000, 'the chart has pixels');
  assert.match(await page.textContent('#view-history h2'), /History: SEQ1M Q8T1 read/);
  assert.match(await page.textContent('#view-history'), /30 runs/);
  const cps = await page.$$eval('#change-points li.change-point', (l) => l.map((e) => ({ run: Number(e.dataset.run), text: e.textContent })));
  assert.equal(cps.length, 1, JSON.stringify(cps));
  assert.equal(cps[0].run, ids[18]);
  assert.match(cps[0].text, /^\+1[3-7]\.\d %/, cps[0].text);
  assert.match(cps[0].text, new RegExp(`compare #${ids[17]} → #${ids[18]}`));
  // what changed at the step, beside it
  assert.match(cps[0].text, /OS: Windows 10 \[10\.0 Build 19042\] \(x64\) → Windows 10 \[10\.0 Build 19045\] \(x64\)/);
  await page.screenshot({ path: path.join(out, 'history.png'), fullPage: true });

  // another metric: the same step in IOPS
  await page.selectOption('#history-metric', 'iops');
  await page.waitForFunction(() => /metric=iops/.test(location.hash));
  await page.waitForSelector('#history-chart[data-rendered="1"]');
  assert.equal(await page.$$eval('#change-points li.change-point', (l) => l.length), 1);

  await page.click('#change-points a.cp-compare');
  await page.waitForFunction(() => /^#\/compare\?runs=/.test(location.hash));
  await page.waitForSelector('#compare-permalink');
  assert.equal(new URL(page.url()).hash, `#/compare?runs=${ids[17]},${ids[18]}`);

  // a metric the series lacks (CrystalDiskMark states no p99): the page
  // says why, and the menu takes the user back
  await page.goto(`${d.url}/#/history?target=C:&profile=crystaldiskmark&test=SEQ1M%20Q8T1&rw=read&metric=lat_p99_us`);
  await page.waitForSelector('#history-error');
  assert.match(await page.textContent('#history-error'), /no done run of target C:.*p99/);
  await page.selectOption('#history-metric', 'mb_s');
  await page.waitForSelector('#history-chart[data-rendered="1"]');
  // a series of 3 runs cannot have a change point, and the page says so
  const few = await importSeries(d.url, { n: 3, seed: 6, drive: 'F:' });
  assert.equal(few.length, 3);
  await page.goto(`${d.url}/#/history?target=F:&profile=crystaldiskmark&test=SEQ1M%20Q8T1&rw=read`);
  await page.waitForSelector('#history-chart[data-rendered="1"]');
  assert.match(await page.textContent('#change-points'), /Too few runs to tell: .* at least 2 runs on each side/);

  assert.deepEqual(requests.filter((u) => !isLoopback(u)), [], 'loopback only');
  assert.deepEqual(errors, []);
});
