// One run (#/runs/ID): CrystalDiskMark-style tiles and a bar chart for
// every run, the card its profile's view asks for (runviews.js), the
// per-second samples, and the details. A run still being measured is
// reloaded every 2 s with its job's live progress.

import { $, h, labelChips, stateBadge } from './dom.js';
import { API, api } from './api.js';
import { isNum, fmtMBs, fmtFixed, fmtTime, fmtDuration, secondsBetween } from './format.js';
import { COLORS, drawn, makeChart } from './charts.js';
import { loadCatalogue, findProfile } from './state.js';
import { ACTIVE } from './jobs.js';
import { profileView, stopProfileView } from './runviews.js';
import { countersView, stopCountersView } from './counters.js';
import { steadyView, stopSteadyView } from './steady.js';
import { historyHref } from './history.js';
import { probeCard, specCard, notesCard, iterationsCard, latencyCard, planCard, warningText } from './rundetails.js';
import { wireCard } from './runwire.js';
import { hostsCard } from './fleet.js';

const view = { id: null, timer: 0, runChart: null, samplesChart: null };

export function stopRunView() {
  clearTimeout(view.timer);
  view.timer = 0;
  view.id = null;
  view.runChart?.destroy();
  view.samplesChart?.destroy();
  view.runChart = view.samplesChart = null;
  stopProfileView();
  stopCountersView();
  stopSteadyView();
}

export async function showRun(id, { refresh = false } = {}) {
  const root = $('#run-root');
  if (!refresh) {
    stopRunView();
    view.id = id;
    root.replaceChildren(h('p', { class: 'muted' }, `Loading run #${id}…`));
  }
  let run, cat;
  try {
    [run, cat] = await Promise.all([
      api('GET', `/runs/${id}`).then((r) => r.json),
      loadCatalogue().catch(() => ({ profiles: [], job_fields: [] })),
    ]);
  } catch (e) {
    if (view.id !== id) return;
    if (!refresh) {
      root.replaceChildren(h('div', { class: 'card' },
        h('h2', null, `Run #${id}`),
        h('p', { class: 'error-text' }, e.status === 404 ? `There is no run #${id}.` : `Could not load run #${id}: ${e.message}`),
        h('p', null, h('a', { href: '#/' }, '← back to the archive'))));
    } else {
      view.timer = setTimeout(() => showRun(id, { refresh: true }), 3000);
    }
    return;
  }
  if (view.id !== id) return; // navigated away meanwhile
  let job = null;
  if (run.state !== 'done' && run.job_id != null) { // live progress, or why the run ended early
    job = await api('GET', `/jobs/${run.job_id}`).then((r) => r.json).catch(() => null);
    if (view.id !== id) return;
  }
  renderRun(run, cat, { job, refresh });
  if (ACTIVE.has(run.state)) view.timer = setTimeout(() => showRun(id, { refresh: true }), 2000);
}

/** Rows (test names) and columns (rw) for the tile grid: the profile's tests, then the run's. */
function tileLayout(run, prof) {
  const tests = run.tests ?? [];
  const planned = prof?.tests ?? [];
  const names = [];
  for (const t of [...planned, ...tests]) if (!names.includes(t.test)) names.push(t.test);
  const rws = new Set([...planned, ...tests].map((t) => t.rw));
  const cols = ['read', 'write'].filter((x) => rws.has(x));
  for (const rw of rws) if (!cols.includes(rw)) cols.push(rw);
  if (!cols.length) cols.push('read', 'write');
  return { names, cols, planned };
}

function splitTestName(name) {
  const m = /^(\S+)\s+(.+)$/.exec(name ?? '');
  return m ? [m[1], m[2]] : [name ?? '', ''];
}

const title = (rw) => `${rw[0].toUpperCase()}${rw.slice(1)}`;

// What a tile shows: the best of N iterations, or (steady-state tests) the
// window average, with its rounds when every test's window is the same.
function tilesCaption(run) {
  const wins = (run.tests ?? []).map((t) => t.steady_state?.measurement).filter(Boolean);
  if (!wins.length) return [h('span', null, 'best of'), h('span', null, `${run.spec?.iterations ?? run.spec?.imported?.best_of ?? '?'} it.`)];
  const same = wins.every((m) => m.first === wins[0].first && m.last === wins[0].last);
  return [h('span', null, 'window average'), h('span', null, same ? `rounds ${wins[0].first}–${wins[0].last}` : 'rounds per test')];
}

