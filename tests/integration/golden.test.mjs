// Golden answers: every GET route of the daemon on a fixed archive
// (tests/golden/archive.sql), compared with the answers the pre-refactor
// daemon gave (tests/golden/responses/, one file per route). A difference
// fails the test unless ALLOWED below names it with a reason.
//
//   STORBENCH_BIN=build/storbench node tests/integration/golden.test.mjs
//   STORBENCH_GOLDEN_RECORD=1 STORBENCH_BIN=… node tests/integration/golden.test.mjs   # re-record
//
// The archive is restored (sqlite3 CLI) into a fresh 0700 data directory
// under $TMPDIR; the daemon serves it read-only in effect (only GETs are
// sent). Each answer is kept as {"route", "status", "content_type",
// ["content_disposition",] "body"}: a JSON body parsed, with its keys in the
// order received and every number exactly as the daemon wrote it (5.0 stays
// 5.0, so a real turned integer is a difference), a text body as text, any
// other body as base64 ("body_base64"). Date and other varying headers are
// not kept. /metrics loses its storbench_http_* lines (they count this
// test's own requests). When $STORBENCH_OUT is set and something differs,
// the new answers of the differing routes are written to
// $STORBENCH_OUT/golden-new/ for a closer look.
//
// See tests/golden/README.md for when re-recording is legitimate (never to
// hide a difference).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon } from '../lib/daemon.mjs';

/**
 * Permitted differences between the recorded answers and the new ones.
 * Each entry: {route, path, kind, why}
 *  - route: a RegExp (or a string made into one) tested against the route,
 *    e.g. /^\/api\/v1\/profiles$/
 *  - path: where in the body, as this test writes paths: "$" is the whole
 *    body; "profiles[*].fields" (`[*]` any index, `[3]` that one, `*` as a
 *    whole segment any key, `["p99.9"]` a key that is not an identifier).
 *    An entry covers its path and everything below it. The envelope's
 *    fields are "(status)", "(content_type)" and "(content_disposition)".
 *    A text body (CSV, CrystalDiskMark text, /metrics) is one value at "$".
 *  - kind: "added" permits a key (or array element) the new answer has and
 *    the recorded one lacks; "changed" permits a different value — a
 *    different scalar or type, and anything added or removed below it (a
 *    key or element the new answer lacks is only ever permitted by
 *    "changed" at it or above it).
 *  - why: one sentence.
 * Empty: the refactor keeps every answer as it was.
 */
