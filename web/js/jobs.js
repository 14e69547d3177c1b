// The job list on the home page: live from GET /api/v1/events (read with
// fetch, so the token goes in a header), polled from GET /api/v1/jobs every
// second while the stream is down and every 5 s while it is up. A "job"
// event refreshes the list at once; "progress" events move the cards.

import { hostsText, fleetLines } from './fleet.js';
import { $, h, stateBadge, showGlobalError } from './dom.js';
import { API, api, apiFetch } from './api.js';
import { isNum, fmtMBs, fmtFixed, fmtBytes, fmtTime, fmtDuration, secondsBetween } from './format.js';
import { COLORS, hasChart } from './charts.js';
import { loadRuns, runsAge } from './archive.js';
import { pollHealth } from './health.js';
import { allSteady } from './steady.js';

export const ACTIVE = new Set(['queued', 'running']);

const jobs = {
  cards: new Map(), // id -> {el, parts, chart, samples}
  last: new Map(), // id -> the job as last listed (or moved by the stream)
  activeIds: new Set(),
  timer: 0,
  inFlight: false,
  streamUp: false,
  streamTimer: 0,
};

export function pollJobsSoon(ms = 0) {
  clearTimeout(jobs.timer);
  jobs.timer = setTimeout(pollJobs, ms);
}

function onEvent(name, data) {
  if (name === 'job') { pollJobsSoon(0); return; }
  if (name !== 'progress') return;
  const job = jobs.last.get(data.job_id);
  const card = jobs.cards.get(data.job_id);
  if (!job || !card) return;
  const live = { ...job, state: 'running', progress: data };
  jobs.last.set(job.id, live);
  updateJobCard(card, live);
}

/** Reads the event stream until it drops; then polls, and reconnects after 3 s. */
export async function liveStream() {
  clearTimeout(jobs.streamTimer);
  try {
    const r = await apiFetch(`${API}/events`, { headers: { Accept: 'text/event-stream' } });
    if (!r.ok || !r.body) throw new Error(`HTTP ${r.status}`);
    jobs.streamUp = true;
    document.body.dataset.live = 'stream';
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let name = 'message', data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) name = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) { try { onEvent(name, JSON.parse(data)); } catch { /* not JSON */ } }
      }
    }
  } catch { /* dropped: fall back to polling */ }
  jobs.streamUp = false;
  document.body.dataset.live = 'polling';
  pollJobsSoon(0);
  jobs.streamTimer = setTimeout(liveStream, 3000);
}

export async function pollJobs() {
  if (jobs.inFlight) return;
  jobs.inFlight = true;
  let anyActive = false, fleetRunning = false;
  try {
    const r = await api('GET', '/jobs?limit=50');
    const list = r.json?.jobs ?? [];
    for (const j of list) jobs.last.set(j.id, j);
    renderJobs(list);
    const active = new Set(list.filter((j) => ACTIVE.has(j.state)).map((j) => j.id));
    anyActive = active.size > 0;
    // a multi-host job's lines come from polling (its hosts send no events here)
    fleetRunning = list.some((j) => j.state === 'running' && j.hosts?.length);
    // A job has finished (or a new one has started a run): refresh the archive.
    const finished = [...jobs.activeIds].some((id) => !active.has(id));
    const started = [...active].some((id) => !jobs.activeIds.has(id));
    if (finished || started) { loadRuns(); pollHealth(); }
    else if (anyActive && runsAge() > 5000) loadRuns(); // headline numbers of running runs
    jobs.activeIds = active;
    $('#jobs-status').textContent = anyActive
      ? `${active.size} active · ${jobs.streamUp ? 'live' : 'updating every second'}` : '';
    showGlobalError(null);
  } catch (e) {
    $('#jobs-status').textContent = `update failed: ${e.message}`;
  } finally {
    jobs.inFlight = false;
    pollJobsSoon((anyActive && !jobs.streamUp) || fleetRunning ? 1000 : 5000);
  }
}

function renderJobs(list) {
  const box = $('#job-list');
  if (!list.length) {
    box.replaceChildren(h('p', { class: 'muted' }, 'No jobs yet. Start a benchmark on the left.'));
    for (const c of jobs.cards.values()) c.chart?.destroy();
    jobs.cards.clear();
    return;
  }
  const seen = new Set();
  const ordered = [];
  // running and queued jobs first (oldest first, the order they run in), then
  // the ended ones, newest first
  const rank = (j) => (j.state === 'running' ? 0 : j.state === 'queued' ? 1 : 2);
  list = [...list].sort((a, b) => rank(a) - rank(b) || (rank(a) < 2 ? a.id - b.id : b.id - a.id));
  for (const job of list) {
    seen.add(job.id);
    let card = jobs.cards.get(job.id);
    if (!card) { card = makeJobCard(job); jobs.cards.set(job.id, card); }
    updateJobCard(card, job);
    ordered.push(card.el);
  }
  for (const [id, c] of jobs.cards) {
    if (!seen.has(id)) { c.chart?.destroy(); jobs.cards.delete(id); }
  }
  // Re-order without recreating nodes (keeps buttons clickable mid-poll).
  if (box.children.length !== ordered.length || ordered.some((el, i) => box.children[i] !== el)) {
    box.replaceChildren(...ordered);
  }
}

