// The HTML report to publish, through the real daemon: an interleaved job
// of two directories (a paired verdict with its interval) and three
// CrystalDiskMark files of the NTFS/ReFS allocation-unit comparison
// (shared fixtures) compared with format=html and a run with format=html:
// the content type and attachment, nothing that loads anything (no
// script, no src/href/url() but #… and data:), every number the JSON
// compare states for each test's deltas in the HTML (exact in <data
// value>, rounded in the text), strings from the archive escaped, no row
// for a metric no side has, a "how" said once; bad input is a 4xx
// problem naming the field; `storbench report` writes the route's bytes.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node tests/integration/report.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, api, waitJob, runCommand } from '../lib/daemon.mjs';
import { FIXTURES } from '../lib/fixtures.mjs';
import { figures, roundsTo, deltaNumbers, escapeHtml, externalRefs, specs, reruns } from '../lib/report.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');
const cdmDir = path.join(FIXTURES, 'crystaldiskmark', 'ntfs-refs-alloc');
const CDM = ['ntfs-04k-cache-off.txt', 'ntfs-64k-cache-off.txt', 'refs-cache-off.txt'];

const root = fs.mkdtempSync(path.join(path.resolve(out), 'report-'));
const dataDir = path.join(root, 'data');
const dirA = path.join(root, 'a');
const dirB = path.join(root, 'b');
for (const dir of [dirA, dirB]) fs.mkdirSync(dir);
const d = await startDaemon({ bin, dataDir, allow: [root], quiet: true });
after(async () => {
  await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

// a label with markup, as a user may type one
const LABEL = '<b>tuned</b> & "quoted"';
const r = await api(d.url, 'POST', '/api/v1/jobs', {
  target: dirA, compare_with: [dirB], profile: 'custom', size: '16MiB', iterations: 3, duration_s: 0.5,
  labels: [LABEL], tests: [
    { name: 'RND4K Q4T1', pattern: 'random', block_size: '4KiB', queue_depth: 4, threads: 1 },
    { name: 'SEQ128K Q2T1', pattern: 'sequential', block_size: '128KiB', queue_depth: 2, threads: 1 }],
});
assert.equal(r.status, 202, r.text);
const job = await waitJob(d.url, r.json.id, 120000);
assert.equal(job.state, 'done', JSON.stringify(job));
const ids = job.runs;

// the NTFS/ReFS files are in ../shared/fixtures: without them (a clone
// elsewhere) their test is skipped, and says so
const noShared = CDM.every((f) => fs.existsSync(path.join(cdmDir, f))) ? false : `no ${cdmDir}`;
if (noShared) console.log(`skip: ${noShared}`);
let cdmIds = [];
if (!noShared) {
  const imp = await runCommand(bin, ['import', '--data', dataDir, ...CDM.map((f) => path.join(cdmDir, f))]);
  assert.equal(imp.status, 0, imp.stderr);
  cdmIds = [...imp.stdout.matchAll(/imported as run (\d+)/g)].map((m) => Number(m[1]));
  assert.equal(cdmIds.length, 3, imp.stdout);
}

async function html(pathq) {
  const res = await api(d.url, 'GET', pathq);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  return res;
}

function selfContained(text) {
  assert.match(text, /^<!DOCTYPE html>/);
  assert.doesNotMatch(text, /<script/i);
  assert.doesNotMatch(text, /<(iframe|object|embed|link|img|base)\b/i);
  assert.deepEqual(externalRefs(text), []);
  assert.match(text, /@page\s*\{\s*size:\s*A4/);
}

/** Every delta number of c is a figure of the report, shown rounded. */
function numbersIn(c, text) {
  const figs = figures(text);
  const want = deltaNumbers(c);
  assert.ok(want.length > 0);
  for (const n of want) {
    const f = figs.find((g) => g.value === n.value);
    assert.ok(f, `${n.what} = ${n.value} is in the report`);
    assert.ok(figs.some((g) => g.value === n.value && roundsTo(n.value, g.shown)),
      `${n.what} = ${n.value} is shown rounded (${f.shown})`);
  }
  return want.length;
}

test('a compare as HTML: self-contained, every delta number of the JSON, the verdicts, the label escaped', async () => {
  const q = `runs=${ids.join(',')}`;
  const c = (await api(d.url, 'GET', `/api/v1/compare?${q}`)).json;
  const res = await html(`/api/v1/compare?${q}&format=html`);
  assert.equal(res.headers.get('content-disposition'), `attachment; filename="storbench-compare-${ids.join('-')}.html"`);
  selfContained(res.text);
  const iops = c.tests.find((t) => t.test === 'RND4K Q4T1').metrics.find((m) => m.metric === 'iops').vs_baseline[1];
  assert.equal(iops.test, 'paired');
  assert.equal(iops.ci_pct.length, 2);
  const n = numbersIn(c, res.text);
  console.log(`# ${n} delta numbers of the JSON found in the report`);
  for (const v of c.verdicts) assert.ok(res.text.includes(escapeHtml(v.text)), v.text);
  // the interval is drawn: a whisker per side but the baseline
  assert.ok((res.text.match(/<path d="M/g) ?? []).length >= c.tests.length);
  // the runs' spec and probe
  for (const id of ids) {
    const run = (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
    assert.ok(specs(res.text).some((s) => JSON.stringify(s) === JSON.stringify(run.spec)), `run ${id}'s spec`);
    assert.ok(res.text.includes(escapeHtml(run.probe.kernel)));
    assert.ok(res.text.includes(escapeHtml(run.probe.mount_point)));
  }
  assert.ok(res.text.includes(escapeHtml(LABEL)));
  assert.ok(!res.text.includes(LABEL), 'no string from the archive unescaped');
  // no "What changed" section without the compare's `changed`
  assert.equal('changed' in c, res.text.includes('What changed'));
  fs.writeFileSync(path.join(root, 'route.html'), res.text);
});

test('the NTFS/ReFS CrystalDiskMark files as HTML: no latency rows, an explanation said once', { skip: noShared }, async () => {
  const q = `runs=${cdmIds.join(',')}`;
  const c = (await api(d.url, 'GET', `/api/v1/compare?${q}`)).json;
  const res = await html(`/api/v1/compare?${q}&format=html`);
  selfContained(res.text);
  numbersIn(c, res.text);
  assert.ok(!/lat_mean_us|lat_p99_us/.test(res.text), 'no side has a latency: no row for it');
  const hows = new Set(c.tests.flatMap((t) => t.metrics.flatMap((m) => m.vs_baseline.filter(Boolean).map((v) => v.how))));
  assert.ok(hows.size >= 1);
  for (const h of hows) assert.equal(res.text.split(escapeHtml(h)).length - 1, 1, `said once: ${h}`);
  // the probes: the OS and the comment of each file
  for (const id of cdmIds) {
    const run = (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
    assert.ok(res.text.includes(escapeHtml(run.probe.comment)), run.probe.comment);
  }
});

test('a run as HTML: its figures per test and iteration, kept with an ETag', async () => {
  const id = ids[0];
  const run = (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
  const res = await html(`/api/v1/runs/${id}?format=html`);
  assert.equal(res.headers.get('content-disposition'), `attachment; filename="storbench-run-${id}.html"`);
  selfContained(res.text);
  const figs = figures(res.text);
  for (const t of run.tests) {
    for (const k of ['mb_s', 'iops', 'lat_mean_us']) {
      assert.ok(figs.some((f) => f.value === t.best[k] && roundsTo(t.best[k], f.shown)), `${t.test} ${k} ${t.best[k]}`);
    }
    assert.ok(figs.some((f) => f.value === t.latency_us.p99), `${t.test} p99`);
    // one bar per iteration, its figure shown
    assert.equal(t.iterations.length, 3);
  }
  assert.deepEqual(specs(res.text), [run.spec]);
  // the request it shows runs the job again, on the run's target
  const again1 = reruns(res.text);
  assert.equal(again1.length, 1);
  assert.equal(again1[0].target, run.target);
  const rerun = await api(d.url, 'POST', '/api/v1/jobs', again1[0]);
  assert.equal(rerun.status, 202, rerun.text);
  const rerunJob = await waitJob(d.url, rerun.json.id, 120000);
  assert.equal(rerunJob.state, 'done', JSON.stringify(rerunJob));
  const rerunRun = (await api(d.url, 'GET', `/api/v1/runs/${rerunJob.run_id}`)).json;
  assert.deepEqual(rerunRun.spec.tests, run.spec.tests, 'the same tests');
  for (const k of ['profile', 'size', 'iterations', 'duration_s', 'direct_requested'])
    assert.deepEqual(rerunRun.spec[k], run.spec[k], k);
  const etag = res.headers.get('etag');
  assert.ok(etag);
  const again = await api(d.url, 'GET', `/api/v1/runs/${id}?format=html`, undefined, { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  fs.writeFileSync(path.join(root, 'run-route.html'), res.text);
});

test('bad input: a 4xx problem naming the field', async () => {
  const cases = [
    [`/api/v1/compare?runs=${ids.join(',')}&format=pdf`, 400, 'format'],
    ['/api/v1/compare?runs=1,abc&format=html', 400, 'runs'],
    ['/api/v1/compare?runs=1&format=html', 400, 'runs'],
    [`/api/v1/compare?runs=${ids[0]},99999&format=html`, 404, 'runs'],
    ['/api/v1/compare?group_by=nope&format=html', 400, 'group_by'],
    [`/api/v1/runs/${ids[0]}?format=htm`, 400, 'format'],
  ];
  for (const [q, status, field] of cases) {
    const res = await api(d.url, 'GET', q);
    assert.equal(res.status, status, `${q}: ${res.text}`);
    assert.equal(res.headers.get('content-type'), 'application/problem+json', q);
    assert.equal(res.json.field, field, q);
  }
  const gone = await api(d.url, 'GET', '/api/v1/runs/99999?format=html');
  assert.equal(gone.status, 404);
  assert.equal(gone.headers.get('content-type'), 'application/problem+json');
});

test('storbench report writes the route\'s bytes', async () => {
  const file = path.join(root, 'cli.html');
  const a = await runCommand(bin, ['report', '--data', dataDir, '--runs', ids.join(','), '-o', file]);
  assert.equal(a.status, 0, a.stderr);
  assert.ok(fs.readFileSync(file).equals(fs.readFileSync(path.join(root, 'route.html'))));
  const b = await runCommand(bin, ['report', '--data', dataDir, '--run', String(ids[0])]);
  assert.equal(b.status, 0, b.stderr);
  assert.equal(b.stdout, fs.readFileSync(path.join(root, 'run-route.html'), 'utf8'));
  // -o - is standard output too, not a file named '-'
  const dash = await runCommand(bin, ['report', '--data', dataDir, '--run', String(ids[0]), '-o', '-'], { cwd: root });
  assert.equal(dash.status, 0, dash.stderr);
  assert.equal(dash.stdout, b.stdout);
  assert.ok(!fs.existsSync(path.join(root, '-')));
  // --group-by as the route's group_by (the interleaved job's two targets)
  const g = await runCommand(bin, ['report', '--data', dataDir, '--group-by', 'target', '-o', file]);
  assert.equal(g.status, 0, g.stderr);
  const route = await api(d.url, 'GET', '/api/v1/compare?group_by=target&format=html');
  assert.equal(fs.readFileSync(file, 'utf8'), route.text);
  // refusals: the API's words on stderr (1), bad arguments (2)
  const bad = await runCommand(bin, ['report', '--data', dataDir, '--runs', '1,abc']);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^storbench report: runs: /);
  const none = await runCommand(bin, ['report', '--data', dataDir, '--runs', `${ids[0]},99999`]);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /99999/);
  assert.equal((await runCommand(bin, ['report', '--data', dataDir])).status, 2);
  assert.equal((await runCommand(bin, ['report', '--data', dataDir, '--run', 'x'])).status, 2);
  const nodata = await runCommand(bin, ['report', '--data', path.join(root, 'nowhere'), '--run', '1']);
  assert.equal(nodata.status, 1);
  assert.match(nodata.stderr, /no archive/);
});
