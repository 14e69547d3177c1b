#!/usr/bin/env node
// bench/aa — can the comparison's verdicts be bet on? False positives of A/A
// comparisons (nothing differs: the share called significant should be
// ≤ 5 %) and power against a known difference (one side throttled to about
// 87 % of its IOPS: the share in which it is found should be ≥ 80 %), for
// today's run-level verdicts and, beside them, for the old test (Welch's
// t-test over one run's iterations, recomputed here from the same runs).
// A benchmark, not a test: the numbers move with the machine's noise.
//
//   bench/aa [--bin build/storbench] [--dir var/bench-aa] [--jobs 20]
//            [--runs 8] [--rounds N] [--size 64MiB] [--duration S]
//            [--throttle 0.87] [--backing disk|ram] [--skip-power]
//            [--sets aa-interleaved,aa-runs,aa-null,power-interleaved,power-runs]
//
// Scenarios, each on real files (a loop-mounted ext4 on an image under
// --dir, loop direct I/O on, so the numbers are the disk's; --backing ram
// puts the images in /dev/shm instead, a device whose rate holds still, so
// that the throttle binds in every round — on a disk whose rate wanders
// more than the throttle takes away, a cap at 87 % of a mean bites only
// sometimes, and the difference that exists is smaller than intended; the
// table's median Δ says which was the case):
//   aa-interleaved  --jobs interleaved jobs of the same directory twice
//                   (compare_with), --rounds rounds of --duration s
//                   windows (without them, the daemon's defaults: what a
//                   user gets, 10 rounds of 5 s), each window measured in
//                   1 s slices the two sides take in turn: the paired test
//   aa-runs         --runs separate runs of that directory, every pair
//                   compared: one run a side, judged against the run-to-run
//                   noise of the series (the runs themselves)
//   aa-null         as aa-interleaved on the null back-end (no I/O: the
//                   engine's own noise)
//   power-*         the same with a second loop filesystem whose device is
//                   throttled (cgroup v2 io.max where the io controller is
//                   on the unified hierarchy, else cgroup v1
//                   blkio.throttle.*_iops_device) to --throttle × its
//                   measured IOPS, for the daemon's process only
// The workload: custom RND4K Q1T1, read and write (a rate a device-level
// IOPS limit shapes evenly); each comparison is a test's headline (IOPS).
// Root and loop devices are needed; without them it says so and stops.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startDaemon, api, waitJob } from '../tests/lib/daemon.mjs';
import { loopFs } from '../tests/lib/loopfs.mjs';

const { values: o } = parseArgs({
  options: {
    bin: { type: 'string', default: 'build/storbench' },
    dir: { type: 'string', default: 'var/bench-aa' },
    jobs: { type: 'string', default: '20' },
    runs: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '' },
    size: { type: 'string', default: '64MiB' },
    duration: { type: 'string', default: '' },
    throttle: { type: 'string', default: '0.87' },
    backing: { type: 'string', default: 'disk' },
    sets: { type: 'string', default: 'aa-interleaved,aa-runs,aa-null,power-interleaved,power-runs' },
    'skip-power': { type: 'boolean', default: false },
  },
});
const JOBS = Number(o.jobs);
const RUNS = Number(o.runs);
// '' sends no iterations / duration_s: the daemon's defaults decide
const given = (k, v) => (v === '' ? {} : { [k]: Number(v) });
let ROUNDS = Number(o.rounds) || 0; // the interleaved jobs' rounds, read back
let WINDOW = Number(o.duration) || NaN; // their windows, s, read back
const THROTTLE = Number(o.throttle);

if (process.getuid?.() !== 0) {
  console.error('bench/aa: needs root (loop devices, mount, cgroup limits)');
  process.exit(2);
}
fs.mkdirSync(o.dir, { recursive: true });
const dir = fs.realpathSync(o.dir);
const TESTS = [
  { name: 'RND4K Q1T1', pattern: 'random', block_size: '4KiB', queue_depth: 1, threads: 1, read_pct: 100 },
  { name: 'RND4K Q1T1', pattern: 'random', block_size: '4KiB', queue_depth: 1, threads: 1, read_pct: 0 },
];