function makeJobCard(job) {
  const parts = {};
  parts.title = h('span', { class: 'job-title' });
  parts.state = h('span');
  parts.run = h('span', { class: 'job-run' });
  parts.cancel = h('button', { type: 'button', class: 'small danger', onclick: () => cancelJob(job.id, parts.cancel) }, 'Cancel');
  parts.meta = h('div', { class: 'job-meta muted' });
  parts.barFill = h('div', { class: 'bar-fill' });
  parts.bar = h('div', { class: 'bar', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100 }, parts.barFill);
  parts.progress = h('div', { class: 'job-progress' });
  parts.live = h('div', { class: 'job-live' });
  parts.error = h('div', { class: 'job-error' });
  parts.chartBox = h('div', { class: 'live-chart' });
  parts.hosts = h('div', { class: 'fleet-hosts' });
  const el = h('div', { class: 'job', dataset: { jobId: job.id } },
    h('div', { class: 'job-head' }, parts.title, parts.state, h('span', { class: 'spacer' }), parts.run, parts.cancel),
    parts.meta, parts.bar, h('div', { class: 'job-progress-row' }, parts.progress, parts.live), parts.hosts, parts.error, parts.chartBox);
  return { el, parts, chart: null, samples: [] };
}

/** "62 % · measuring · SEQ1M Q8T1 read · iteration 1/3 · test 1 of 8" */
function progressText(p, frac) {
  const bits = [`${Math.round(frac * 100)} %`, p.phase];
  if (p.test) bits.push(`${p.test} ${p.rw ?? ''}`.trim());
  if (isNum(p.iteration)) bits.push(`iteration ${p.iteration}/${p.iterations ?? '?'}`);
  if (isNum(p.tests_total)) bits.push(`test ${Math.min((p.tests_done ?? 0) + 1, p.tests_total)} of ${p.tests_total}`);
  return bits.filter(Boolean).join(' · ');
}

