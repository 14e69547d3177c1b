// Durability: the real daemon killed with SIGKILL at random moments, over
// and over, restarted each time; and stopped with SIGTERM in every phase of
// a job.
//
//   STORBENCH_BIN=build/storbench STORBENCH_OUT=build/test-out node --test crash.test.mjs
//   CRASH_SEED=1234 CRASH_KILLS=30 …   # replay a seed, kill more often
//
// After every kill, before the restart and again after it: the archive
// passes PRAGMA integrity_check and foreign_key_check (sqlite3 CLI). After
// the restart: every run that was done is still there with the same
// results; the job that was running is interrupted, its run too, with every
// result and every per-second sample it had (including the seconds of an
// iteration the kill cut short); no storbench-*.tmp file is left in
// DATA/scratch except the one of the job now running; and the queue
// carries on. At the end all jobs are done or interrupted, none stuck.
//
// SIGTERM while a test file is written (direct and buffered), while a test
// measures, and between tests: the daemon exits 0 within 2 s, the job is
// interrupted and its test file is gone. The times are printed. A start
// that fails (its port taken) after a kill leaves the queued jobs queued.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDaemon, api } from '../lib/daemon.mjs';

const bin = process.env.STORBENCH_BIN;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');

const seed = Number(process.env.CRASH_SEED ?? (Date.now() % 2 ** 31));
const KILLS = Number(process.env.CRASH_KILLS ?? 16);
console.log(`crash test seed ${seed} (CRASH_SEED=${seed} replays it), ${KILLS} kills`);

// mulberry32: a small seeded PRNG, so a failing sequence can be replayed
let prngState = seed >>> 0;
function rand() {
  prngState = (prngState + 0x6d2b79f5) >>> 0;
  let t = prngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const between = (lo, hi) => lo + (hi - lo) * rand();

const root = fs.mkdtempSync(path.join(path.resolve(out), 'crash-'));
const daemons = new Set();
after(async () => {
  for (const d of daemons) {
    d.proc.kill('SIGKILL');
  }
  fs.rmSync(root, { recursive: true, force: true });
});

/** Starts the daemon on dataDir; resolves with it and its exit promise. */
async function start(dataDir) {
  const d = await startDaemon({ bin, dataDir, quiet: true });
  daemons.add(d);
  d.exited = new Promise((resolve) => {
    if (d.proc.exitCode !== null || d.proc.signalCode !== null) {
      resolve({ code: d.proc.exitCode, signal: d.proc.signalCode });
    } else {
      d.proc.once('exit', (code, signal) => resolve({ code, signal }));
    }
  });
  d.exited.then(() => daemons.delete(d));
  return d;
}

/** One SQL query on the archive with the sqlite3 CLI (daemon stopped). */
function sql(db, query) {
  return execFileSync('sqlite3', [db, query], { encoding: 'utf8' }).trim();
}

function checkIntegrity(db, when) {
  assert.equal(sql(db, 'PRAGMA integrity_check'), 'ok', `integrity_check ${when}`);
  assert.equal(sql(db, 'PRAGMA foreign_key_check'), '', `foreign_key_check ${when}`);
}

async function jobsNow(d) {
  const r = await api(d.url, 'GET', '/api/v1/jobs?limit=1000');
  assert.equal(r.status, 200, r.text);
  return r.json.jobs;
}

async function getJson(d, p) {
  const r = await api(d.url, 'GET', p);
  assert.equal(r.status, 200, `${p}: ${r.text}`);
  return r.json;
}

const sampleKey = (s) => `${s.test}|${s.rw}|${s.iteration}|${s.t_s}`;
const iterKey = (t) => (it) => `${t.test}|${t.rw}|${it.iteration}`;

/** The test files in dir as [name, job id]. */
function testFiles(dir) {
  return fs.readdirSync(dir)
    .filter((f) => /^storbench-.*\.tmp$/.test(f))
    .map((f) => [f, Number(/^storbench-(\d+)-/.exec(f)?.[1])]);
}

/** Polls fn (async, truthy ends) every 50 ms up to ms; returns its value or null. */
async function until(fn, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v) return v;
    await sleep(50);
  }
  return null;
}