// ---------------------------------------------------------------- statistics
// Only for the old verdict, recomputed here as the daemon used to: Welch's
// t-test over one run's iterations on each side.

function betacf(a, b, x) {
  let c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (Math.abs(d) < 1e-300 ? 1e-300 : d);
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    for (const num of [m * (b - m) * x / ((a + m2 - 1) * (a + m2)), -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))]) {
      d = 1 + num * d; c = 1 + num / c;
      d = 1 / (Math.abs(d) < 1e-300 ? 1e-300 : d);
      if (Math.abs(c) < 1e-300) c = 1e-300;
      h *= d * c;
      if (num < 0 && Math.abs(d * c - 1) < 1e-15) return h;
    }
  }
  return h;
}
const lgamma = (z) => { // Lanczos
  const g = 7, p = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - lgamma(1 - z);
  z -= 1;
  let x = p[0];
  for (let i = 1; i < g + 2; i++) x += p[i] / (z + i);
  const t = z + g + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(x);
};
function betai(a, b, x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  return x < (a + 1) / (a + b + 2) ? front * betacf(a, b, x) / a : 1 - front * betacf(b, a, 1 - x) / b;
}
const tTwoSided = (t, df) => (Number.isFinite(t) ? betai(df / 2, 0.5, df / (df + t * t)) : 0);
function welchP(x, y) {
  const s = (v) => { const m = v.reduce((a, b) => a + b, 0) / v.length; return [m, v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1)]; };
  const [mx, vx] = s(x), [my, vy] = s(y);
  const se2 = vx / x.length + vy / y.length;
  if (se2 === 0) return mx === my ? 1 : 0;
  const df = se2 ** 2 / ((vx / x.length) ** 2 / (x.length - 1) + (vy / y.length) ** 2 / (y.length - 1));
  return tTwoSided((mx - my) / Math.sqrt(se2), df);
}
// the paired t-test's two-sided p of b against a (the daemon's `paired`)
function pairedP(a, b) {
  const d = a.map((x, i) => b[i] - x);
  const n = d.length, m = d.reduce((x, y) => x + y, 0) / n;
  const sd = Math.sqrt(d.reduce((x, y) => x + (y - m) ** 2, 0) / (n - 1));
  return sd === 0 ? (m === 0 ? 1 : 0) : tTwoSided(m / (sd / Math.sqrt(n)), n - 1);
}
// Wilson's 95 % interval of k successes in n
function wilson(k, n) {
  if (!n) return [NaN, NaN];
  const z = 1.96, p = k / n, den = 1 + z * z / n;
  const mid = (p + z * z / (2 * n)) / den, half = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den;
  return [Math.max(0, mid - half), Math.min(1, mid + half)];
}

// ---------------------------------------------------------------- setup

const cleanups = [];
process.on('exit', () => { for (const c of cleanups.reverse()) try { c(); } catch { /* best effort */ } });
process.on('SIGINT', () => process.exit(130));

// disk: the images under --dir, loop direct I/O on (the disk's numbers);
// ram: under /dev/shm (a device whose rate holds still, so a throttle binds
// every round and the difference it makes is the one intended)
const RAM = o.backing === 'ram';
if (!['disk', 'ram'].includes(o.backing)) { console.error('bench/aa: --backing disk|ram'); process.exit(2); }
function volume(name) {
  const where = RAM ? path.join('/dev/shm', 'storbench-aa', name) : path.join(dir, name);
  fs.mkdirSync(where, { recursive: true });
  cleanups.push(() => fs.rmSync(where, { recursive: true, force: true }));
  const v = loopFs(where, 'ext4', RAM ? '512M' : '1G', { directIo: !RAM });
  if (v.skip) { console.error(`bench/aa: ${v.skip}`); process.exit(2); }
  cleanups.push(v.cleanup);
  return v;
}
const volA = volume('a');
const volB = o['skip-power'] ? null : volume('b');
fs.rmSync(path.join(dir, 'data'), { recursive: true, force: true });
const d = await startDaemon({ bin: o.bin, dataDir: path.join(dir, 'data'), allow: [volA.mnt, ...(volB ? [volB.mnt] : [])], quiet: true });
cleanups.push(() => d.proc.kill('SIGKILL'));