function tilesGrid(run, { names, cols, planned }, find, job) {
  const tests = run.tests ?? [];
  const maxMbs = Math.max(1e-9, ...tests.map((t) => t.best?.mb_s ?? 0));
  const grid = h('div', { class: 'tiles', style: `grid-template-columns: 8.5rem repeat(${cols.length}, minmax(0, 1fr))` },
    h('div', { class: 'tiles-corner' }, ...tilesCaption(run)),
    cols.map((rw) => h('div', { class: `tiles-colhead rw-${rw}` }, `${title(rw)} `, h('span', { class: 'unit' }, '[MB/s]'))));
  for (const name of names) {
    const [a, b] = splitTestName(name);
    grid.append(h('div', { class: 'tile-rowhead' }, h('strong', null, a), h('span', null, b)));
    for (const rw of cols) {
      const best = find(name, rw)?.best;
      const pct = best && isNum(best.mb_s) ? Math.min(100, (best.mb_s / maxMbs) * 100) : 0;
      const isPlanned = planned.some((x) => x.test === name && x.rw === rw);
      const active = job?.progress && job.progress.test === name && job.progress.rw === rw;
      grid.append(h('div', {
        class: `tile rw-${rw}${best ? '' : ' tile-empty'}${active ? ' tile-active' : ''}`,
        dataset: { test: name, rw },
        title: best ? `${name} ${rw}: ${best.window ? `rounds ${best.window.first}–${best.window.last}, window average` : `best iteration ${best.iteration}`}` : isPlanned ? 'not measured' : 'not part of this profile',
      },
      h('div', { class: 'tile-mbs' }, best ? fmtMBs(best.mb_s) : '–'),
      h('div', { class: 'tile-small' },
        h('span', null, best ? `${fmtFixed(best.iops, 1)} IOPS` : ''),
        h('span', null, best ? `${fmtFixed(best.lat_mean_us, 1)} µs` : '')),
      h('div', { class: 'tile-gauge' }, h('div', { style: `width:${pct.toFixed(1)}%` })),
      best && run.state === 'done' ? h('a', { class: 'tile-history', href: historyHref(run, name, rw), title: `${name} ${rw} over this target's runs` }, 'history') : ''));
    }
  }
  return h('section', { class: 'card tiles-card' },
    h('h2', null, 'Results ', h('span', { class: 'unit' }, '(best iteration, or a steady test\'s window average · MB/s = 10⁶ B/s · IOPS · mean latency µs)')), grid);
}

function runHead(run) {
  const dur = secondsBetween(run.started_at, run.finished_at);
  return h('div', { class: 'run-head' },
    h('div', null,
      h('a', { href: '#/', class: 'back' }, '← Archive'),
      h('h1', null, `Run #${run.id} `, h('span', { class: 'muted' }, run.profile ?? ''), ' ', stateBadge(run.state)),
      h('div', { class: 'run-sub' },
        h('span', { class: 'path' }, run.target ?? '–'), ' · ',
        run.probe?.hostname ?? '–', ' · ', run.probe?.fs_type ?? '–', ' · ',
        `started ${fmtTime(run.started_at)}`,
        run.finished_at ? ` · finished ${fmtTime(run.finished_at)} (${fmtDuration(dur)})` : '',
        run.job_id != null ? ` · job #${run.job_id}` : ''),
      h('div', { class: 'run-labels' }, labelChips(run.labels))),
    h('span', { class: 'spacer' }),
    h('a', { class: 'button', href: `${API}/runs/${run.id}`, target: '_blank', rel: 'noopener' }, 'JSON'),
    h('a', { class: 'button', href: `${API}/runs/${run.id}?format=csv`, id: 'run-csv' }, 'CSV'),
    h('a', { class: 'button', href: `${API}/runs/${run.id}?format=html`, id: 'run-report',
      title: 'Download a self-contained HTML report to publish' }, 'Report'));
}

