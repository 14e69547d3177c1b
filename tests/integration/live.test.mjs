// Live progress and monitoring against the real daemon:
// - GET /api/v1/events: a client receives the job's state changes, at least
//   one progress event every second while the job measures, every finished
//   second as a sample matching the run's stored samples; Last-Event-ID
//   replays what was missed; SIGTERM with streams open still exits within 2 s.
// - GET /metrics: parsed by a strict checker of the Prometheus text format
//   (0.0.4) below, and its figures match the API's.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, api, waitJob } from '../lib/daemon.mjs';
import { stream } from '../lib/events.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const root = fs.mkdtempSync(path.join(path.resolve(out), 'live-'));
let d = await startDaemon({ bin, dataDir: path.join(root, 'data'), quiet: true });
after(async () => {
  await d.stop().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('events: state changes, progress every second, samples that match the archive', async () => {
  const s = stream(d.url);
  await s.opened;
  assert.equal(s.status, 200);
  assert.match(s.headers['content-type'], /^text\/event-stream/);
  const r = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '32MiB', iterations: 2, duration_s: 3,
    tests: [{ name: 'RND4K Q8T1', block_size: '4KiB', queue_depth: 8 }] });
  assert.equal(r.status, 202, r.text);
  const id = r.json.id;
  const job = await waitJob(d.url, id, 60000);
  assert.equal(job.state, 'done', job.error);
  await sleep(300);
  s.close();
  const mine = s.events.filter((e) => (e.name === 'job' ? e.data.id : e.data.job_id) === id);
  const states = mine.filter((e) => e.name === 'job').map((e) => e.data.state);
  assert.deepEqual(states, ['queued', 'running', 'done']);
  assert.equal(mine.filter((e) => e.name === 'job').at(-1).data.run_id, job.run_id);
  // ids rise one by one
  for (let i = 1; i < s.events.length; i++) assert.equal(s.events[i].id, s.events[i - 1].id + 1);
  // progress at least once a second while measuring (two windows of 3 s)
  const prog = mine.filter((e) => e.name === 'progress');
  const measuring = prog.filter((e) => e.data.phase === 'measuring');
  assert.ok(measuring.length >= 8, `${measuring.length} progress events while measuring`);
  let worst = 0;
  for (let i = 1; i < measuring.length; i++) worst = Math.max(worst, measuring[i].t - measuring[i - 1].t);
  console.log(`  # ${prog.length} progress events, ${measuring.length} while measuring, largest gap ${worst} ms`);
  assert.ok(worst <= 1000, `a gap of ${worst} ms between progress events`);
  for (const e of measuring) {
    assert.ok(e.data.fraction >= 0 && e.data.fraction <= 1);
    assert.ok(e.data.elapsed_s >= 0);
    assert.equal(e.data.test, 'RND4K Q8T1');
  }
  assert.ok(measuring.some((e) => e.data.live_iops > 0 && e.data.remaining_s > 0));
  // each sample is the archive's second
  // every stored second came as an event, with the same rates (the ragged
  // last one of each window right after its iteration)
  const samples = mine.filter((e) => e.name === 'sample');
  const stored = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}/samples`)).json.samples;
  assert.equal(samples.length, stored.length, `${samples.length} sample events, ${stored.length} stored seconds`);
  for (const e of samples) {
    const st = stored.find((x) => x.iteration === e.data.iteration && x.t_s === e.data.second && x.test === e.data.test);
    assert.ok(st, `stored second ${e.data.iteration}/${e.data.second}`);
    assert.ok(Math.abs(st.length_s - e.data.length_s) < 1e-6, `length ${st.length_s} vs ${e.data.length_s}`);
    assert.ok(Math.abs(st.read.iops - e.data.read.iops) <= 1e-6 * st.read.iops + 0.01, `${st.read.iops} vs ${e.data.read.iops}`);
  }
});

test('events: progress keeps coming through the pause between tests', async () => {
  const s = stream(d.url);
  await s.opened;
  const r = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '16MiB', iterations: 1, duration_s: 1, interval_s: 2.5,
    tests: [{ name: 'A', block_size: '4KiB' }, { name: 'B', block_size: '4KiB', read_pct: 0 }] });
  const job = await waitJob(d.url, r.json.id, 60000);
  s.close();
  assert.equal(job.state, 'done');
  const prog = s.events.filter((e) => e.name === 'progress' && e.data.job_id === r.json.id);
  const pause = prog.filter((e) => e.data.phase === 'interval');
  assert.ok(pause.length >= 4, `${pause.length} progress events in a 2.5 s pause`);
  const first = prog.findIndex((e) => e.data.phase === 'measuring');
  let worst = 0;
  for (let i = first + 1; i < prog.length; i++) worst = Math.max(worst, prog[i].t - prog[i - 1].t);
  assert.ok(worst <= 1000, `a gap of ${worst} ms`);
});

test('events: Last-Event-ID replays what a client missed; keep-alive and no CORS', async () => {
  const first = stream(d.url);
  await first.opened;
  const r = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '8MiB', iterations: 1, duration_s: 0.5,
    tests: [{ name: 'SEQ1M Q1T1', pattern: 'sequential', block_size: '1MiB' }] });
  await waitJob(d.url, r.json.id);
  await sleep(200);
  first.close();
  const ids = first.events.map((e) => e.id);
  const from = ids[2];
  const again = stream(d.url, { 'Last-Event-ID': String(from) });
  await again.opened;
  await sleep(500);
  again.close();
  assert.deepEqual(again.events.map((e) => e.id).slice(0, ids.length - 3), ids.slice(3));
  assert.ok(again.comments.some((c) => /storbench .* event stream/.test(c)));
  assert.equal(again.headers['access-control-allow-origin'], undefined);
  const bad = await api(d.url, 'GET', '/api/v1/events?x=1');
  assert.equal(bad.status, 400);
});

/**
 * The daemon's side of its TCP connections from 127.0.0.1 port `from` to
 * itself at `port` (Linux: /proc/net/tcp), as {state} ('08': CLOSE_WAIT,
 * the client has closed and the daemon has not) or null when there is none.
 */
function daemonSide(port, from) {
  const hex = (n) => n.toString(16).toUpperCase().padStart(4, '0');
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length > 3 && f[1] === `0100007F:${hex(port)}` && f[2] === `0100007F:${hex(from)}`) return { state: f[3] };
  }
  return null;
}

test('a client closing its event stream is not logged as an error', async () => {
  // the daemon writes on to a stream whose client has gone (the job's
  // events), and libmicrohttpd's send fails (EPIPE, ECONNRESET): the
  // stream's normal end, not an error to log
  const gone = [stream(d.url), stream(d.url)];
  await Promise.all(gone.map((s) => s.opened));
  // every byte sent so far read (the opening comment), so the close is a
  // FIN, not a reset: the daemon's side then waits in CLOSE_WAIT
  for (let i = 0; i < 100 && gone.some((s) => !s.comments.length); i++) await sleep(10);
  const ports = gone.map((s) => s.req.socket.localPort);
  gone.forEach((s) => s.close());
  await sleep(100);
  // the daemon has not written to them since: each waits in CLOSE_WAIT
  // (its reader blocks until an event, and nothing else reads the socket)
  for (const p of ports) assert.equal(daemonSide(d.port, p)?.state, '08', `stream from port ${p} before the job`);
  const before = d.output().length;
  const r = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '8MiB', iterations: 2, duration_s: 0.5,
    interval_s: 0, tests: [{ name: 'SEQ1M Q1T1', pattern: 'sequential', block_size: '1MiB' }] });
  assert.equal((await waitJob(d.url, r.json.id)).state, 'done');
  // the job's events were written to both and the sends failed: the
  // daemon ended those connections (a stream's keep-alive is 15 s away)
  for (const p of ports) assert.equal(daemonSide(d.port, p), null, `stream from port ${p} after the job`);
  const log = d.output().slice(before);
  assert.doesNotMatch(log, /Failed to send .*\/api\/v1\/events/, log);
});

test('SIGTERM with event streams open: exit 0 within 2 s', async () => {
  const streams = [stream(d.url), stream(d.url), stream(d.url)];
  await Promise.all(streams.map((s) => s.opened));
  const t0 = Date.now();
  const exit = await d.stop(5000);
  const ms = Date.now() - t0;
  console.log(`  # stopped in ${ms} ms with 3 streams open`);
  assert.equal(exit.code, 0);
  assert.ok(ms < 2000, `${ms} ms`);
  d = await startDaemon({ bin, dataDir: path.join(root, 'data'), quiet: true });
});