export const ALLOWED = [
  { route: /^\/api\/v1\/runs\/\d+\?format=cdm$/, path: '$', kind: 'changed',
    why: 'an imported CrystalDiskMark run\'s export prints the original\'s own Profile, Test, Mode, Date, OS and Comment lines, not storbench\'s (issue 18)' },
  { route: /^\/api\/v1\/runs\/\d+$/, path: 'uuid', kind: 'added',
    why: 'a run\'s identity across archives (schema 9): kept when its document is imported by another server, so a second import is known' },
  { route: /^\/api\/v1\/profiles$/, path: 'profiles[*].view', kind: 'added',
    why: 'each preset names the chart its run page draws (tiles, sweep, rows, methods), so the dashboard needs no preset names' },
  { route: /^\/api\/v1\/profiles$/, path: 'profiles[*].fields', kind: 'added',
    why: 'the field descriptors of its options and tests (name, type, unit, limits, default, help) that the dashboard builds its typed forms from' },
  { route: /^\/api\/v1\/profiles$/, path: 'profiles[*].summary', kind: 'added',
    why: 'how the run page draws a preset\'s summary rows (mailbox-db: columns, axes, thresholds)' },
  { route: /^\/api\/v1\/profiles$/, path: 'job_fields', kind: 'added',
    why: 'the job request\'s field descriptors, from the same table that validates it' },
  { route: /^\/api\/v1\/profiles$/, path: 'profiles[8]', kind: 'added',
    why: 'the new preset cdm-nvme (CrystalDiskMark 8 NVMe SSD), last in the registry' },
  { route: /^\/api\/v1\/profiles$/, path: 'profiles[9]', kind: 'added',
    why: 'the new preset snia-iops (SNIA PTS 2.0.2 IOPS), last in the registry' },
  { route: /^\/api\/v1\/profiles$/, path: 'profiles[*].options.*', kind: 'changed',
    why: 'the one-line option texts are now written from the descriptors (help: limits (default)), not by hand' },
  { route: /^\/api\/v1\/openapi\.json$/, path: '$', kind: 'changed',
    why: 'the document is generated: the request schemas from the field tables (MailboxOptions is MailboxDbOptions, its thresholds inline), the new /profiles members documented, its fragments merged in their order' },
  { route: /^\/api\/v1\/profiles$/, path: 'profiles[*].test_fields.*', kind: 'changed',
    why: 'the one-line test-field texts are now written from the descriptors (help: limits (default)), not by hand' },
  // issue 16: verdicts at the level of runs, interleaved comparison jobs
  { route: /^\/api\/v1\/jobs/, path: 'jobs[*].compare_with', kind: 'added',
    why: 'an interleaved comparison job\'s other targets (null for a job of one target)' },
  { route: /^\/api\/v1\/jobs/, path: 'jobs[*].runs', kind: 'added',
    why: 'a job\'s runs: one per target for an interleaved job' },
  { route: /^\/api\/v1\/jobs\/\d+$/, path: 'compare_with', kind: 'added',
    why: 'an interleaved comparison job\'s other targets (null for a job of one target)' },
  { route: /^\/api\/v1\/jobs\/\d+$/, path: 'runs', kind: 'added',
    why: 'a job\'s runs: one per target for an interleaved job' },
  { route: /^\/api\/v1\/profiles$/, path: 'profiles[*].interleave', kind: 'added',
    why: 'whether a profile takes compare_with (the profiles that are a list of tests)' },
  { route: /^\/api\/v1\/openapi\.json$/, path: '$', kind: 'added',
    why: 'documented: compare_with, a job\'s runs, the new compare members and group_by keys' },
  { route: /^\/api\/v1\/compare/, path: 'tests[*].metrics[*].vs_baseline', kind: 'added',
    why: 'each delta says which test judged it (paired, runs, noise), on what n, its 95 % interval and noise band, and how' },
  { route: /^\/api\/v1\/compare/, path: 'tests[*].metrics[*].vs_baseline', kind: 'changed',
    why: 'the run is the unit of evidence: iterations are no longer tested as independent samples, so a side of one run cannot tell without a noise estimate' },
  { route: /^\/api\/v1\/compare/, path: 'verdicts[*]', kind: 'changed',
    why: 'the verdict sentences of run-level tests (cannot tell, and what would tell; intervals beside the biggest differences)' },
  { route: /^\/api\/v1\/compare/, path: 'rules', kind: 'changed',
    why: 'the rules name the tests and when each is used, not a minimum of iterations' },
  { route: /^\/api\/v1\/runs\/\d+\/samples$/, path: 'samples[*].host', kind: 'added',
    why: 'each second carries the host\'s CPU and memory counters (null for a run that has none)' },
  { route: /^\/api\/v1\/runs\/\d+\/samples$/, path: 'samples[*].device', kind: 'added',
    why: 'each second carries the counters of the block device under the target (null for none)' },
  { route: /^\/api\/v1\/compare/, path: 'rules', kind: 'added',
    why: 'the rules name the tests and when each is used, not a minimum of iterations' },
  { route: /^\/api\/v1\/compare/, path: 'warnings', kind: 'changed',
    why: 'sides that differ in a condition they are not grouped by are warned of; the imported-run warning says several runs a side are tested' },
  { route: /^\/api\/v1\/compare/, path: 'warnings', kind: 'added',
    why: 'sides that differ in a condition they are not grouped by are warned of' },
  { route: /^\/api\/v1\/compare/, path: 'tests[*].workload', kind: 'changed',
    why: 'the back-end left the workload shape: it is a condition (warned of, a group_by key), so group_by=engine can judge' },
  { route: /^\/api\/v1\/compare/, path: 'tests[*].not_like_for_like', kind: 'changed',
    why: 'the back-end left the workload shape: it is a condition (warned of, a group_by key), so group_by=engine can judge' },
  { route: /^\/api\/v1\/compare\?group_by=/, path: 'detail', kind: 'changed',
    why: 'a one-sided group_by names the value every run has' },
  { route: /^\/api\/v1\/compare.*format=csv/, path: '$', kind: 'changed',
    why: 'the CSV carries the run-level verdicts' },
  // issue 32: multi-host jobs
  { route: /^\/api\/v1\/jobs/, path: 'jobs[*].hosts', kind: 'added',
    why: 'a multi-host job\'s hosts (null for a job of this host)' },
  { route: /^\/api\/v1\/jobs/, path: 'jobs[*].fleet', kind: 'added',
    why: 'a host\'s job of a multi-host job: its coordinator\'s record (null otherwise)' },
  { route: /^\/api\/v1\/jobs\/\d+$/, path: 'hosts', kind: 'added',
    why: 'a multi-host job\'s hosts (null for a job of this host)' },
  { route: /^\/api\/v1\/jobs\/\d+$/, path: 'fleet', kind: 'added',
    why: 'a host\'s job of a multi-host job: its coordinator\'s record (null otherwise)' },
  { route: /^\/api\/v1\/profiles$/, path: 'job_fields[*]', kind: 'changed',
    why: 'the job request takes hosts, clock_bound_ms, peer_timeout_s and fleet (multi-host jobs), listed first after target' },
  { route: /^\/api\/v1\/profiles$/, path: 'job_fields[*]', kind: 'added',
    why: 'the job request takes hosts, clock_bound_ms, peer_timeout_s and fleet (multi-host jobs)' },
  { route: /^\/metrics$/, path: '$', kind: 'changed',
    why: 'the last run\'s gauges are per target and host, with a host label (the run\'s hostname), so a hub\'s /metrics shows every server\'s' },
  // issue 33: what changed between two runs; the compare page's repeats
  { route: /^\/api\/v1\/compare/, path: 'changed', kind: 'added',
    why: 'what changed between the sides: each field of the runs\' probe, engine and spec that differs, a value per side' },
  { route: /^\/api\/v1\/compare/, path: 'cannot_tell', kind: 'added',
    why: 'each reason a difference cannot be told, once, with the tests and sides it applies to' },
  { route: /^\/api\/v1\/compare/, path: 'tests[*].metrics', kind: 'changed',
    why: 'a metric no side has a value of (an imported CrystalDiskMark result\'s latency) has no row' },
];