// two kinds of small jobs on DATA/scratch (no --allow needed), alternating:
// one test of 1 s, twice, on 16 MiB; or on 256 MiB (a test file that takes
// a moment to write) a test of 2.5 s, long enough that its first second is
// stored while it still runs, then one of 1 s
const SHORT = {
  profile: 'custom', size: '16MiB', iterations: 2, duration_s: 1,
  tests: [{ pattern: 'random', read_pct: 70, block_size: '4KiB', queue_depth: 8, threads: 1 }],
};
const LONG = {
  profile: 'custom', size: '256MiB', iterations: 1, duration_s: 1,
  tests: [
    { pattern: 'random', read_pct: 100, block_size: '4KiB', queue_depth: 8, threads: 2, duration_s: 2.5 },
    { pattern: 'sequential', read_pct: 0, block_size: '128KiB', queue_depth: 4, threads: 1 },
  ],
};

/** The duration of the test job j is measuring now, s (0 if none). */
function measuringFor(j) {
  if (j.state !== 'running' || j.progress?.phase !== 'measuring') return 0;
  return j.tests?.find((t) => t.name === j.progress.test)?.duration_s ?? 0;
}

test(`SIGKILL ${KILLS} times at random moments: nothing archived is lost, nothing is left`, async () => {
  const dataDir = path.join(root, 'kill');
  const db = path.join(dataDir, 'storbench.db');
  let d = await start(dataDir);
  const scratch = path.join(fs.realpathSync(dataDir), 'scratch');
  const doneRuns = new Map(); // run id -> its tests, as first read
  const stats = { kills: 0, interrupted: 0, midMeasure: 0, preparing: 0, streamedKept: 0, filesLeft: 0 };
  let queuedN = 0;
  let snap0 = null; // at the last kill

  async function topUp(min) {
    const jobs = await jobsNow(d);
    let queued = jobs.filter((j) => j.state === 'queued').length;
    while (queued < min) {
      const spec = queuedN++ % 2 ? LONG : SHORT;
      const r = await api(d.url, 'POST', '/api/v1/jobs', { ...spec, labels: ['crash', `n${queuedN}`] });
      assert.equal(r.status, 202, r.text);
      queued++;
    }
  }

  /** Everything the checks after the restart compare against. */
  async function snapshot() {
    const jobs = await jobsNow(d);
    const snap = { jobs: new Map(jobs.map((j) => [j.id, j])), runs: new Map() };
    for (const j of jobs) {
      if (j.state === 'done' && j.run_id && !doneRuns.has(j.run_id)) {
        doneRuns.set(j.run_id, (await getJson(d, `/api/v1/runs/${j.run_id}`)).tests);
      }
      if (j.state === 'running' && j.run_id) {
        const run = await getJson(d, `/api/v1/runs/${j.run_id}`);
        const samples = (await getJson(d, `/api/v1/runs/${j.run_id}/samples`)).samples;
        const iters = new Set(run.tests.flatMap((t) => t.iterations.map(iterKey(t))));
        snap.runs.set(j.run_id, {
          iters,
          samples: new Set(samples.map(sampleKey)),
          // seconds of iterations that had no result yet: stored while they ran
          streamed: samples.filter((s) => !iters.has(`${s.test}|${s.rw}|${s.iteration}`)).map(sampleKey),
        });
      }
    }
    return snap;
  }

  async function checkAfterRestart(snap, k) {
    const jobs = await jobsNow(d);
    const now = new Map(jobs.map((j) => [j.id, j]));
    for (const [id, before] of snap.jobs) {
      const j = now.get(id);
      assert.ok(j, `kill ${k}: job ${id} is gone`);
      assert.ok(!['failed', 'cancelled'].includes(j.state), `kill ${k}: job ${id} ${j.state}: ${j.error}`);
      if (['done', 'interrupted'].includes(before.state)) {
        assert.equal(j.state, before.state, `kill ${k}: job ${id} was ${before.state}`);
      } else if (before.state === 'running') {
        // it may have ended between the snapshot and the kill
        assert.ok(['interrupted', 'done'].includes(j.state), `kill ${k}: job ${id} was running, now ${j.state}`);
      }
      if (j.state === 'interrupted' && before.state !== 'interrupted') {
        stats.interrupted++;
        assert.equal(j.error, 'the daemon stopped while this job ran');
        if (j.run_id) {
          const run = await getJson(d, `/api/v1/runs/${j.run_id}`);
          assert.equal(run.state, 'interrupted', `kill ${k}: run ${j.run_id} of interrupted job ${id}`);
          const samples = (await getJson(d, `/api/v1/runs/${j.run_id}/samples`)).samples;
          const have = new Set(samples.map(sampleKey));
          const iters = new Set(samples.map((s) => `${s.test}|${s.rw}|${s.iteration}`));
          // every finished iteration came with its seconds (one transaction)
          for (const t of run.tests) {
            for (const it of t.iterations) {
              assert.ok(iters.has(iterKey(t)(it)), `kill ${k}: run ${j.run_id} ${iterKey(t)(it)} has a result but no samples`);
            }
          }
          const was = snap.runs.get(j.run_id);
          if (was) {
            const nowIters = new Set(run.tests.flatMap((t) => t.iterations.map(iterKey(t))));
            for (const key of was.iters) assert.ok(nowIters.has(key), `kill ${k}: run ${j.run_id} lost result ${key}`);
            for (const key of was.samples) assert.ok(have.has(key), `kill ${k}: run ${j.run_id} lost sample ${key}`);
            stats.streamedKept += was.streamed.filter((key) => have.has(key)).length;
          }
        }
      }
    }
    // every run that was done: the same, to the last figure
    for (const [runId, tests] of doneRuns) {
      const run = await getJson(d, `/api/v1/runs/${runId}`);
      assert.equal(run.state, 'done', `kill ${k}: run ${runId}`);
      assert.deepEqual(run.tests, tests, `kill ${k}: run ${runId} changed`);
    }
    // test files: only the one of a job running now (the restarted daemon
    // removed the rest before it answered)
    const running = new Set(jobs.filter((j) => j.state === 'running').map((j) => j.id));
    const files = testFiles(scratch);
    for (const j of await jobsNow(d)) if (j.state === 'running') running.add(j.id);
    for (const [f, id] of files) {
      assert.ok(running.has(id), `kill ${k}: ${f} left in ${scratch} (running: ${[...running]})`);
    }
    // the queue carries on: a queued job gets to run
    if (jobs.some((j) => j.state === 'queued') && !running.size) {
      const moved = await until(async () => (await jobsNow(d)).some((j) => j.state === 'running' ||
        (j.state === 'done' && snap.jobs.get(j.id)?.state === 'queued')), 10000);
      assert.ok(moved, `kill ${k}: no queued job started after the restart`);
    }
  }

  for (let k = 1; k <= KILLS; k++) {
    await topUp(2);
    const tWait = Date.now();
    // every fifth kill cuts an iteration short, every fifth after that
    // lands while a test file is written, the rest at random moments
    const r = rand();
    let mode = k % 5 === 1 ? 'mid-measure' : k % 5 === 3 ? 'preparing'
      : r < 0.1 ? 'mid-measure' : r < 0.25 ? 'preparing' : 'random';
    if (mode === 'mid-measure') {
      // a long job measuring, whose running iteration already shows a
      // second: stored while the iteration runs, not when it ends
      let seen = null;
      const hit = await until(async () => {
        const j = (await jobsNow(d)).find((x) => measuringFor(x) > 2 && x.run_id);
        if (!j) return null;
        const s = (await getJson(d, `/api/v1/runs/${j.run_id}/samples`)).samples;
        const run = await getJson(d, `/api/v1/runs/${j.run_id}`);
        const done = new Set(run.tests.flatMap((t) => t.iterations.map(iterKey(t))));
        if (s.some((x) => !done.has(`${x.test}|${x.rw}|${x.iteration}`))) return j;
        const key = `${j.id}|${j.progress.test}|${j.progress.rw}|${j.progress.iteration}`;
        if (seen?.key !== key) seen = { key, at: Date.now() };
        assert.ok(Date.now() - seen.at < 2200, `kill ${k}: job ${j.id} measured ${key} for 2.2 s ` +
          `of its ${measuringFor(j)} s and no second of it is stored yet`);
        return null;
      }, 16000);
      if (hit) stats.midMeasure++;
      else mode = 'random';
    } else if (mode === 'preparing') {
      const hit = await until(async () => (await jobsNow(d)).find((x) => x.state === 'running' &&
        x.progress?.phase === 'preparing' && x.size >= 256 << 20), 10000);
      if (!hit) mode = 'random';
    }
    if (mode === 'random') {
      // mostly short, sometimes long enough for a job to finish
      await sleep(rand() < 0.1 ? between(2500, 4000) : between(50, 1800));
    }
    const snap = await snapshot();
    snap0 = snap;
    const cur = [...snap.jobs.values()].find((j) => j.state === 'running');
    const t0 = Date.now();
    d.proc.kill('SIGKILL');
    const ex = await d.exited;
    assert.equal(ex.signal, 'SIGKILL');
    stats.kills++;
    if (cur?.progress?.phase === 'preparing') stats.preparing++;
    stats.filesLeft += testFiles(scratch).length; // gone after the restart
    checkIntegrity(db, `after kill ${k}`);
    d = await start(dataDir);
    const t1 = Date.now();
    await checkAfterRestart(snap, k);
    checkIntegrity(db, `after restart ${k}`); // read beside the running daemon
    console.log(`kill ${k} (${mode}): job ${cur ? `${cur.id} ${cur.progress?.phase} ` +
      `${cur.progress?.test ?? ''} ${cur.progress?.iteration ?? ''}` : 'none running'}; ` +
      `waited ${t0 - tWait} ms, restarted in ${t1 - t0} ms, checked in ${Date.now() - t1} ms`);
  }

  // no more kills: what is queued runs to the end
  const tDrain = Date.now();
  const final = await until(async () => {
    const jobs = await jobsNow(d);
    return jobs.every((j) => !['queued', 'running'].includes(j.state)) ? jobs : null;
  }, 60000);
  assert.ok(final, 'jobs still queued or running 60 s after the last kill');
  console.log(`the queue ran out ${Date.now() - tDrain} ms after the last kill`);
  const states = {};
  for (const j of final) states[j.state] = (states[j.state] ?? 0) + 1;
  assert.deepEqual(Object.keys(states).filter((s) => !['done', 'interrupted'].includes(s)), [],
    `every job done or interrupted: ${JSON.stringify(states)}`);
  assert.ok(states.done > 0 && states.interrupted > 0, JSON.stringify(states));
  // the jobs queued at the last kill ran after it
  assert.ok(final.some((j) => j.state === 'done' && snap0.jobs.get(j.id)?.state === 'queued'),
    'no job queued at the last kill ran to the end');
  const snap = await snapshot();
  const ex = await d.stop();
  assert.equal(ex.code, 0);
  checkIntegrity(db, 'at the end');
  assert.deepEqual(testFiles(scratch), [], 'test files left at the end');
  // every done run once more, read from the file itself
  assert.equal(Number(sql(db, "SELECT count(*) FROM runs WHERE state='running'")), 0);
  assert.equal(Number(sql(db, "SELECT count(*) FROM jobs WHERE state IN ('queued','running')")), 0);
  assert.ok(snap.jobs.size === final.length);
  console.log(`crash test seed ${seed}: ${stats.kills} kills survived (${stats.preparing} while a ` +
    `test file was written, ${stats.midMeasure} mid-iteration with a second already stored), ` +
    `${stats.interrupted} jobs interrupted, ${stats.streamedKept} seconds of cut-short ` +
    `iterations kept, ${stats.filesLeft} test files left by kills removed at restart, ` +
    `${doneRuns.size} done runs unchanged; final ${JSON.stringify(states)}`);
  assert.equal(stats.kills, KILLS);
  assert.ok(stats.midMeasure > 0 && stats.streamedKept >= stats.midMeasure,
    'kills mid-iteration kept the seconds stored before them');
  assert.ok(stats.preparing > 0, 'no kill landed while a test file was written');
});

