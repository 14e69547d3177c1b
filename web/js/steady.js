// The SNIA PTS steady state of a run's tests (test.steady_state, docs/api.md):
// per test that tracks one (a snia-iops run: its tracking variable only), the
// tracking metric round by round, the measurement window shaded, the
// window's mean, its ±10 % and ±20 % bands and the least-squares fit line
// across it, and whether (and at which round) the window was steady.

import { h } from './dom.js';
import { isNum, fmtFixed } from './format.js';
import { makeChart, drawn, ChartSet } from './charts.js';

const charts = new ChartSet();
const UNITS = { iops: 'IOPS', mb_s: 'MB/s (10⁶ B/s)', lat_mean_us: 'mean latency (µs)' };

export const stopSteadyView = () => charts.clear();

/** The tests' steady_state objects when every test has one (the job or run runs rounds, not iterations), else null. */
export function allSteady(tests) {
  const ss = (tests ?? []).map((t) => t.steady_state);
  return ss.length && ss.every(Boolean) ? ss : null;
}

/** Shades the x range [from, to] (category indices) behind the lines. */
const windowShade = (from, to) => ({
  id: 'steadyWindow',
  beforeDatasetsDraw(chart) {
    const { ctx, chartArea, scales } = chart;
    const x0 = scales.x.getPixelForValue(from) - 8, x1 = scales.x.getPixelForValue(to) + 8;
    ctx.save();
    ctx.fillStyle = 'rgba(47, 126, 216, 0.08)';
    ctx.fillRect(x0, chartArea.top, x1 - x0, chartArea.bottom - chartArea.top);
    ctx.restore();
  },
});

function words(ss) {
  const m = ss.measurement ?? {};
  const head = ss.reached ? `steady at round ${ss.reached_round}` : `not steady after ${ss.rounds} rounds`;
  return `${head}: rounds ${m.first}–${m.last}, range ${fmtFixed(m.range_pct, 1)} % of the mean (limit ${ss.range_pct} %), `
    + `fit excursion ${fmtFixed(m.excursion_pct, 1)} % (limit ${ss.slope_pct} %); result ${fmtFixed(ss.result?.[ss.metric], 1)} `
    + `${UNITS[ss.metric] ?? ss.metric} (window average)`;
}

function draw(canvas, t, animate) {
  const ss = t.steady_state, m = ss.measurement, metric = ss.metric;
  const its = t.iterations ?? [];
  const labels = its.map((it) => String(it.iteration));
  const inWin = (i) => i + 1 >= m.first && i + 1 <= m.last;
  const over = (f) => its.map((_, i) => (inWin(i) && isNum(m.mean) ? f(i) : null));
  const xbar = (m.first + m.last) / 2;
  const band = (k, color, label) => [
    { label, data: over(() => m.mean * (1 + k)), borderColor: color, backgroundColor: color, borderWidth: 0, pointRadius: 0, fill: '+1' },
    { label: `${label} (low)`, data: over(() => m.mean * (1 - k)), borderColor: color, borderWidth: 0, pointRadius: 0, fill: false },
  ];
  const chart = makeChart(canvas, {
    type: 'line',
    data: {
      labels,
      datasets: [
        { label: UNITS[metric] ?? metric, data: its.map((it) => it[metric] ?? null), borderColor: '#2f7ed8', backgroundColor: '#2f7ed8', pointRadius: 3, tension: 0 },
        { label: 'window mean', data: over(() => m.mean), borderColor: '#3b4452', borderDash: [6, 4], pointRadius: 0 },
        { label: 'least-squares fit', data: over((i) => m.mean + m.slope * (i + 1 - xbar)), borderColor: '#c0392b', pointRadius: 0 },
        ...band(0.2, 'rgba(224, 136, 43, 0.12)', '±20 %'),
        ...band(0.1, 'rgba(106, 159, 58, 0.18)', '±10 %'),
      ],
    },
    options: {
      responsive: true, maintainAspectRatio: false, animation: drawn(canvas, animate),
      plugins: { legend: { position: 'top', labels: { filter: (item) => !item.text.endsWith('(low)') } } },
      scales: { x: { title: { display: true, text: 'round' } }, y: { beginAtZero: false, title: { display: true, text: UNITS[metric] ?? metric } } },
    },
    plugins: [windowShade(m.first - 1, m.last - 1)],
  }, animate);
  charts.add(chart);
}

/** {card, draw(animate)}: the steady-state card of a run, '' when no test has a steady state. */
export function steadyView(run) {
  charts.clear();
  const tests = (run.tests ?? []).filter((t) => t.steady_state?.measurement && t.steady_state.tracking !== false);
  if (!tests.length) return { card: '' };
  const canvases = tests.map((t) => h('canvas', { class: 'steady-chart', 'aria-label': `${t.test} ${t.rw}: rounds until steady` }));
  const card = h('section', { class: 'card', id: 'steady-card' },
    h('h2', null, 'Steady state ', h('span', { class: 'unit' }, '(SNIA PTS: the tracking metric per round; window shaded)')),
    tests.map((t, i) => h('div', { class: 'steady-test', dataset: { test: t.test, rw: t.rw } },
      h('h3', null, `${t.test} ${t.rw} `, h('strong', { class: t.steady_state.reached ? 'ok-text' : 'error-text' },
        t.steady_state.reached ? `reached at round ${t.steady_state.reached_round}` : 'not reached')),
      h('p', { class: 'muted steady-words' }, words(t.steady_state)),
      h('div', { class: 'chart-box' }, canvases[i]))));
  return { card, draw: (animate) => tests.forEach((t, i) => draw(canvases[i], t, animate)) };
}