const here = path.dirname(fileURLToPath(import.meta.url));
const goldenDir = path.resolve(here, '../golden');
const archiveSql = path.join(goldenDir, 'archive.sql');
const respDir = path.join(goldenDir, 'responses');
const RECORD = process.env.STORBENCH_GOLDEN_RECORD === '1';
const bin = process.env.STORBENCH_BIN;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(fs.existsSync(archiveSql), `${archiveSql} is missing (tests/golden/make-archive makes it)`);

// ---------------------------------------------------------------------------
// JSON that keeps what JSON.parse loses: objects are Maps (the order keys
// came in, integer-like keys included), numbers are their text (Num).

class Num {
  constructor(text) { this.text = text; }
}

function parseJson(text) {
  let i = 0;
  const fail = (msg) => { throw new SyntaxError(`${msg} at offset ${i}`); };
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const m = new Map();
      ws();
      if (text[i] === '}') { i++; return m; }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const k = string();
        ws();
        if (text[i++] !== ':') fail('expected :');
        if (m.has(k)) fail(`duplicate key ${JSON.stringify(k)}`);
        m.set(k, value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return m; }
        fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const a = [];
      ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return a; }
        fail('expected , or ]');
      }
    }
    if (c === '"') return string();
    for (const [w, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(w, i)) { i += w.length; return v; }
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (!m) fail('unexpected character');
    i += m[0].length;
    return new Num(m[0]);
  };
  const string = () => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

function printJson(v, ind = '') {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Num) return v.text;
  const in2 = `${ind}  `;
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return `[\n${v.map((x) => in2 + printJson(x, in2)).join(',\n')}\n${ind}]`;
  }
  if (v instanceof Map) {
    if (!v.size) return '{}';
    return `{\n${[...v].map(([k, x]) => `${in2}${JSON.stringify(k)}: ${printJson(x, in2)}`).join(',\n')}\n${ind}}`;
  }
  throw new TypeError(`cannot print ${typeof v}`);
}