// --- SIGTERM ---

const termTimes = [];

/**
 * Queues spec on a fresh daemon, waits for ready(job) to hold, sends
 * SIGTERM and checks: exit code 0 within 2 s, the job interrupted (read
 * from the file), its test file gone.
 */
async function termDuring(name, spec, ready, extra) {
  const dataDir = path.join(root, `term-${name.replace(/\W+/g, '-')}`);
  const d = await start(dataDir);
  const scratch = path.join(fs.realpathSync(dataDir), 'scratch');
  const r = await api(d.url, 'POST', '/api/v1/jobs', spec);
  assert.equal(r.status, 202, r.text);
  const id = r.json.id;
  const job = await until(async () => {
    const j = await getJson(d, `/api/v1/jobs/${id}`);
    assert.ok(['queued', 'running'].includes(j.state), `${name}: job ended early: ${JSON.stringify(j)}`);
    return (await ready(j, d)) ? j : null;
  }, 30000);
  assert.ok(job, `${name}: the job never got there`);
  assert.ok(testFiles(scratch).length > 0, `${name}: no test file while running`);
  const t0 = process.hrtime.bigint();
  d.proc.kill('SIGTERM');
  const ex = await Promise.race([d.exited, sleep(10000).then(() => null)]);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  termTimes.push([name, ms]);
  console.log(`SIGTERM ${name}: exit ${ex ? ex.code : 'none'} after ${ms.toFixed(0)} ms`);
  assert.ok(ex, `${name}: no exit 10 s after SIGTERM`);
  assert.equal(ex.code, 0, `${name}: exit code`);
  assert.ok(ms < 2000, `${name}: exited after ${ms.toFixed(0)} ms, not within 2 s`);
  const db = path.join(dataDir, 'storbench.db');
  assert.equal(sql(db, `SELECT state || '|' || error FROM jobs WHERE id=${id}`),
    'interrupted|the daemon stopped while this job ran');
  assert.deepEqual(testFiles(scratch), [], `${name}: test file left`);
  assert.equal(sql(db, 'SELECT count(*) FROM test_files'), '0');
  checkIntegrity(db, `after SIGTERM ${name}`);
  if (extra) await extra(db, job);
}

