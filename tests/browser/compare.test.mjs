// The compare page in headless Chromium: real runs on loop-mounted ext4,
// xfs and NTFS made by scripts/demo-filesystems (root and loop devices; on
// a machine without them, two different runs on a plain folder), ticked in
// the archive, compared; the bars are drawn, the table's deltas and the
// verdict are the API's, a within-noise row is marked so, the permalink
// reopens the same comparison; an interleaved job of two directories made
// in the form opens its comparison with the noise band drawn and the paired
// verdict. Screenshots go to STORBENCH_OUT.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test compare.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, api, waitJob } from '../lib/daemon.mjs';
import { CHROMIUM, CHROMIUM_ARGS, isLoopback, canvasDrawn } from '../lib/browser.mjs';
import { runDemo } from '../lib/demofs.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');
assert.ok(fs.existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM} (apt-get install chromium)`);
const { chromium } = await import('playwright-core');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'compare-'));
let d, browser, page, runIds;
const requests = [];
const pageErrors = [];

before(async () => {
  d = await startDaemon({ bin, dataDir: path.join(root, 'data'), allow: [root], quiet: true });
  // three iterations each: enough for Welch's t-test
  const { runs, skipped } = await runDemo({
    url: d.url, dir: root, profile: 'cdm-realworld', size: '64MiB', iterations: 3, duration: 0.5,
    filesystems: ['ext4', 'xfs', 'ntfs'], ntfsClusters: [4096], volume: '512M',
  });
  for (const s of skipped) console.log(`# no ${s.fs} volume: ${s.why}`);
  runIds = runs.filter((r) => r.state === 'done').map((r) => r.run_id);
  if (runIds.length < 2) {
    // no loop devices here: two runs on a plain folder that differ for sure
    const target = path.join(root, 'plain');
    fs.mkdirSync(target);
    runIds = [];
    for (const direct of [true, false]) {
      const r = await api(d.url, 'POST', '/api/v1/jobs', { target, profile: 'custom', size: '64MiB', iterations: 3,
        duration_s: 0.5, direct, tests: [{ name: 'RND4K', pattern: 'random', block_size: '4KiB', queue_depth: 4 }] });
      runIds.push((await waitJob(d.url, r.json.id, 120000)).run_id);
    }
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(20000);
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

after(async () => {
  await browser?.close();
  await d?.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

const fmtPct = (v) => `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(1)} %`;

test('runs ticked in the archive open a comparison with drawn bars, the API\'s deltas and verdict', async () => {
  await page.goto(`${d.url}/#/runs`);
  for (const id of runIds) {
    await page.locator(`tr.run-row[data-run-id="${id}"] input.run-select`).check();
  }
  await page.click('#compare-selected');
  await page.waitForURL(new RegExp(`#/compare\\?runs=${runIds.join(',')}$`));
  const api1 = (await api(d.url, 'GET', `/api/v1/compare?runs=${runIds.join(',')}`)).json;
  await page.locator('#compare-table').waitFor();
  // the bars
  const bars = page.locator('canvas.compare-bars');
  assert.ok(await bars.count() >= 1);
  await page.waitForFunction(() => [...document.querySelectorAll('canvas.compare-bars')].every((c) => c.dataset.rendered === '1'));
  assert.ok(await canvasDrawn(page, 'canvas.compare-bars') > 1000, 'the bar chart has pixels');
  // the verdicts, word for word
  const verdicts = await page.locator('#compare-verdicts p.verdict').allInnerTexts();
  assert.deepEqual(verdicts, api1.verdicts.map((v) => v.text));
  // what changed, beside them: a line per field that differs, as the API
  // has it (file systems made apart differ at least in their type; the
  // plain folder's two runs in direct I/O)
  const changed = await page.locator('#compare-changed li').allInnerTexts();
  assert.equal(changed.length, api1.changed.length, changed.join('\n'));
  if (runIds.length >= 3) {
    assert.match(changed.find((l) => l.startsWith('file system:')) ?? '', /^file system: .*ext4 · .*xfs · .*ntfs$/, changed.join('\n'));
  } else {
    assert.ok(changed.includes('direct I/O: direct → buffered'), changed.join('\n'));
  }
  assert.ok(!changed.some((l) => l.startsWith('kernel:') || l.startsWith('version:') || l.startsWith('CPU:')),
    `the same host and build: no kernel, version or CPU line\n${changed.join('\n')}`);
  const story = await page.locator('.compare-story').boundingBox();
  const box = await page.locator('#compare-changed').boundingBox();
  assert.ok(box.y < story.y + story.height && box.x > story.x, 'what changed sits beside the verdicts');
  // every delta cell: the API's percentage and verdict
  let checked = 0;
  for (const t of api1.tests) {
    for (const m of t.metrics) {
      const row = page.locator(`#compare-table tr[data-test="${t.test}"][data-rw="${t.rw}"][data-metric="${m.metric}"]`);
      for (let i = 1; i < api1.sides.length; i++) {
        const v = m.vs_baseline[i];
        if (!v) continue;
        const cell = row.locator(`td.delta[data-side="${i}"]`);
        const text = await cell.innerText();
        assert.ok(text.includes(`(${fmtPct(v.delta_pct)})`), `${t.test} ${t.rw} ${m.metric} side ${i}: "${text}" vs ${v.delta_pct}`);
        assert.equal(await cell.getAttribute('data-verdict'), v.verdict);
        const cls = await cell.getAttribute('class');
        if (t.not_like_for_like?.[i]) assert.match(cls, /\bunlike\b/);
        else if (v.verdict === 'within noise') assert.match(cls, /\bnoise\b/);
        else if (v.verdict === 'significant') assert.match(cls, v.better ? /\bbetter\b/ : /\bworse\b/);
        checked++;
      }
    }
  }
  assert.ok(checked >= 4, `checked ${checked} delta cells`);
  // the per-second overlay and the latency curves are drawn
  await page.waitForFunction(() => document.querySelector('#compare-seconds')?.dataset.rendered === '1' &&
    document.querySelector('#compare-latency')?.dataset.rendered === '1');
  assert.ok(await canvasDrawn(page, '#compare-seconds') > 500);
  assert.ok(await canvasDrawn(page, '#compare-latency') > 500);
  await page.screenshot({ path: path.join(out, 'compare.png'), fullPage: true });
});

test('the permalink reopens the same comparison', async () => {
  const link = await page.getAttribute('#compare-permalink', 'href');
  const before = await page.locator('#compare-verdicts').innerText();
  const rows = await page.locator('#compare-table tbody tr').count();
  const p2 = await page.context().newPage();
  await p2.goto(`${d.url}/${link}`);
  await p2.locator('#compare-table').waitFor();
  assert.equal(await p2.locator('#compare-verdicts').innerText(), before);
  assert.equal(await p2.locator('#compare-table tbody tr').count(), rows);
  await p2.close();
});

test('one run a side cannot tell, and the page says what would', async () => {
  // one run in two label groups: one run a side, and no other run of its
  // target to say how far two runs fall apart
  const r = await api(d.url, 'PATCH', `/api/v1/runs/${runIds[0]}`, { labels: ['same-a', 'same-b'] });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.labels, ['same-a', 'same-b']);
  await page.goto(`${d.url}/#/compare?group_by=label&values=same-a,same-b`);
  await page.locator('#compare-table').waitFor();
  const verdict = await page.locator('#compare-verdicts').innerText();
  assert.match(verdict, /same-b vs same-a: cannot tell on \d+ tests?: one run per side and no run-to-run noise estimate/);
  // one run against itself: nothing changed, and nothing is shown
  assert.equal(await page.locator('#compare-changed').count(), 0);
  assert.match(verdict, /one more run of each side made the same way, or an interleaved job of both targets, would tell/);
  const cells = page.locator('#compare-table td.delta');
  const n = await cells.count();
  assert.ok(n > 0);
  for (let i = 0; i < n; i++) {
    assert.equal(await cells.nth(i).getAttribute('data-verdict'), 'cannot tell');
    assert.match(await cells.nth(i).getAttribute('class'), /\buntested\b/);
  }
  await page.screenshot({ path: path.join(out, 'compare-cannot-tell.png'), fullPage: true });
});

test('an interleaved job of two directories from the form: the compare page shows the noise band and the paired verdict', async () => {
  const a = path.join(root, 'il-a');
  const b = path.join(root, 'il-b');
  fs.mkdirSync(a);
  fs.mkdirSync(b);
  await page.goto(`${d.url}/#/`);
  await page.waitForFunction(() => [...document.querySelectorAll('#f-profile option')].some((o) => o.value === 'cdm-realworld'));
  await page.selectOption('#f-profile', 'cdm-realworld');
  assert.equal(await page.isVisible('#f-compare-with'), true, 'a profile of tests offers compare-with');
  await page.fill('#f-target', a);
  await page.fill('#f-compare-with', b);
  await page.fill('#f-size', '16MiB');
  await page.fill('#f-iterations', '3');
  await page.fill('#f-duration', '0.5');
  await page.click('#job-submit');
  await page.locator('#job-ok').waitFor();
  const jobId = Number((await page.locator('#job-ok').innerText()).match(/#(\d+)/)[1]);
  const job = await waitJob(d.url, jobId, 180000);
  assert.equal(job.state, 'done', JSON.stringify(job));
  assert.deepEqual(job.compare_with, [b]);
  assert.equal(job.runs.length, 2);
  // the job card links the comparison of its runs
  const link = page.locator(`.job[data-job-id="${jobId}"] a.compare-link`);
  await link.waitFor({ timeout: 30000 });
  await link.click();
  await page.waitForURL(new RegExp(`#/compare\\?runs=${job.runs.join(',')}$`));
  await page.locator('#compare-table').waitFor();
  const c = (await api(d.url, 'GET', `/api/v1/compare?runs=${job.runs.join(',')}`)).json;
  assert.deepEqual(await page.locator('#compare-verdicts p.verdict').allInnerTexts(), c.verdicts.map((v) => v.text));
  // each side says which target it is
  const sidesText = await page.locator('ul.sides').innerText();
  assert.ok(sidesText.includes(`on ${a}`) && sidesText.includes(`on ${b}`), sidesText);
  // the noise band chart is drawn, and each test's line says band, verdict and test
  await page.waitForFunction(() => document.querySelector('#compare-noise')?.dataset.rendered === '1');
  assert.ok(await canvasDrawn(page, '#compare-noise') > 500, 'the noise band chart has pixels');
  let lines = 0;
  for (const t of c.tests) {
    const v = t.metrics.find((m) => m.metric === t.headline).vs_baseline[1];
    assert.equal(v.test, 'paired', `${t.test} ${t.rw}`);
    const li = page.locator(`#compare-bands li[data-test="${t.test}"][data-rw="${t.rw}"]`);
    const text = await li.innerText();
    assert.ok(text.includes(`${Math.abs(v.delta_pct) > v.noise_band_pct ? 'outside' : 'inside'} a noise band of ±${v.noise_band_pct.toFixed(1)} %`), text);
    assert.ok(text.includes(v.verdict) && text.includes('paired t-test over 3 interleaved rounds'), text);
    assert.equal(await li.getAttribute('data-verdict'), v.verdict);
    lines++;
  }
  assert.ok(lines >= 4, `${lines} tests`);
  // the table's band column is the API's
  const t0 = c.tests[0];
  const m0 = t0.metrics.find((m) => m.metric === t0.headline);
  const band = page.locator(`#compare-table tr[data-test="${t0.test}"][data-rw="${t0.rw}"][data-metric="${m0.metric}"] td.band`);
  assert.equal(await band.innerText(), `±${m0.vs_baseline[1].noise_band_pct.toFixed(1)} %`);
  assert.deepEqual(fs.readdirSync(a), []);
  assert.deepEqual(fs.readdirSync(b), []);
  await page.screenshot({ path: path.join(out, 'compare-interleaved.png'), fullPage: true });
});

test('the archive filters on the server, exports CSV, and deletes a run only after confirming', async () => {
  await page.goto(`${d.url}/#/runs`);
  await page.locator('#runs-body tr.run-row').first().waitFor();
  const all = await page.locator('#runs-body tr.run-row').count();
  // a filter the API answers: the first run's filesystem
  const first = (await api(d.url, 'GET', `/api/v1/runs/${runIds[0]}`)).json;
  const fsType = first.probe.fs_type;
  const expect = (await api(d.url, 'GET', `/api/v1/runs?fs_type=${encodeURIComponent(fsType)}`)).json.total;
  await page.fill('#runs-filters input[name=fs_type]', fsType);
  await page.waitForFunction((n) => document.querySelectorAll('#runs-body tr.run-row').length === n, expect);
  for (const t of await page.locator('#runs-body tr.run-row td:nth-child(6)').allInnerTexts()) assert.equal(t, fsType);
  await page.fill('#runs-filters input[name=fs_type]', '');
  await page.waitForFunction((n) => document.querySelectorAll('#runs-body tr.run-row').length === n, all);
  // CSV of the comparison: a header and a row per test, metric and side
  const csv = await (await fetch(`${d.url}/api/v1/compare?runs=${runIds.join(',')}&format=csv`)).text();
  const lines = csv.trim().split('\r\n');
  assert.equal(lines[0], 'test,rw,metric,unit,better,side,label,baseline,n,mean,sd,delta,delta_pct,p,verdict,judged_by,ci_low_pct,ci_high_pct,noise_band_pct,how');
  const c = (await api(d.url, 'GET', `/api/v1/compare?runs=${runIds.join(',')}`)).json;
  assert.equal(lines.length - 1, c.tests.reduce((k, t) => k + t.metrics.length, 0) * c.sides.length);
  // delete: cancelled first (the run stays), then confirmed (it goes)
  const victim = runIds.at(-1);
  const row = page.locator(`tr.run-row[data-run-id="${victim}"]`);
  page.once('dialog', (dlg) => dlg.dismiss());
  await row.locator('button.run-delete').click();
  assert.equal((await api(d.url, 'GET', `/api/v1/runs/${victim}`)).status, 200, 'dismissed: still there');
  page.once('dialog', (dlg) => { assert.match(dlg.message(), new RegExp(`Delete run #${victim}`)); dlg.accept(); });
  await row.locator('button.run-delete').click();
  await row.waitFor({ state: 'detached' });
  assert.equal((await api(d.url, 'GET', `/api/v1/runs/${victim}`)).status, 404);
});

test('groups compare from the archive, and a sweep draws a line per side', async () => {
  await page.goto(`${d.url}/#/runs`);
  await page.locator('#runs-body tr.run-row').first().waitFor();
  await page.selectOption('#group-by', 'fs_type');
  await page.click('#compare-groups');
  await page.waitForURL(/#\/compare\?group_by=fs_type/);
  await page.locator('#compare-table').waitFor();
  const api1 = (await api(d.url, 'GET', '/api/v1/compare?group_by=fs_type')).json;
  assert.deepEqual(await page.locator('#compare-verdicts p.verdict').allInnerTexts(), api1.verdicts.map((v) => v.text));
  // two block-size sweeps on a plain folder
  const target = path.join(root, 'sweep');
  fs.mkdirSync(target, { recursive: true });
  const ids = [];
  for (const qd of [1, 4]) {
    const r = await api(d.url, 'POST', '/api/v1/jobs', { target, profile: 'custom', size: '32MiB', iterations: 3,
      duration_s: 0.5, tests: [{ name: 'SEQ', pattern: 'sequential', block_size: ['64KiB', '1MiB'], queue_depth: qd }] });
    assert.equal(r.status, 202, r.text);
    ids.push((await waitJob(d.url, r.json.id, 120000)).run_id);
  }
  const c = (await api(d.url, 'GET', `/api/v1/compare?runs=${ids.join(',')}`)).json;
  assert.ok(c.tests.every((t) => t.sweep && t.sweep.field === 'block_size'), JSON.stringify(c.tests.map((t) => t.sweep)));
  // same names, QD1 against QD4: said, and not judged
  assert.ok(c.tests.every((t) => /QD4.*vs.*QD1/.test(t.not_like_for_like[1])), JSON.stringify(c.tests.map((t) => t.not_like_for_like)));
  assert.match(c.verdicts[0].text, /2 tests of the same name ran a different workload and are not judged/);
  await page.goto(`${d.url}/#/compare?runs=${ids.join(',')}`);
  await page.waitForFunction(() => document.querySelector('canvas.compare-sweep')?.dataset.rendered === '1');
  assert.ok(await canvasDrawn(page, 'canvas.compare-sweep') > 500);
  await page.screenshot({ path: path.join(out, 'compare-sweep.png'), fullPage: true });
});

const fixtures = process.env.STORBENCH_FIXTURES ??
  [path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..', 'shared', 'fixtures'),
    '/work/shared/fixtures'].find((p) => fs.existsSync(p)) ?? '/nonexistent';
const ntfsRefs = path.join(fixtures, 'crystaldiskmark', 'ntfs-refs-alloc');

test('the import box takes the NTFS/ReFS CrystalDiskMark files; one run a side of them cannot tell',
  { skip: fs.existsSync(ntfsRefs) ? false : `no fixtures at ${ntfsRefs}` }, async () => {
    await page.goto(`${d.url}/#/`);
    const files = fs.readdirSync(ntfsRefs).filter((f) => f.endsWith('.txt')).sort().map((f) => path.join(ntfsRefs, f));
    await page.setInputFiles('#import-files', files);
    await page.fill('#import-labels', 'ntfs-refs-2012');
    await page.click('#import-go');
    await page.waitForFunction((n) => document.querySelectorAll('#import-results li.ok').length === n, files.length);
    const lines = await page.locator('#import-results li').allInnerTexts();
    assert.ok(lines.every((l) => /imported as run #\d+ \(CrystalDiskMark 3.0.1, 8 tests\)/.test(l)), lines.join('\n'));
    const ids = await page.locator('#import-results li a').evaluateAll((as) => as.map((a) => a.textContent.replace('run #', '')));
    // NTFS 4K against ReFS with the cache off and on, in the browser
    const q = `runs=${ids[0]},${ids[5]},${ids[6]}`;
    await page.goto(`${d.url}/#/compare?${q}`);
    await page.locator('#compare-table').waitFor();
    const verdicts = await page.locator('#compare-verdicts').innerText();
    assert.match(verdicts, /cannot tell on 8 tests: an imported result holds only the best of its iterations/);
    assert.match(verdicts, /vs .*: cannot tell on 8 tests, for the reason given for /);
    const text = await page.locator('#compare-root').innerText();
    assert.match(text, /best of 5, with no spread/);
    // each explanation once: one import warning, one cannot-tell line
    // naming the 8 tests, no band repeating it
    assert.equal(text.split('best of 5, with no spread').length - 1, 1, 'the import warning once');
    assert.equal(text.split('no run-to-run noise estimate').length - 1, 1, 'the cannot-tell reason once');
    assert.deepEqual(await page.locator('.compare-cannot-tell').allInnerTexts(),
      [`Cannot tell on Seq read, Seq write, 512K read, 512K write, 4K read, 4K write, 4K QD32 read, 4K QD32 write (run ${ids[5]}, run ${ids[6]} against run ${ids[0]}): one run per side and no run-to-run noise estimate for these targets: one more run of each side (made the same way), or an interleaved job of both targets, would tell.`]);
    // no latency rows: CrystalDiskMark states none
    assert.equal(await page.locator('#compare-table tr[data-metric="lat_mean_us"], #compare-table tr[data-metric="lat_p99_us"]').count(), 0);
    assert.equal(await page.locator('#compare-table tbody tr').count(), 16, 'MB/s and IOPS of 8 tests');
    // what changed: NTFS (4 KiB clusters) against ReFS, whose second file
    // ran with the write cache on
    assert.deepEqual(await page.locator('#compare-changed li').allInnerTexts(), [
      `file system: run ${ids[0]} ntfs · run ${ids[5]} refs · run ${ids[6]} refs`,
      `cluster size (B): run ${ids[0]} 4,096 · run ${ids[5]} not stated · run ${ids[6]} not stated`,
      `write cache: run ${ids[0]} not stated · run ${ids[5]} not stated · run ${ids[6]} on`,
    ]);
    // ReFS ran once with the write cache on: said, with both values
    assert.match(await page.locator('#compare-root').innerText(), /not like for like: the sides differ in write cache/);
    await page.screenshot({ path: path.join(out, 'compare-ntfs-refs.png'), fullPage: true });
    // a run page says where it came from and offers the original
    await page.goto(`${d.url}/#/runs/${ids[0]}`);
    await page.locator('#run-original').waitFor();
    const href = await page.getAttribute('#run-original', 'href');
    const orig = Buffer.from(await (await fetch(`${d.url}${href}`)).arrayBuffer());
    assert.ok(orig.equals(fs.readFileSync(files[0])));
  });

test('the compare page loaded nothing from outside and threw no errors', () => {
  const outside = requests.filter((u) => !isLoopback(u));
  assert.deepEqual(outside, []);
  assert.deepEqual(pageErrors, []);
});