/** The live progress of the job while the run is being measured. */
function liveCard(job) {
  if (!job || !ACTIVE.has(job.state)) return '';
  const p = job.progress;
  const frac = Math.max(0, Math.min(1, isNum(p?.fraction) ? p.fraction : 0));
  return h('div', { class: 'card run-live' },
    h('div', { class: 'run-live-text' },
      h('strong', null, job.state === 'queued' ? 'Queued' : `${Math.round(frac * 100)} %`), ' ',
      p ? [p.phase, p.test ? `${p.test} ${p.rw ?? ''}` : null, isNum(p.iteration) ? `iteration ${p.iteration}/${p.iterations ?? '?'}` : null]
        .filter(Boolean).join(' · ') : '',
      h('span', { class: 'spacer' }),
      p && isNum(p.live_mb_s) ? [h('span', { class: 'live-num' }, fmtMBs(p.live_mb_s)), ' MB/s  ', h('span', { class: 'live-num' }, fmtFixed(p.live_iops, 0)), ' IOPS'] : ''),
    h('div', { class: `bar bar-${job.state}` }, h('div', { class: 'bar-fill', style: `width:${(frac * 100).toFixed(1)}%; transition:none` })));
}

function renderRun(run, cat, { job = null, refresh = false } = {}) {
  const tests = run.tests ?? [];
  const find = (test, rw) => tests.find((t) => t.test === test && t.rw === rw);
  const prof = findProfile(cat.profiles, run.profile);
  const layout = tileLayout(run, prof);
  const canvas = h('canvas', { id: 'run-chart', 'aria-label': 'MB/s per test, read and write' });
  const chartCard = h('section', { class: 'card chart-card' },
    h('h2', null, 'Throughput per test ', h('span', { class: 'unit' }, '(MB/s, best iteration)')),
    h('div', { class: 'chart-box' }, canvas));
  const samplesCanvas = h('canvas', { id: 'samples-chart', 'aria-label': 'MB/s per second of every test' });
  const samplesCard = h('section', { class: 'card' },
    h('h2', null, 'Per second ', h('span', { class: 'unit' }, '(MB/s in each second of every iteration, in the order measured; the short last second of an iteration is not drawn)')),
    h('div', { class: 'chart-box' }, samplesCanvas));
  const extra = profileView(run, prof, cat);
  const counters = countersView(run);
  const steady = steadyView(run);
  const warnings = run.warnings ?? [];
  let ended = '';
  if (['failed', 'interrupted', 'cancelled'].includes(run.state)) {
    ended = h('div', { class: `banner ${run.state === 'cancelled' ? 'banner-warn' : 'banner-error'}` },
      `This run ended ${run.state}${job?.error ? `: ${job.error}` : ''}. Tests that finished before are shown; the others are empty.`);
  }
  $('#run-root').replaceChildren(runHead(run), liveCard(job), ended,
    warningsBanner(warnings), hostsCard(run),
    extra.card, steady.card,
    // more than two columns (mixes, a database and its log, file-create's
    // methods): the tiles take the whole width, the chart goes below
    h('div', { class: layout.cols.length > 2 ? 'run-top wide' : 'run-top' }, tilesGrid(run, layout, find, job), chartCard),
    wireCard(run),
    h('div', { class: 'run-details' }, probeCard(run), specCard(run), notesCard(run)),
    samplesCard, counters.card, latencyCard(run), planCard(run), iterationsCard(run));
  drawRunChart(canvas, layout, find, !refresh);
  extra.draw?.(!refresh);
  steady.draw?.(!refresh);
  // one fetch of the seconds for both charts
  const samples = api('GET', `/runs/${run.id}/samples`).then((r) => r.json.samples ?? []);
  drawSamplesChart(samplesCanvas, run.id, samples, !refresh);
  counters.draw(samples, !refresh);
}

// A warning's kind: its words without the test it names (before the first
// ": ") and without its numbers, so that one finding made by many tests is
// one line.
const warningKind = (text) => text.replace(/^[^:]*: /, '').replace(/\d+(\.\d+)?/g, '#');
const BANNER_LINES = 3;