/**
 * A strict reader of the Prometheus text exposition format 0.0.4: every line
 * is a comment (# HELP / # TYPE name …), blank, or a sample
 * `name{label="value",…} value`; names and label names by the grammar; label
 * values with only \\ \" \n escapes; one HELP and one TYPE per family, before
 * its samples; each family's samples in one block; counters end in _total;
 * histograms have cumulative _bucket{le}, +Inf equal to _count, and _sum.
 * Returns families: name -> {type, help, samples: [{name, labels, value}]}.
 */
function parseProm(text) {
  const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
  const fams = new Map();
  const done = new Set();
  let current = null;
  const famOf = (sample) => {
    for (const suf of ['_bucket', '_sum', '_count']) {
      const base = sample.endsWith(suf) ? sample.slice(0, -suf.length) : null;
      if (base && fams.get(base)?.type === 'histogram') return base;
    }
    return sample;
  };
  assert.ok(text.endsWith('\n'), 'ends with a newline');
  for (const [n, line] of text.split('\n').slice(0, -1).entries()) {
    const where = `line ${n + 1}: ${line}`;
    if (line === '') continue;
    let m = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (m) {
      assert.match(m[2], NAME, where);
      const f = fams.get(m[2]) ?? { samples: [] };
      fams.set(m[2], f);
      if (m[1] === 'TYPE') {
        assert.ok(!f.type, `second TYPE: ${where}`);
        assert.ok(['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(m[3]), where);
        assert.equal(f.samples.length, 0, `TYPE after samples: ${where}`);
        f.type = m[3];
      } else {
        assert.ok(!f.help, `second HELP: ${where}`);
        f.help = m[3];
      }
      continue;
    }
    assert.ok(!line.startsWith('#'), `a comment that is neither HELP nor TYPE: ${where}`);
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample: ${where}`);
    const labels = {};
    if (m[3] !== undefined && m[3] !== '') {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;
      let pos = 0;
      while (pos < m[3].length) {
        re.lastIndex = pos;
        const lm = re.exec(m[3]);
        assert.ok(lm, `bad labels: ${where}`);
        assert.ok(!(lm[1] in labels), `label twice: ${where}`);
        labels[lm[1]] = lm[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
        pos = re.lastIndex;
      }
    }
    const value = Number(m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : m[4]);
    assert.ok(!Number.isNaN(value) || m[4] === 'NaN', `bad value: ${where}`);
    const fam = famOf(m[1]);
    const f = fams.get(fam);
    assert.ok(f?.type, `sample before its TYPE: ${where}`);
    if (current !== fam) {
      assert.ok(!done.has(fam), `family ${fam} in two blocks: ${where}`);
      if (current) done.add(current);
      current = fam;
    }
    f.samples.push({ name: m[1], labels, value });
  }
  for (const [name, f] of fams) {
    assert.ok(f.type && f.help !== undefined, `${name}: HELP and TYPE`);
    if (f.type === 'counter') assert.ok(name.endsWith('_total'), `counter ${name} ends in _total`);
    if (f.type === 'histogram') {
      const b = f.samples.filter((x) => x.name === `${name}_bucket`);
      for (let i = 1; i < b.length; i++) {
        assert.ok(b[i].value >= b[i - 1].value, `${name}: buckets cumulative`);
        assert.ok(Number(b[i].labels.le === '+Inf' ? Infinity : b[i].labels.le) > Number(b[i - 1].labels.le), `${name}: le rising`);
      }
      assert.equal(b.at(-1).labels.le, '+Inf');
      assert.equal(b.at(-1).value, f.samples.find((x) => x.name === `${name}_count`).value);
      assert.ok(f.samples.some((x) => x.name === `${name}_sum`));
    }
  }
  return fams;
}

/** The value of the sample called name (a histogram's _count too) with labels. */
const val = (fams, name, labels = {}) => [...fams.values()].flatMap((f) => f.samples).find((s) =>
  s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

test('metrics: strict Prometheus text, and the figures the API gives', async () => {
  // something to count: a done job, a cancelled one, a refused request
  const r = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '16MiB', iterations: 1, duration_s: 0.5,
    tests: [{ name: 'RND4K Q4T1', block_size: '4KiB', queue_depth: 4 }, { name: 'SEQ1M Q1T1', pattern: 'sequential', block_size: '1MiB', read_pct: 0 }] });
  const job = await waitJob(d.url, r.json.id);
  assert.equal(job.state, 'done');
  await api(d.url, 'POST', '/api/v1/jobs', { size: 'abc' });
  const m = await api(d.url, 'GET', '/metrics');
  assert.equal(m.status, 200);
  assert.match(m.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const fams = parseProm(m.text);
  assert.equal(val(fams, 'storbench_build_info').toString(), '1');
  assert.ok(fams.get('storbench_build_info').samples[0].labels.version);
  const jobs = (await api(d.url, 'GET', '/api/v1/jobs?limit=1000')).json.jobs;
  for (const st of ['queued', 'running', 'done', 'failed', 'cancelled', 'interrupted']) {
    assert.equal(val(fams, 'storbench_jobs', { state: st }), jobs.filter((j) => j.state === st).length, st);
  }
  assert.equal(val(fams, 'storbench_queue_length'), jobs.filter((j) => j.state === 'queued').length);
  const runs = (await api(d.url, 'GET', '/api/v1/runs?limit=1')).json;
  assert.equal(val(fams, 'storbench_runs'), runs.total);
  // since this daemon started (it was restarted above)
  assert.ok(val(fams, 'storbench_jobs_finished_total', { state: 'done' }) >= 1);
  // the newest done run of the scratch folder, test by test
  const run = (await api(d.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
  const lbl = { target: run.target, profile: 'custom' };
  assert.equal(val(fams, 'storbench_last_run_id', lbl), run.id);
  assert.equal(val(fams, 'storbench_last_run_timestamp_seconds', lbl), Date.parse(run.started_at) / 1000);
  for (const t of run.tests) {
    const l = { ...lbl, test: t.test, rw: t.rw };
    assert.ok(Math.abs(val(fams, 'storbench_last_run_iops', l) - t.best.iops) <= 0.001 + 1e-9 * t.best.iops, `${t.test} iops`);
    assert.ok(Math.abs(val(fams, 'storbench_last_run_bytes_per_second', l) - t.best.mb_s * 1e6) <= 1, `${t.test} bytes/s`);
  }
  // the HTTP counters saw our requests
  assert.ok(val(fams, 'storbench_http_requests_total', { route: '/api/v1/jobs', method: 'POST', code: '202' }) >= 1);
  assert.ok(val(fams, 'storbench_http_requests_total', { route: '/api/v1/jobs', method: 'POST', code: '400' }) >= 1);
  const before = val(fams, 'storbench_http_request_duration_seconds_count');
  const m2 = parseProm((await api(d.url, 'GET', '/metrics')).text);
  assert.ok(val(m2, 'storbench_http_request_duration_seconds_count') > before);
  assert.equal(val(m2, 'storbench_http_requests_total', { route: '/metrics', method: 'GET', code: '200' }),
    (val(fams, 'storbench_http_requests_total', { route: '/metrics', method: 'GET', code: '200' }) ?? 0) + 1);
});

test('metrics: label values are escaped; the token guards /metrics like the API', async () => {
  const odd = path.join(path.join(root, 'data', 'scratch'), 'we"ird\\dir');
  fs.mkdirSync(odd);
  const r = await api(d.url, 'POST', '/api/v1/jobs', { target: odd, profile: 'custom', size: '8MiB', iterations: 1, duration_s: 0.5,
    tests: [{ name: 'RND4K Q1T1', block_size: '4KiB' }] });
  assert.equal((await waitJob(d.url, r.json.id)).state, 'done');
  const fams = parseProm((await api(d.url, 'GET', '/metrics')).text);
  assert.equal(val(fams, 'storbench_last_run_id', { target: odd }), (await api(d.url, 'GET', `/api/v1/jobs/${r.json.id}`)).json.run_id);
  const t = await startDaemon({ bin, dataDir: path.join(root, 'tok'), args: ['--require-token'], quiet: true });
  try {
    assert.equal((await api(t.url, 'GET', '/metrics')).status, 401);
    const tok = fs.readFileSync(path.join(root, 'tok', 'api-token'), 'utf8').trim();
    const ok = await api(t.url, 'GET', '/metrics', undefined, { headers: { Authorization: `Bearer ${tok}` } });
    assert.equal(ok.status, 200);
    parseProm(ok.text);
  } finally {
    await t.stop();
  }
});

test('--log-format json: one JSON object per line, with time, level, msg and the job', async () => {
  const j = await startDaemon({ bin, dataDir: path.join(root, 'jsonlog'), args: ['--log-format', 'json'], quiet: true });
  let id;
  try {
    const r = await api(j.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: '8MiB', iterations: 1, duration_s: 0.5,
      tests: [{ name: 'RND4K Q1T1', block_size: '4KiB' }] });
    id = r.json.id;
    assert.equal((await waitJob(j.url, id)).state, 'done');
  } finally {
    await j.stop();
  }
  const lines = j.output().split('\n').filter(Boolean);
  assert.ok(lines.length >= 5);
  const objs = lines.map((l) => JSON.parse(l));
  for (const o of objs) {
    assert.match(o.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(['info', 'warn', 'error', 'http'].includes(o.level), o.level);
    assert.equal(typeof o.msg, 'string');
  }
  const mine = objs.filter((o) => o.job === id);
  assert.ok(mine.some((o) => o.msg === 'done'), JSON.stringify(mine));
  assert.ok(mine.every((o) => !/^job \d+:/.test(o.msg)), 'the job id moved out of msg');
  const bad = await startDaemon({ bin, dataDir: path.join(root, 'jsonlog'), args: ['--log-format', 'xml'], quiet: true }).catch((e) => e);
  assert.match(String(bad.message ?? bad), /exited before answering/);
});
