// The HTML report opened as a user opens a saved file: from a file:// URL
// in headless Chromium with every request counted (exactly one: the file
// itself), its figures equal to the API's, printed to PDF on A4 with no
// table wider than the printable width and no table row split across a
// page (pdftotext -layout, poppler-utils). An interleaved job of two
// directories (paired verdicts with intervals) and the NTFS/ReFS
// CrystalDiskMark files of ../shared/fixtures; the compare and run pages'
// Report buttons download the route's bytes. Screenshots report-compare.png
// and report-run.png go to STORBENCH_OUT (docs/img has copies).
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test report.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { startDaemon, api, waitJob, runCommand } from '../lib/daemon.mjs';
import { FIXTURES } from '../lib/fixtures.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from '../lib/browser.mjs';
import { deltaNumbers, roundsTo } from '../lib/report.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');
assert.ok(fs.existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM} (apt-get install chromium)`);
const { chromium } = await import('playwright-core');
const cdmDir = path.join(FIXTURES, 'crystaldiskmark', 'ntfs-refs-alloc');
const CDM = ['ntfs-04k-cache-off.txt', 'ntfs-64k-cache-off.txt', 'refs-cache-off.txt'];
// without ../shared/fixtures (a clone elsewhere) their test is skipped, and says so
const noShared = CDM.every((f) => fs.existsSync(path.join(cdmDir, f))) ? false : `no ${cdmDir}`;
if (noShared) console.log(`skip: ${noShared}`);

// A4 less the report's @page margins (14 mm each side), in CSS px (96/in)
const PRINTABLE_PX = Math.floor(((210 - 2 * 14) / 25.4) * 96);

const root = fs.mkdtempSync(path.join(path.resolve(out), 'report-'));
let d, browser, runIds, cdmIds;

before(async () => {
  const dataDir = path.join(root, 'data');
  const dirs = ['a', 'b'].map((n) => path.join(root, n));
  for (const dir of dirs) fs.mkdirSync(dir);
  d = await startDaemon({ bin, dataDir, allow: [root], quiet: true });
  const r = await api(d.url, 'POST', '/api/v1/jobs', {
    target: dirs[0], compare_with: [dirs[1]], profile: 'custom', size: '16MiB', iterations: 3, duration_s: 0.5,
    labels: ['report'], tests: [
      { name: 'RND4K Q4T1', pattern: 'random', block_size: '4KiB', queue_depth: 4, threads: 1 },
      { name: 'SEQ128K Q2T1', pattern: 'sequential', block_size: '128KiB', queue_depth: 2, threads: 1 }],
  });
  assert.equal(r.status, 202, r.text);
  const job = await waitJob(d.url, r.json.id, 120000);
  assert.equal(job.state, 'done', JSON.stringify(job));
  runIds = job.runs;
  // a long value with no space in it, as a path or a note can be: it must
  // wrap inside its cell, not widen the table past the page
  const notes = `/mnt/${'a_long_directory_name_with_no_space_in_it_'.repeat(8)}end`;
  const p = await api(d.url, 'PATCH', `/api/v1/runs/${runIds[0]}`, { notes });
  assert.equal(p.status, 200, p.text);
  if (!noShared) {
    const imp = await runCommand(bin, ['import', '--data', dataDir, ...CDM.map((f) => path.join(cdmDir, f))]);
    assert.equal(imp.status, 0, imp.stderr);
    cdmIds = [...imp.stdout.matchAll(/imported as run (\d+)/g)].map((m) => Number(m[1]));
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await d?.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

/** Saves the route's answer as a file, as a browser's download does. */
async function save(q, name) {
  const r = await api(d.url, 'GET', q);
  assert.equal(r.status, 200, r.text);
  const file = path.join(root, name);
  fs.writeFileSync(file, r.text);
  return file;
}

/** Opens file in a fresh page, every request counted. */
async function open(file) {
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 1400 } })).newPage();
  const requests = [];
  page.on('request', (q) => requests.push(q.url()));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForTimeout(300); // anything late would be counted too
  assert.deepEqual(requests, [pathToFileURL(file).href], 'one request: the file itself');
  return page;
}

/** The page's figures: [{ value, text }] of its <data> elements. */
const pageFigures = (page) => page.$$eval('data', (els) => els.map((e) => ({ value: Number(e.value), text: e.textContent })));

/**
 * Printed on A4: no table wider than the printable width (print media,
 * the printable width as the viewport), and a PDF in which the text of
 * each table row lies on one page. Returns the PDF's pages.
 */
async function printsWhole(page, name) {
  await page.emulateMedia({ media: 'print' });
  await page.setViewportSize({ width: PRINTABLE_PX, height: 1100 });
  const widths = await page.$$eval('table, figure, pre', (els) => els.map((e) => Math.ceil(e.getBoundingClientRect().width)));
  assert.ok(widths.length > 0);
  for (const w of widths) assert.ok(w <= PRINTABLE_PX, `a table ${w} px wide on a ${PRINTABLE_PX} px printable width`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PRINTABLE_PX, 'nothing wider than the page');
  const pdf = path.join(root, `${name}.pdf`);
  await page.pdf({ path: pdf, format: 'A4' });
  assert.equal(fs.readFileSync(pdf).subarray(0, 5).toString(), '%PDF-');
  const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
  const pages = text.split('\f').filter((p) => p.trim());
  // words a cell cannot break inside: short ones, outside paths (a path
  // may wrap anywhere, leaving its pieces as words of no page, or of the
  // page of another row with the same path, as a CI clone's long
  // /check/work/main/build-test/test-out/report-XXXXXX did)
  const words = (s) => s.normalize('NFKC').split(/\s+/u).filter((t) => !/[/\\]/.test(t))
    .flatMap((t) => t.split(/[^\p{L}\p{N}.]+/u)).filter((w) => w.length >= 2 && w.length <= 12);
  const pageWords = pages.map((p) => new Set(words(p)));
  const rows = await page.$$eval('tr', (trs) => trs.map((tr) => tr.innerText));
  assert.ok(rows.length > 10);
  for (const row of rows) {
    const w = words(row);
    assert.ok(pageWords.some((set) => w.every((x) => set.has(x))),
      `the row "${row.replace(/\s+/g, ' ')}" lies on one page (missing: ${w.filter((x) => !pageWords.some((set) => set.has(x)))})`);
  }
  await page.emulateMedia({ media: 'screen' });
  return pages.length;
}

test('a compare report from a file: no request but the file, the API\'s numbers, A4 without a cut table', async () => {
  const q = `/api/v1/compare?runs=${runIds.join(',')}`;
  const c = (await api(d.url, 'GET', q)).json;
  const file = await save(`${q}&format=html`, 'report-compare.html');
  const page = await open(file);
  const figs = await pageFigures(page);
  const want = deltaNumbers(c);
  assert.ok(want.some((n) => /ci_pct/.test(n.what)), 'the paired intervals are among them');
  for (const n of want) {
    assert.ok(figs.some((f) => f.value === n.value && roundsTo(n.value, f.text)), `${n.what} = ${n.value} on the page`);
  }
  const body = await page.innerText('body');
  for (const v of c.verdicts) assert.ok(body.includes(v.text), v.text);
  // the charts: an inline SVG per test, drawn
  assert.equal(await page.locator('figure svg').count(), c.tests.length);
  assert.ok(await page.locator('figure svg rect').count() >= 2 * c.tests.length);
  await page.screenshot({ path: path.join(out, 'report-compare.png'), fullPage: false });
  const pages = await printsWhole(page, 'report-compare');
  console.log(`# compare report: ${want.length} numbers of the API on the page, ${pages} A4 pages`);
});