// The run's warnings: the first few kinds (each with how many more tests
// said the same), every other warning behind "N more". The Warnings card
// below lists them all.
function warningsBanner(warnings) {
  if (!warnings.length) return '';
  const texts = warnings.map(warningText);
  const kinds = new Map(); // kind → the indexes of its warnings, in order
  texts.forEach((t, i) => {
    const k = warningKind(t);
    if (kinds.has(k)) kinds.get(k).push(i);
    else kinds.set(k, [i]);
  });
  const shown = [...kinds.values()].slice(0, BANNER_LINES);
  const inline = new Set(shown.map((g) => g[0]));
  const rest = texts.filter((t, i) => !inline.has(i));
  const line = (g) => h('li', null, texts[g[0]],
    g.length > 1 ? h('span', { class: 'like-it' }, ` (and ${g.length - 1} more like it)`) : '');
  return h('div', { class: 'banner banner-warn warnings-banner' },
    `${texts.length} warning${texts.length > 1 ? 's' : ''}:`,
    h('ul', null, shown.map(line)),
    // kept open across the 2 s refresh of a running run
    rest.length ? h('details', { open: !!$('#run-root .warnings-banner details')?.open },
      h('summary', null, `${rest.length} more`), h('ul', null, rest.map((t) => h('li', null, t)))) : '');
}

function drawRunChart(canvas, { names, cols }, find, animate = true) {
  view.runChart?.destroy();
  view.runChart = makeChart(canvas, {
    type: 'bar',
    data: { labels: names, datasets: cols.map((rw) => ({
      label: `${title(rw)} (MB/s)`,
      data: names.map((n) => find(n, rw)?.best?.mb_s ?? null),
      backgroundColor: COLORS[rw] ?? COLORS.other, borderRadius: 3, maxBarThickness: 46,
    })) },
    options: {
      responsive: true, maintainAspectRatio: false, animation: drawn(canvas, animate),
      plugins: {
        legend: { position: 'top' },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label.replace(' (MB/s)', '')}: ${fmtMBs(c.raw)} MB/s` } },
      },
      scales: { y: { beginAtZero: true, title: { display: true, text: 'MB/s (10⁶ B/s)' } }, x: { grid: { display: false } } },
    },
  }, animate);
}

/** One line per test and direction over the run's time axis; samples: a promise of the run's seconds. */
async function drawSamplesChart(canvas, runId, samples, animate = true) {
  let data;
  try {
    data = await samples;
  } catch (e) {
    canvas.replaceWith(h('p', { class: 'error-text' }, `Could not load samples: ${e.message}`));
    return;
  }
  if (view.id !== runId || !canvas.isConnected) return;
  const series = new Map();
  let t = 0;
  for (const s of data) {
    const key = `${s.test} ${s.rw}`;
    if (!series.has(key)) series.set(key, { rw: s.rw, points: [] });
    const v = s[s.rw] ?? s.read;
    if (s.length_s >= 0.5) series.get(key).points.push({ x: t + s.length_s / 2, y: v?.mb_s ?? null });
    t += s.length_s;
  }
  const palette = { read: ['#2f7ed8', '#1b4f8a', '#6aa7ea', '#0d3463'], write: ['#e0882b', '#9c5413', '#f0b070', '#6b3a0c'] };
  const used = { read: 0, write: 0 };
  const datasets = [...series.entries()].map(([label, s]) => {
    const colors = palette[s.rw] ?? palette.read;
    const color = colors[(used[s.rw] ?? 0) % colors.length];
    used[s.rw] = (used[s.rw] ?? 0) + 1;
    return { label, data: s.points, borderColor: color, backgroundColor: color, pointRadius: 2, borderWidth: 2, tension: 0 };
  });
  view.samplesChart?.destroy();
  view.samplesChart = makeChart(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      responsive: true, maintainAspectRatio: false, parsing: true, animation: drawn(canvas, animate),
      plugins: { legend: { position: 'top' } },
      scales: {
        x: { type: 'linear', title: { display: true, text: 's (measured time, tests back to back)' } },
        y: { beginAtZero: true, title: { display: true, text: 'MB/s (10⁶ B/s)' } },
      },
    },
  }, animate);
}