async function job(body) {
  const r = await api(d.url, 'POST', '/api/v1/jobs', { profile: 'custom', size: o.size, ...given('duration_s', o.duration), tests: TESTS, ...body });
  if (r.status !== 202) throw new Error(`POST /jobs: ${r.text}`);
  const j = await waitJob(d.url, r.json.id, 3600000);
  if (j.state !== 'done') throw new Error(`job ${j.id}: ${j.state} ${j.error}`);
  return j;
}
const runJson = async (id) => (await api(d.url, 'GET', `/api/v1/runs/${id}`)).json;
const iopsOf = (run, rw) => run.tests.find((t) => t.rw === rw).iterations.map((it) => it.iops);

/** One comparison of runs a (baseline) and b: per direction, the new verdict
 * (API) and the old one (Welch over iterations), with the delta. */
async function judge(a, b) {
  const c = (await api(d.url, 'GET', `/api/v1/compare?runs=${a},${b}`)).json;
  const [ra, rb] = await Promise.all([runJson(a), runJson(b)]);
  return ['read', 'write'].map((rw) => {
    const vs = c.tests.find((t) => t.rw === rw).metrics.find((m) => m.metric === 'iops').vs_baseline[1];
    return { rw, newSig: vs.verdict === 'significant', newTest: vs.test, cannot: vs.verdict === 'cannot tell',
      band: vs.noise_band_pct, delta: vs.delta_pct, oldSig: welchP(iopsOf(ra, rw), iopsOf(rb, rw)) < 0.05 };
  });
}

const rows = [];
function summarize(name, what, results, expectSign) {
  const n = results.length;
  const hit = (r) => (expectSign ? r.newSig && Math.sign(r.delta) === expectSign : r.newSig);
  const oldHit = (r) => r.oldSig;
  const kNew = results.filter(hit).length, kOld = results.filter(oldHit).length;
  const cannot = results.filter((r) => r.cannot).length;
  const tests = [...new Set(results.map((r) => r.newTest).filter(Boolean))].join(', ');
  const bands = results.map((r) => r.band).filter(Number.isFinite).sort((x, y) => x - y);
  const medBand = bands.length ? bands[Math.floor(bands.length / 2)] : NaN;
  const deltas = results.map((r) => r.delta).sort((x, y) => x - y);
  what = what.replace('%R', String(ROUNDS));
  rows.push({ name, what, n, kOld, kNew, cannot, tests, medBand, medDelta: deltas[Math.floor(deltas.length / 2)] });
  const pc = (k) => { const [lo, hi] = wilson(k, n); return `${(100 * k / n).toFixed(1)} % [${(100 * lo).toFixed(1)}–${(100 * hi).toFixed(1)}]`; };
  console.error(`# ${name}: old ${pc(kOld)}, new ${pc(kNew)} (${cannot} cannot tell)`);
}

const aaRounds = { read: [], write: [] }; // aa-interleaved: [A_r, B_r] per round, per job

async function interleavedSet(name, what, target, other, extra, expectSign) {
  const results = [];
  for (let i = 0; i < JOBS; i++) {
    const j = await job({ target, compare_with: [other], ...given('iterations', o.rounds), labels: [name], ...extra });
    results.push(...await judge(j.runs[0], j.runs[1]));
    if (!ROUNDS) {
      const r0 = await runJson(j.runs[0]);
      ROUNDS = r0.spec.interleave.rounds;
      WINDOW = r0.spec.duration_s;
    }
    if (name === 'aa-interleaved') {
      const [ra, rb] = await Promise.all(j.runs.map(runJson));
      for (const rw of ['read', 'write']) aaRounds[rw].push(iopsOf(ra, rw).map((x, r) => [x, iopsOf(rb, rw)[r]]));
    }
  }
  summarize(name, what, results, expectSign);
}