const phase = (p) => (j) => j.state === 'running' && j.progress?.phase === p;

// the fill reports its progress every 250 ms; a job's fraction counts the
// fill as one step of 1 + tests × iterations (here 2)
test('SIGTERM while the test file is written (direct I/O): exit 0 within 2 s, job interrupted, file gone', async () => {
  await termDuring('preparing (direct)', { profile: 'custom', size: '4GiB', iterations: 1, duration_s: 1, tests: [{}] },
    async (j) => phase('preparing')(j) && j.progress.fraction > 0);
});

test('SIGTERM while a buffered test file is written: exit 0 within 2 s (not flushed first)', async () => {
  // a GiB or more written, most of it dirty in the page cache
  await termDuring('preparing (buffered)', { profile: 'custom', size: '4GiB', direct: false, iterations: 1, duration_s: 1, tests: [{}] },
    async (j) => phase('preparing')(j) && j.progress.fraction > 0.125);
});

test('SIGTERM mid-test: exit 0 within 2 s, job and run interrupted with the seconds measured', async () => {
  await termDuring('measuring', { profile: 'custom', size: '64MiB', iterations: 1, duration_s: 10,
    tests: [{ pattern: 'random', read_pct: 70, block_size: '4KiB', queue_depth: 16, threads: 2 }] },
  async (j, d) => {
    if (!phase('measuring')(j) || !j.run_id) return false;
    return (await getJson(d, `/api/v1/runs/${j.run_id}/samples`)).samples.length >= 2;
  },
  async (db, j) => {
    assert.equal(sql(db, `SELECT state FROM runs WHERE id=${j.run_id}`), 'interrupted');
    // the seconds stored while it ran, and the cut-short rest at the stop
    assert.ok(Number(sql(db, `SELECT count(*) FROM samples WHERE run_id=${j.run_id}`)) >= 2);
  });
});