/** A short one-line rendering of a value for the difference list. */
function brief(v, max = 120) {
  let s = v === undefined ? '(absent)' : printJson(v).replace(/\n\s*/g, ' ');
  if (s.length > max) s = `${s.slice(0, max - 1)}…`;
  return s;
}

// ---------------------------------------------------------------------------
// Differences: {path, kind: "added" | "removed" | "changed", old, new}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const keyPath = (p, k) => (IDENT.test(k) ? (p ? `${p}.${k}` : k) : `${p}[${JSON.stringify(k)}]`);
const typeOf = (v) => (v === null ? 'null' : v instanceof Num ? 'number' : Array.isArray(v) ? 'array'
  : v instanceof Map ? 'object' : typeof v);

function diff(a, b, p, out) {
  const ta = typeOf(a);
  if (ta !== typeOf(b)) { out.push({ path: p, kind: 'changed', old: a, new: b }); return; }
  if (ta === 'array') {
    for (let k = 0; k < Math.max(a.length, b.length); k++) {
      const q = `${p}[${k}]`;
      if (k >= a.length) out.push({ path: q, kind: 'added', old: undefined, new: b[k] });
      else if (k >= b.length) out.push({ path: q, kind: 'removed', old: a[k], new: undefined });
      else diff(a[k], b[k], q, out);
    }
    return;
  }
  if (ta === 'object') {
    for (const [k, v] of a) {
      if (!b.has(k)) out.push({ path: keyPath(p, k), kind: 'removed', old: v, new: undefined });
      else diff(v, b.get(k), keyPath(p, k), out);
    }
    for (const [k, v] of b) if (!a.has(k)) out.push({ path: keyPath(p, k), kind: 'added', old: undefined, new: v });
    return;
  }
  if (ta === 'number' ? a.text !== b.text : a !== b) out.push({ path: p, kind: 'changed', old: a, new: b });
}

/** Where two texts first differ, in words. */
function textDiff(a, b) {
  const la = a.split('\n');
  const lb = b.split('\n');
  let k = 0;
  while (k < la.length && k < lb.length && la[k] === lb[k]) k++;
  const cut = (s) => (s === undefined ? '(no line)' : JSON.stringify(s.length > 160 ? `${s.slice(0, 159)}…` : s));
  return `${la.length} -> ${lb.length} lines; first difference on line ${k + 1}: ${cut(la[k])} -> ${cut(lb[k])}`;
}

/** A path pattern of ALLOWED as a RegExp matching that path and below. */
function patternRe(pattern) {
  let s = pattern.trim();
  if (s.startsWith('(')) return new RegExp(`^${s.replace(/[()]/g, '\\$&')}$`);
  s = s.replace(/^\$\.?/, '');
  let re = '';
  for (let k = 0; k < s.length;) {
    if (s.startsWith('[*]', k)) { re += '\\[\\d+\\]'; k += 3; continue; }
    if (s[k] === '*' && (k === 0 || s[k - 1] === '.') && (k + 1 === s.length || '.['.includes(s[k + 1]))) {
      re += '(?:[A-Za-z_][A-Za-z0-9_]*|\\[\\d+\\]|\\["(?:[^"\\\\]|\\\\.)*"\\])';
      k++;
      continue;
    }
    re += s[k].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    k++;
  }
  return new RegExp(re ? `^${re}(?=$|[.\\[])` : '^');
}

const allowed = ALLOWED.map((a, n) => {
  assert.ok(['added', 'changed'].includes(a.kind), `ALLOWED[${n}].kind must be "added" or "changed"`);
  assert.ok(a.why && a.why.trim(), `ALLOWED[${n}] needs a why`);
  return { ...a, routeRe: a.route instanceof RegExp ? a.route : new RegExp(a.route), pathRe: patternRe(a.path), used: 0 };
});

function permitted(route, d) {
  for (const a of allowed) {
    if (!a.routeRe.test(route) || !a.pathRe.test(d.path)) continue;
    if (a.kind === 'changed' || d.kind === 'added') return a;
  }
  return null;
}