// Power on this machine's own noise: the A/A interleaved rounds measured
// above, with side B scaled by (1 − shift) — a difference known exactly,
// on noise that is real — judged by the paired test over `rounds` rounds
// (consecutive jobs' rounds joined when rounds > ROUNDS).
function injected(shift, rounds) {
  let n = 0, k = 0;
  for (const rw of ['read', 'write']) {
    const all = aaRounds[rw].flat();
    for (let i = 0; i + rounds <= all.length; i += rounds) {
      const a = all.slice(i, i + rounds).map((p) => p[0]);
      const b = all.slice(i, i + rounds).map((p) => p[1] * (1 - shift));
      const mean = (v) => v.reduce((x, y) => x + y, 0) / v.length;
      n++;
      if (pairedP(a, b) < 0.05 && mean(b) < mean(a)) k++;
    }
  }
  return { n, k };
}

async function runsSet(name, what, targets, expectSign) {
  // runs alternate between the targets: a1 b1 a2 b2 … (or one target)
  const ids = [[], []];
  for (let i = 0; i < RUNS; i++) {
    for (let k = 0; k < targets.length; k++) ids[k].push((await job({ target: targets[k], iterations: 3, labels: [name] })).run_id);
  }
  const results = [];
  if (targets.length === 1) {
    for (let i = 0; i < RUNS; i++) for (let j = i + 1; j < RUNS; j++) results.push(...await judge(ids[0][i], ids[0][j]));
  } else {
    for (let i = 0; i < RUNS; i++) results.push(...await judge(ids[0][i], ids[1][i]));
  }
  summarize(name, what, results, expectSign);
}

// ---------------------------------------------------------------- throttle

function devOf(mnt) {
  const st = fs.statSync(mnt);
  return `${Math.floor(st.dev / 256)}:${st.dev % 256}`;
}
function throttle(pid, dev, riops, wiops) {
  const v2 = '/sys/fs/cgroup';
  const controllers = (() => { try { return fs.readFileSync(`${v2}/cgroup.controllers`, 'utf8'); } catch { return ''; } })();
  if (/\bio\b/.test(controllers)) {
    const g = `${v2}/storbench-aa`;
    fs.writeFileSync(`${v2}/cgroup.subtree_control`, '+io');
    fs.mkdirSync(g, { recursive: true });
    fs.writeFileSync(`${g}/io.max`, `${dev} riops=${riops} wiops=${wiops}`);
    fs.writeFileSync(`${g}/cgroup.procs`, String(pid));
    cleanups.push(() => { fs.writeFileSync(`${v2}/cgroup.procs`, String(pid)); fs.rmdirSync(g); });
    return `cgroup v2 io.max "${dev} riops=${riops} wiops=${wiops}"`;
  }
  const v1 = '/sys/fs/cgroup/blkio';
  if (!fs.existsSync(`${v1}/blkio.throttle.read_iops_device`)) throw new Error('no io controller (cgroup v2) and no blkio throttling (v1)');
  const g = `${v1}/storbench-aa`;
  fs.mkdirSync(g, { recursive: true });
  fs.writeFileSync(`${g}/blkio.throttle.read_iops_device`, `${dev} ${riops}`);
  fs.writeFileSync(`${g}/blkio.throttle.write_iops_device`, `${dev} ${wiops}`);
  // every thread of the daemon (cgroup.procs moves the whole process)
  fs.writeFileSync(`${g}/cgroup.procs`, String(pid));
  cleanups.push(() => { fs.writeFileSync(`${v1}/cgroup.procs`, String(pid)); fs.rmdirSync(g); });
  return `cgroup v1 blkio.throttle.{read,write}_iops_device "${dev} ${riops}" / "${dev} ${wiops}" (this machine's blkio controller is on the v1 hierarchy)`;
}

// ---------------------------------------------------------------- run