function updateJobCard(card, job) {
  const { parts } = card;
  // a job never goes back from its end: an answer that left before the
  // end (a poll crossing the event that said it) is stale, not news
  const was = card.el.dataset.state;
  if (was && !ACTIVE.has(was) && ACTIVE.has(job.state)) return;
  parts.title.textContent = `#${job.id} ${job.profile ?? ''}`;
  parts.state.replaceChildren(stateBadge(job.state));
  card.el.dataset.state = job.state;
  // an interleaved job has a run per target, read as one comparison
  const runs = job.runs ?? [];
  // a multi-host job's run is its aggregate (its hosts' runs beside it)
  parts.run.replaceChildren(job.hosts?.length && job.run_id != null
    ? h('a', { href: `#/runs/${job.run_id}`, class: 'run-link' }, `aggregate run #${job.run_id} →`)
    : runs.length > 1 && !job.hosts?.length
    ? h('a', { href: `#/compare?runs=${runs.join(',')}`, class: 'run-link compare-link' }, `compare runs ${runs.map((r) => `#${r}`).join(', ')} →`)
    : job.run_id != null ? h('a', { href: `#/runs/${job.run_id}`, class: 'run-link' }, `run #${job.run_id} →`) : '');
  parts.cancel.hidden = !ACTIVE.has(job.state);

  const target = [job.target ?? '(scratch)', ...(job.compare_with ?? [])].join(' vs ');
  const labels = job.labels?.length ? ` · labels: ${job.labels.join(', ')}` : '';
  const when = job.finished_at
    ? `finished ${fmtTime(job.finished_at)} (${fmtDuration(secondsBetween(job.started_at, job.finished_at))})`
    : job.started_at ? `started ${fmtTime(job.started_at)}` : `queued ${fmtTime(job.created_at)}`;
  const its = job.compare_with?.length ? 'rounds' : 'it';
  // every test in steady-state rounds: at most max_rounds of round_s
  const ss = allSteady(job.tests);
  const steady = ss?.every((x) => x.max_rounds === ss[0].max_rounds && x.round_s === ss[0].round_s);
  const shape = steady ? `≤ ${ss[0].max_rounds} rounds × ${ss[0].round_s} s (until steady)`
    : `${job.iterations ?? '?'} ${its} × ${job.duration_s ?? '?'} s`;
  const hosts = job.hosts?.length ? `${hostsText(job)} · ` : '';
  parts.meta.textContent = `${hosts}${target} · ${fmtBytes(job.size)} × ${shape}${labels} · ${when}`;

  // a running multi-host job: its coordinator's view, a line per host
  const fp = job.fleet_progress;
  const p = fp ? { ...fp, phase: `window ${fp.gate}`, fraction: fp.hosts?.length ? Math.min(...fp.hosts.map((x) => x.fraction ?? 0)) : 0 } : job.progress;
  parts.hosts.replaceChildren(...(job.state === 'running' ? fleetLines(fp) : []));
  let frac = job.state === 'done' ? 1 : isNum(p?.fraction) ? p.fraction : 0;
  frac = Math.max(0, Math.min(1, frac));
  parts.barFill.style.width = `${(frac * 100).toFixed(1)}%`;
  parts.bar.setAttribute('aria-valuenow', Math.round(frac * 100));
  parts.bar.className = `bar bar-${job.state}`;

  if (job.state === 'running' && p) {
    parts.progress.textContent = progressText(p, frac);
    parts.live.replaceChildren(
      h('span', { class: 'live-num' }, fmtMBs(p.live_mb_s)), ' MB/s  ',
      h('span', { class: 'live-num' }, fmtFixed(p.live_iops, 0)), ' IOPS');
  } else if (job.state === 'queued') {
    parts.progress.textContent = 'waiting in queue';
    parts.live.replaceChildren();
  } else {
    parts.progress.textContent = job.state === 'done' ? '100 %' : '';
    parts.live.replaceChildren();
  }
  parts.error.textContent = job.error ?? '';
  parts.error.hidden = !job.error;
  updateLiveChart(card, job);
}

function updateLiveChart(card, job) {
  const p = job.progress;
  const measuring = job.state === 'running' && p && p.phase === 'measuring' && (isNum(p.live_mb_s) || isNum(p.live_iops));
  if (job.state !== 'running') {
    if (card.chart) { card.chart.destroy(); card.chart = null; }
    card.parts.chartBox.replaceChildren();
    card.samples = [];
    return;
  }
  if (!measuring || !hasChart()) return;
  const t = card.samples.length ? card.samples.at(-1).t + 1 : 0;
  card.samples.push({ t, mbs: p.live_mb_s ?? null, iops: p.live_iops ?? null, test: `${p.test ?? ''} ${p.rw ?? ''}` });
  if (card.samples.length > 180) card.samples.shift();
  if (!card.chart) {
    const canvas = h('canvas', { class: 'live-canvas', 'aria-label': 'live throughput' });
    card.parts.chartBox.replaceChildren(canvas);
    const small = { font: { size: 10 } };
    card.chart = new window.Chart(canvas, {
      type: 'line',
      data: { labels: [], datasets: [
        { label: 'MB/s', data: [], borderColor: COLORS.read, backgroundColor: COLORS.read, yAxisID: 'y', pointRadius: 0, borderWidth: 2, tension: 0.2 },
        { label: 'IOPS', data: [], borderColor: COLORS.write, backgroundColor: COLORS.write, yAxisID: 'y1', pointRadius: 0, borderWidth: 2, tension: 0.2 },
      ] },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        interaction: { mode: 'index', intersect: false },
        plugins: { legend: { position: 'top', align: 'end', labels: { boxWidth: 10, font: { size: 11 } } },
          tooltip: { callbacks: { title: (items) => card.samples[items[0].dataIndex]?.test ?? '' } } },
        scales: {
          x: { display: false },
          y: { beginAtZero: true, title: { display: true, text: 'MB/s', ...small }, ticks: small },
          y1: { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: 'IOPS', ...small }, ticks: small },
        },
      },
    });
  }
  const c = card.chart;
  c.data.labels = card.samples.map((s) => s.t);
  c.data.datasets[0].data = card.samples.map((s) => s.mbs);
  c.data.datasets[1].data = card.samples.map((s) => s.iops);
  c.update('none');
}

async function cancelJob(id, btn) {
  if (!confirm(`Cancel job #${id}?`)) return;
  btn.disabled = true;
  try {
    await api('DELETE', `/jobs/${id}`);
  } catch (e) {
    showGlobalError(`Cancel job #${id}: ${e.message}`);
  } finally {
    btn.disabled = false;
    pollJobsSoon();
  }
}