// ---------------------------------------------------------------------------
// The archive and the routes

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'storbench-golden-'));
const dataDir = path.join(root, 'data');
fs.mkdirSync(dataDir, { mode: 0o700 });
fs.chmodSync(dataDir, 0o700); // the daemon wants its data directory 0700, its files 0600
const allowDir = path.join(root, 'allowed');
fs.mkdirSync(allowDir);
const db = path.join(dataDir, 'storbench.db');
execFileSync('sqlite3', [db], { input: fs.readFileSync(archiveSql) });
fs.chmodSync(db, 0o600);

const sql = (q) => {
  const t = execFileSync('sqlite3', ['-json', db, q]).toString().trim();
  return t ? JSON.parse(t) : [];
};
const ids = (q) => sql(q).map((r) => r.id);
const withLabel = (profile, label) => ids(`SELECT r.id FROM runs r, json_each(r.labels) l
  WHERE r.profile='${profile}' AND l.value='${label}' ORDER BY r.id`);
const firstTwo = (profile) => ids(`SELECT id FROM runs WHERE profile='${profile}' AND state='done' ORDER BY id LIMIT 2`);

const jobIds = ids('SELECT id FROM jobs ORDER BY id');
const runIds = ids('SELECT id FROM runs ORDER BY id');
const importedIds = ids('SELECT run_id AS id FROM imports ORDER BY run_id');
const nativeIds = runIds.filter((r) => !importedIds.includes(r));
const first = sql(`SELECT target, hostname, fs_type, substr(started_at, 1, 10) AS day,
  json_extract(probe, '$.fs_block_size') AS bs FROM runs WHERE id=${nativeIds[0]}`)[0];
const [before] = withLabel('cdm-default', 'before');
const [afterRun] = withLabel('cdm-default', 'after');
const [cdm8] = ids("SELECT run_id AS id FROM imports WHERE filename LIKE 'cdm80%' ORDER BY filename LIMIT 1");
for (const [what, v] of Object.entries({ before, after: afterRun, cdm8 })) {
  assert.ok(v, `the archive has no ${what} run`);
}
const pairs = Object.fromEntries(['mailbox-db', 'file-create', 'seq-sweep'].map((p) => [p, firstTwo(p)]));
for (const [p, v] of Object.entries(pairs)) assert.equal(v.length, 2, `the archive needs two ${p} runs`);
const q = encodeURIComponent;

const routes = [
  '/healthz',
  '/api/v1/jobs',
  '/api/v1/jobs?limit=3&offset=2',
  ...jobIds.map((id) => `/api/v1/jobs/${id}`),
  '/api/v1/jobs/999999',
  '/api/v1/runs',
  '/api/v1/runs?profile=cdm-default',
  '/api/v1/runs?profile=no-such-profile',
  `/api/v1/runs?fs_type=${q(first.fs_type)}`,
  '/api/v1/runs?fs_type=ntfs',
  '/api/v1/runs?label=before',
  '/api/v1/runs?label=imported&sort=started_at',
  '/api/v1/runs?state=interrupted',
  '/api/v1/runs?state=done&profile=custom',
  `/api/v1/runs?target=${q(first.target)}`,
  `/api/v1/runs?server=${q(first.hostname)}`,
  '/api/v1/runs?cluster_size=65536',
  `/api/v1/runs?from=${first.day}&to=${first.day}`,
  '/api/v1/runs?from=2000&to=2019-06',
  '/api/v1/runs?sort=id',
  '/api/v1/runs?sort=-started_at',
  '/api/v1/runs?sort=profile',
  '/api/v1/runs?sort=-fs_type',
  '/api/v1/runs?sort=target',
  '/api/v1/runs?sort=hostname',
  '/api/v1/runs?limit=5&offset=3',
  '/api/v1/runs?sort=bogus',
  ...runIds.flatMap((id) => [
    `/api/v1/runs/${id}`,
    `/api/v1/runs/${id}?format=csv`,
    `/api/v1/runs/${id}?format=cdm`,
    `/api/v1/runs/${id}/samples`,
  ]),
  ...importedIds.map((id) => `/api/v1/runs/${id}/original`),
  `/api/v1/runs/${nativeIds[0]}/original`,
  `/api/v1/runs/${nativeIds[0]}/samples?format=csv`,
  '/api/v1/runs/999999',
  `/api/v1/compare?runs=${before},${afterRun}`,
  `/api/v1/compare?runs=${pairs['mailbox-db'].join(',')}`,
  `/api/v1/compare?runs=${pairs['file-create'].join(',')}`,
  `/api/v1/compare?runs=${pairs['file-create'].join(',')}&format=csv`,
  `/api/v1/compare?runs=${pairs['seq-sweep'].join(',')}`,
  `/api/v1/compare?runs=${before},${cdm8}`,
  '/api/v1/compare?group_by=label&values=before,after',
  '/api/v1/compare?group_by=label&values=before,after&format=csv',
  '/api/v1/compare?group_by=fs_type&profile=cdm-default', // one side (ext4): a 400
  '/api/v1/compare?group_by=fs_type&profile=crystaldiskmark',
  '/api/v1/compare?group_by=cluster_size&fs_type=ntfs',
  '/api/v1/compare?runs=999998,999999',
  '/api/v1/profiles',
  '/api/v1/openapi.json',
  '/api/v1/credentials',
  '/metrics',
];