const SETS = new Set(o.sets.split(','));
const t0 = Date.now();
const aDir = path.join(volA.mnt, 'aa');
fs.mkdirSync(aDir, { recursive: true });
if (SETS.has('aa-interleaved')) await interleavedSet('aa-interleaved', `A/A: ${JOBS} interleaved jobs of one directory twice, %R rounds`, aDir, aDir, {}, 0);
if (SETS.has('aa-runs')) await runsSet('aa-runs', `A/A: ${RUNS} runs of one directory, every pair (one run a side, against the series' noise)`, [aDir], 0);
if (SETS.has('aa-null')) await interleavedSet('aa-null', `A/A on the null back-end: ${JOBS} interleaved jobs, %R rounds`, aDir, aDir, { engine: 'null' }, 0);
let how = 'not measured';
if (volB && (SETS.has('power-interleaved') || SETS.has('power-runs'))) {
  const bDir = path.join(volB.mnt, 'aa');
  fs.mkdirSync(bDir, { recursive: true });
  const probe = await runJson((await job({ target: bDir, iterations: 3 })).run_id);
  const mean = (v) => v.reduce((x, y) => x + y, 0) / v.length;
  const riops = Math.round(THROTTLE * mean(iopsOf(probe, 'read')));
  const wiops = Math.round(THROTTLE * mean(iopsOf(probe, 'write')));
  how = throttle(d.proc.pid, devOf(volB.mnt), riops, wiops);
  console.error(`# throttled: ${how}`);
  if (SETS.has('power-interleaved')) await interleavedSet('power-interleaved', `B throttled to ${THROTTLE} × its IOPS: ${JOBS} interleaved jobs A vs B, %R rounds`, aDir, bDir, {}, -1);
  if (SETS.has('power-runs')) await runsSet('power-runs', `B throttled: ${RUNS} runs of each, A_i vs B_i (one run a side, against the series' noise)`, [aDir, bDir], -1);
}

console.log(`## bench/aa — ${new Date().toISOString()}, ${((Date.now() - t0) / 60000).toFixed(1)} min\n`);
console.log(`custom RND4K Q1T1 read and write, ${o.size}, ${WINDOW} s windows${WINDOW >= 2 ? ` (in ${Math.floor(WINDOW)} slices the sides take in turn when interleaved)` : ''}; ext4 on loop ${RAM ? 'on an image in /dev/shm (RAM)' : `(direct I/O) on an image under ${dir}`}; throttle: ${how}.`);
console.log('A comparison is one test\'s IOPS between two runs; "significant" at p < 0.05. Old: Welch over each run\'s iterations (the verdict before);');
console.log('new: the daemon\'s run-level verdict. Power counts only a significant difference in the right direction (B slower). Brackets: Wilson 95 % intervals');
console.log('(the comparisons of one set share runs, so they are not independent: the intervals are optimistic).\n');
console.log('| set | what | comparisons | old: significant | new: significant | new: cannot tell | new test | median Δ | median noise band |');
console.log('|---|---|---:|---:|---:|---:|---|---:|---:|');
for (const r of rows) {
  const pc = (k) => { const [lo, hi] = wilson(k, r.n); return `${(100 * k / r.n).toFixed(1)} % [${(100 * lo).toFixed(0)}–${(100 * hi).toFixed(0)}]`; };
  console.log(`| ${r.name} | ${r.what} | ${r.n} | ${pc(r.kOld)} | ${pc(r.kNew)} | ${r.cannot} | ${r.tests} | ${r.medDelta.toFixed(1)} % | ±${r.medBand.toFixed(1)} % |`);
}
if (aaRounds.read.length) {
  console.log('\nPower on the A/A rounds above with side B scaled down by a known share (the real noise of this machine, an exact difference),');
  console.log('judged by the paired test; consecutive jobs\' rounds are joined for more rounds than a job had:\n');
  const shifts = [0.05, 0.10, 0.13, 0.15, 0.20];
  console.log(`| rounds | ${shifts.map((x) => `−${x * 100} %`).join(' | ')} |`);
  console.log(`|---:|${shifts.map(() => '---:').join('|')}|`);
  for (const rounds of [ROUNDS, 2 * ROUNDS, 4 * ROUNDS]) {
    const cells = shifts.map((x) => {
      const { n, k } = injected(x, rounds);
      return n ? `${(100 * k / n).toFixed(0)} % (${k}/${n})` : '–';
    });
    console.log(`| ${rounds} | ${cells.join(' | ')} |`);
  }
}
await d.stop();