test('the NTFS/ReFS CrystalDiskMark comparison prints whole', { skip: noShared }, async () => {
  const q = `/api/v1/compare?runs=${cdmIds.join(',')}`;
  const c = (await api(d.url, 'GET', q)).json;
  const page = await open(await save(`${q}&format=html`, 'report-cdm.html'));
  const figs = await pageFigures(page);
  for (const n of deltaNumbers(c)) assert.ok(figs.some((f) => f.value === n.value && roundsTo(n.value, f.text)), n.what);
  const pages = await printsWhole(page, 'report-cdm');
  assert.ok(pages >= 2, 'long enough to cross a page');
});

test('a run report from a file: no request but the file, the API\'s figures, A4 without a cut table', async () => {
  const id = runIds[0];
  const run = (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
  const page = await open(await save(`/api/v1/runs/${id}?format=html`, 'report-run.html'));
  const figs = await pageFigures(page);
  for (const t of run.tests) {
    for (const v of [t.best.mb_s, t.best.iops, t.best.lat_mean_us, t.latency_us.p50, t.latency_us.p99]) {
      assert.ok(figs.some((f) => f.value === v && roundsTo(v, f.text)), `${t.test}: ${v}`);
    }
    // a bar per iteration
    for (const it of t.iterations) assert.ok(await page.locator(`svg text:text-is("iteration ${it.iteration}")`).count() >= 1);
  }
  await page.screenshot({ path: path.join(out, 'report-run.png'), fullPage: false });
  await printsWhole(page, 'report-run');
});

test('the compare and run pages\' Report buttons download the route\'s bytes', async () => {
  const page = await (await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } })).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const pages = [
    [`#/compare?runs=${runIds.join(',')}`, '#compare-report', `/api/v1/compare?runs=${runIds.join(',')}&format=html`,
      `storbench-compare-${runIds.join('-')}.html`],
    [`#/runs/${runIds[0]}`, '#run-report', `/api/v1/runs/${runIds[0]}?format=html`, `storbench-run-${runIds[0]}.html`],
  ];
  for (const [hash, button, route, name] of pages) {
    await page.goto(`${d.url}/${hash}`);
    const link = page.locator(button);
    await link.waitFor();
    assert.equal(await link.textContent(), 'Report');
    const [dl] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.equal(dl.suggestedFilename(), name);
    const want = await api(d.url, 'GET', route);
    assert.equal(fs.readFileSync(await dl.path(), 'utf8'), want.text, `${button} downloads ${route}`);
  }
  assert.deepEqual(errors, []);
});
