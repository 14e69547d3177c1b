// A target's history (#/history?target=…&profile=…&test=…&rw=…[&metric=…]
// [&host=…]): GET /api/v1/history as it is — one test's metric per run,
// oldest first, each point with its 95 % interval (a whisker), the level
// between change points (a dashed step), each change point a vertical line
// and a line in the list below with its shift, interval, p, the runs either
// side and a link to their compare (and what changed between them, when
// the answer says). A click on a point opens its run.

import { $, h } from './dom.js';
import { api } from './api.js';
import { isNum, fmtByUnit, fmtP, fmtTime, unitWord } from './format.js';
import { ChartSet, drawn, makeChart, COLORS } from './charts.js';

const charts = new ChartSet();
const METRICS = [['mb_s', 'MB/s'], ['iops', 'IOPS'], ['lat_mean_us', 'mean latency (µs)'], ['lat_p99_us', 'p99 latency (µs)']];

export const stopHistoryView = () => charts.clear();

/** The history page of test/rw of run's target and profile. */
export const historyHref = (run, test, rw) => `#/history?${new URLSearchParams({
  target: run.target, profile: run.profile, test, rw,
  ...(run.probe?.hostname ? { host: run.probe.hostname } : {}),
})}`;

const signed = (unit, v) => `${v > 0 ? '+' : v < 0 ? '−' : ''}${fmtByUnit(unit, Math.abs(v))}`;
const pct = (v) => `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(1)} %`;

// Chart.js draws neither whiskers nor vertical markers: a plugin of this
// chart's own draws each point's interval and each change point's line.
const overlay = (hist) => ({
  id: 'historyOverlay',
  afterDatasetsDraw(chart) {
    const { ctx, scales: { x, y }, chartArea: area } = chart;
    ctx.save();
    // an interval of few iterations can reach below zero: drawn to the axis
    ctx.beginPath();
    ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
    ctx.clip();
    ctx.strokeStyle = 'rgba(47,126,216,0.45)';
    ctx.lineWidth = 1;
    hist.points.forEach((p, i) => {
      if (!p.ci) return;
      const px = x.getPixelForValue(i);
      ctx.beginPath();
      ctx.moveTo(px, y.getPixelForValue(p.ci[0]));
      ctx.lineTo(px, y.getPixelForValue(p.ci[1]));
      ctx.stroke();
    });
    ctx.strokeStyle = '#c0392b';
    ctx.setLineDash([4, 3]);
    for (const c of hist.change_points) {
      const px = (x.getPixelForValue(c.index - 1) + x.getPixelForValue(c.index)) / 2;
      ctx.beginPath();
      ctx.moveTo(px, area.top);
      ctx.lineTo(px, area.bottom);
      ctx.stroke();
    }
    ctx.restore();
  },
});

// The level: each segment's mean, from one change point to the next (the
// whole series' mean without one).
function levels(hist) {
  const out = hist.points.map(() => null);
  const cps = hist.change_points;
  const all = { runs: hist.points.length, mean: hist.points.reduce((a, p) => a + p.value, 0) / hist.points.length };
  const segs = cps.length ? [cps[0].before, ...cps.map((c) => c.after)] : [all];
  let from = 0;
  segs.forEach((s) => {
    for (let i = from; i < from + s.runs; i++) out[i] = s.mean;
    from += s.runs;
  });
  return out;
}

function changeLine(hist, c) {
  const unit = hist.unit;
  const better = (c.shift > 0) === hist.higher_is_better;
  return h('li', { class: 'change-point', dataset: { run: c.run_id } },
    h('b', { class: better ? 'better' : 'worse' }, isNum(c.shift_pct) ? pct(c.shift_pct) : signed(unit, c.shift)),
    ` (${signed(unit, c.shift)} ${unitWord(unit)}, 95 % interval ${isNum(c.ci_pct?.[0]) ? `${pct(c.ci_pct[0])} … ${pct(c.ci_pct[1])}` : `${signed(unit, c.ci[0])} … ${signed(unit, c.ci[1])}`}, p ${fmtP(c.p)}) at `,
    h('a', { href: `#/runs/${c.run_id}` }, `run #${c.run_id}`), ` (${fmtTime(c.started_at)}): `,
    `${fmtByUnit(unit, c.before.mean)} ${unitWord(unit)} over ${c.before.runs} runs before, ${fmtByUnit(unit, c.after.mean)} over ${c.after.runs} after · `,
    h('a', { class: 'cp-compare', href: `#/compare?runs=${c.before_run_id},${c.run_id}` }, `compare #${c.before_run_id} → #${c.run_id}`),
    c.changed?.length ? h('ul', { class: 'changed' }, c.changed.map((x) =>
      h('li', null, `${x.label}: `, x.values.map((v) => v ?? '–').join(' → ')))) : '');
}