test('SIGTERM between two tests: exit 0 within 2 s, job interrupted', async () => {
  await termDuring('interval', { profile: 'custom', size: '16MiB', iterations: 1, duration_s: 1, interval_s: 20,
    tests: [{ read_pct: 100 }, { read_pct: 0 }] }, async (j) => phase('interval')(j));
  console.log(`SIGTERM exit times: ${termTimes.map(([n, ms]) => `${n} ${ms.toFixed(0)} ms`).join(', ')}`);
});

test('a start that fails (its port is taken) claims no queued job', async () => {
  const dataDir = path.join(root, 'busy-port');
  const target = path.join(root, 'busy-port-target');
  fs.mkdirSync(target, { recursive: true });
  const d = await startDaemon({ bin, dataDir, allow: [target], quiet: true });
  daemons.add(d);
  const body = { target, profile: 'custom', size: '16MiB', iterations: 1, duration_s: 5,
    tests: [{ name: 'RND4K', pattern: 'random', block_size: '4KiB', queue_depth: 1 }] };
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await api(d.url, 'POST', '/api/v1/jobs', body)).json.id);
  for (let t = 0; (await api(d.url, 'GET', `/api/v1/jobs/${ids[0]}`)).json.state !== 'running'; t++) {
    assert.ok(t < 200, 'the first job never ran');
    await sleep(50);
  }
  const gone = new Promise((resolve) => d.proc.once('exit', resolve));
  d.proc.kill('SIGKILL');
  await gone;
  daemons.delete(d);
  // another process holds the port the next start asks for
  const { createServer } = await import('node:net');
  const holder = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => holder.once('listening', resolve));
  const port = holder.address().port;
  const r = (await import('node:child_process')).spawnSync(bin,
    ['serve', '--listen', `127.0.0.1:${port}`, '--data', dataDir, '--allow', target], { encoding: 'utf8', timeout: 20000 });
  holder.close();
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /cannot listen/);
  const states = execFileSync('sqlite3', [path.join(dataDir, 'storbench.db'),
    `SELECT id || ':' || state FROM jobs WHERE id IN (${ids.join(',')}) ORDER BY id`]).toString().trim().split('\n');
  // the job that was running when killed is interrupted; the queued ones
  // are still queued (before: the failed start ran the next and ended it
  // interrupted, one more each time)
  assert.deepEqual(states, [`${ids[0]}:interrupted`, `${ids[1]}:queued`, `${ids[2]}:queued`]);
});