/** The file name of a route's answer: a slug of the route. */
function slug(route) {
  const [p, query] = route.split('?');
  let s = p.replace(/^\//, '').replace(/[^A-Za-z0-9._-]+/g, '_') || 'root';
  if (query !== undefined) s += `__${query.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
  return `${s}.json`;
}
{
  const seen = new Map();
  for (const r of routes) {
    assert.ok(!seen.has(slug(r)), `routes ${seen.get(slug(r))} and ${r} share the file ${slug(r)}`);
    seen.set(slug(r), r);
  }
}

/** GET route; the answer as recorded (a Map, printable with printJson). */
async function answer(url, route) {
  const r = await fetch(url + route, { signal: AbortSignal.timeout(20000) });
  const bytes = Buffer.from(await r.arrayBuffer());
  const ct = r.headers.get('content-type');
  const rec = new Map([['route', route], ['status', new Num(String(r.status))], ['content_type', ct]]);
  const cd = r.headers.get('content-disposition');
  if (cd !== null) rec.set('content_disposition', cd);
  let text = null;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch { /* not UTF-8 */ }
  if (text !== null && route === '/metrics') {
    // storbench_http_*: requests by route and code and their latency,
    // which count this test's own requests
    text = text.split('\n').filter((l) => !/^(# (HELP|TYPE) )?storbench_http/.test(l)).join('\n');
  }
  if (text !== null && /json/.test(ct || '')) {
    try {
      rec.set('body', parseJson(text));
      return rec;
    } catch (e) {
      rec.set('body_not_json', `${e.message}`);
    }
  }
  if (text !== null) rec.set('body', text);
  else rec.set('body_base64', bytes.toString('base64'));
  return rec;
}

/** The differences between a recorded answer and a new one. */
function compareAnswers(old, now) {
  const out = [];
  for (const f of ['status', 'content_type', 'content_disposition', 'body_not_json']) {
    const a = old.get(f);
    const b = now.get(f);
    if (a === undefined && b === undefined) continue;
    if (a === undefined) out.push({ path: `(${f})`, kind: 'added', old: a, new: b });
    else if (b === undefined) out.push({ path: `(${f})`, kind: 'removed', old: a, new: b });
    else diff(a, b, `(${f})`, out);
  }
  const bodyOf = (m) => (m.has('body') ? m.get('body') : m.has('body_base64') ? { base64: m.get('body_base64') } : undefined);
  const a = bodyOf(old);
  const b = bodyOf(now);
  if (a?.base64 !== undefined || b?.base64 !== undefined) {
    if (a?.base64 !== b?.base64) out.push({ path: '', kind: 'changed', old: '(bytes)', new: '(other bytes)' });
  } else if (typeof a === 'string' && typeof b === 'string') {
    if (a !== b) out.push({ path: '', kind: 'changed', old: a, new: b, text: textDiff(a, b) });
  } else {
    diff(a, b, '', out);
  }
  return out;
}

// ---------------------------------------------------------------------------

/** SIGTERM and wait (SIGKILL after 10 s). Not d.stop(): its 10 s timer
 * stays armed after the daemon exits and holds node that long. */
async function stopDaemon(dd) {
  const p = dd.proc;
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((resolve) => p.once('exit', resolve));
  p.kill('SIGTERM');
  const timer = setTimeout(() => p.kill('SIGKILL'), 10000);
  await exited;
  clearTimeout(timer);
}

let d = null;
after(async () => {
  if (d) await stopDaemon(d).catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

test(`golden: ${routes.length} GET routes ${RECORD ? 'recorded' : 'as recorded'} on tests/golden/archive.sql`, async () => {
  const t0 = Date.now();
  d = await startDaemon({ bin, dataDir, allow: [allowDir], quiet: true });
  const answers = [];
  for (const route of routes) answers.push([route, await answer(d.url, route)]);
  await stopDaemon(d);
  d = null;

  if (RECORD) {
    fs.mkdirSync(respDir, { recursive: true });
    for (const f of fs.readdirSync(respDir)) if (f.endsWith('.json')) fs.rmSync(path.join(respDir, f));
    for (const [route, rec] of answers) fs.writeFileSync(path.join(respDir, slug(route)), `${printJson(rec)}\n`);
    console.log(`golden: ${answers.length} routes recorded into ${path.relative(process.cwd(), respDir) || respDir} in ${Date.now() - t0} ms`);
    return;
  }

  const failures = [];
  const uses = [];
  const differing = [];
  const wanted = new Set(routes.map(slug));
  for (const f of fs.readdirSync(respDir)) {
    if (f.endsWith('.json') && !wanted.has(f)) failures.push(`${f}: a recorded answer whose route is no longer asked`);
  }
  for (const [route, now] of answers) {
    const file = path.join(respDir, slug(route));
    if (!fs.existsSync(file)) {
      failures.push(`${route}: no recorded answer (${path.basename(file)}); record with STORBENCH_GOLDEN_RECORD=1`);
      continue;
    }
    const old = parseJson(fs.readFileSync(file, 'utf8'));
    let bad = 0;
    for (const x of compareAnswers(old, now)) {
      const a = permitted(route, x);
      const where = x.path || '$';
      if (a) {
        a.used++;
        uses.push(`${route} ${where} ${x.kind} (${a.why})`);
        continue;
      }
      bad++;
      failures.push(x.text ? `${route}  ${where}  ${x.kind}: ${x.text}`
        : `${route}  ${where}  ${x.kind}: ${brief(x.old)} -> ${brief(x.new)}`);
    }
    if (bad) differing.push([route, now]);
  }

  if (differing.length && process.env.STORBENCH_OUT) {
    const dir = path.join(process.env.STORBENCH_OUT, 'golden-new');
    fs.mkdirSync(dir, { recursive: true });
    for (const [route, rec] of differing) fs.writeFileSync(path.join(dir, slug(route)), `${printJson(rec)}\n`);
    console.log(`golden: the new answers of the ${differing.length} differing routes are in ${dir}`);
  }
  const used = allowed.filter((a) => a.used);
  console.log(`golden: ${answers.length} routes compared in ${Date.now() - t0} ms; ` +
    `${uses.length} allowed differences used${used.length ? ` (${used.map((a) => `${a.route} ${a.path} ${a.kind} ×${a.used}`).join('; ')})` : ''}; ` +
    `${failures.length} failures${differing.length ? ` on ${differing.length} routes` : ''}`);
  if (uses.length) console.log(`golden: allowed:\n  ${uses.slice(0, 50).join('\n  ')}${uses.length > 50 ? `\n  … ${uses.length - 50} more` : ''}`);
  const unusedAllowed = allowed.filter((a) => !a.used);
  if (unusedAllowed.length) {
    console.log(`golden: ALLOWED entries that matched nothing: ${unusedAllowed.map((a) => `${a.route} ${a.path} ${a.kind}`).join('; ')}`);
  }
  const shown = failures.slice(0, 200);
  assert.equal(failures.length, 0,
    `${failures.length} differences from the recorded answers (tests/golden/responses) that ALLOWED does not name:\n  ` +
    `${shown.join('\n  ')}${failures.length > shown.length ? `\n  … ${failures.length - shown.length} more` : ''}`);
});