export async function showHistory(query) {
  stopHistoryView();
  const root = $('#history-root');
  const q = new URLSearchParams(query);
  root.replaceChildren(h('section', { class: 'card' }, h('p', { class: 'muted' }, 'reading the history…')));
  const select = (metric) => h('select', { id: 'history-metric', onchange: (ev) => {
    q.set('metric', ev.target.value);
    location.hash = `#/history?${q}`;
  } }, METRICS.map(([k, w]) => h('option', { value: k, selected: k === metric }, w)));
  let hist;
  try {
    hist = (await api('GET', `/history?${q}`)).json;
  } catch (e) {
    // the menu stays: a metric this series lacks is one choice away from one it has
    root.replaceChildren(h('section', { class: 'card' },
      h('div', { class: 'card-head' }, h('h2', null, `History: ${q.get('test') ?? ''} ${q.get('rw') ?? ''}`),
        h('label', null, 'Metric ', select(q.get('metric')))),
      h('p', { class: 'error-text', id: 'history-error' }, e.message)));
    return;
  }
  const canvas = h('canvas', { id: 'history-chart' });
  const cps = hist.change_points;
  root.replaceChildren(
    h('section', { class: 'card' },
      h('div', { class: 'card-head' },
        h('h2', null, `History: ${hist.test} ${hist.rw}`),
        h('label', null, 'Metric ', select(hist.metric))),
      h('p', { class: 'muted' }, h('span', { class: 'path' }, hist.target), ` · ${hist.profile}`,
        hist.host ? ` · ${hist.host}` : '', ` · ${hist.points.length} run${hist.points.length === 1 ? '' : 's'}, ${fmtTime(hist.points[0].started_at)} to ${fmtTime(hist.points.at(-1).started_at)}`),
      h('div', { class: 'chart-box' }, canvas),
      h('p', { class: 'muted small' }, 'Each run\'s mean over its iterations with its 95 % interval; the dashed line is the level between change points. ',
        `A change point is a shift of the level beyond the run-to-run noise: ${hist.method.name}, p < ${hist.method.alpha}, at least ${hist.method.min_runs_each_side} runs each side. Click a point to open its run.`)),
    h('section', { class: 'card' },
      h('h2', null, `Change points (${cps.length})`),
      cps.length ? h('ul', { id: 'change-points' }, cps.map((c) => changeLine(hist, c)))
        : h('p', { id: 'change-points', class: 'muted' }, hist.points.length < 2 * hist.method.min_runs_each_side
          ? `Too few runs to tell: a change point needs at least ${hist.method.min_runs_each_side} runs on each side (${2 * hist.method.min_runs_each_side} in all).`
          : 'None: no shift of the level stands out of the run-to-run noise.')));
  const color = hist.rw === 'write' ? COLORS.write : COLORS.read;
  charts.add(makeChart(canvas, {
    type: 'line',
    data: {
      labels: hist.points.map((p) => `#${p.run_id} ${p.started_at.slice(0, 10)}`),
      datasets: [
        { label: `${hist.test} ${hist.rw} (${unitWord(hist.unit)})`, data: hist.points.map((p) => p.value),
          borderColor: color, backgroundColor: color, showLine: false, pointRadius: hist.points.length > 300 ? 1.5 : 3 },
        { label: 'level', data: levels(hist), borderColor: '#7f8c8d', borderDash: [6, 4], pointRadius: 0, stepped: 'middle', spanGaps: false },
      ],
    },
    options: {
      responsive: true, maintainAspectRatio: false, animation: drawn(canvas, true),
      onClick: (ev, els) => { const e = els.find((x) => x.datasetIndex === 0); if (e) location.hash = `#/runs/${hist.points[e.index].run_id}`; },
      plugins: { legend: { position: 'top' } },
      scales: { x: { ticks: { maxTicksLimit: 12 } }, y: { beginAtZero: true, title: { display: true, text: unitWord(hist.unit) } } },
    },
    plugins: [overlay(hist)],
  }));
}
