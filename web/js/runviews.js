// The card a run's profile asks for, chosen by the profile's `view` in GET
// /api/v1/profiles (the tiles are drawn for every run by run.js):
//   "sweep"   — the headline against the swept value, a line per group and
//               direction (a run with no swept test has none);
//   "methods" — seconds per method against the swept size;
//   "rows"    — the profile's `summary` rows (run[summary.key]): a table of
//               its columns, a chart of those on an axis with their limits
//               (spec.options at each column's `limit` path) dashed, and
//               PASS/FAIL from the `verdict` field and the `reasons` one.
// A run whose profile is not listed (an import) gets "sweep" when it has
// swept tests. A new preset with one of these views needs nothing here.

import { h } from './dom.js';
import { isNum, fmtMBs, fmtFixed, fmtBytes } from './format.js';
import { lineChart, LINE_COLORS, ChartSet } from './charts.js';
import { findDescriptor } from './state.js';

const charts = new ChartSet();

export const stopProfileView = () => charts.clear();

/** {card, draw(animate)} for the run's profile view; card is '' when there is nothing to draw. */
export function profileView(run, prof, cat) {
  charts.clear();
  const view = prof?.view ?? ((run.tests ?? []).some((t) => t.sweep) ? 'sweep' : 'tiles');
  if (view === 'rows') return rowsView(run, prof?.summary);
  if (view === 'sweep' || view === 'methods') return sweepView(run, prof, cat, view === 'methods');
  return { card: '' };
}

const valueAt = (obj, path) => String(path).split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

function rowsView(run, s) {
  const rows = s && Array.isArray(run[s.key]) ? run[s.key] : [];
  if (!rows.length) return { card: '' };
  const options = run.spec?.options ?? {};
  const cols = s.columns ?? [];
  const limitOf = (c) => (c.limit ? valueAt(options, c.limit) : undefined);
  const show = (c, v) => (isNum(v) ? fmtFixed(v, c.digits ?? 2) : '–');
  const verdictOf = (r) => (s.verdict ? r[s.verdict] : undefined);
  const cell = (r, c) => {
    const v = r[c.key], lim = limitOf(c);
    const over = isNum(v) && isNum(lim) && v > lim;
    return h('td', { class: `num${over ? ' over' : ''}`, title: over ? `over the limit of ${lim}` : undefined }, show(c, v));
  };
  const table = h('table', { class: 'iters', id: 'summary-table' },
    h('thead', null, h('tr', null, cols.map((c) => h('th', { class: 'num' }, c.title)), s.verdict ? h('th', null, 'Result') : '')),
    h('tbody', null, rows.map((r) => h('tr', { class: s.verdict ? (verdictOf(r) === 'PASS' ? 'pass' : 'fail') : null },
      cols.map((c) => cell(r, c)),
      s.verdict ? h('td', null, h('strong', { class: verdictOf(r) === 'PASS' ? 'ok-text' : 'error-text' }, verdictOf(r) ?? '–'),
        s.reasons && r[s.reasons]?.length ? ` — ${r[s.reasons].join('; ')}` : '') : ''))));
  // the limits the run set (a threshold of null is not checked)
  const limits = cols.filter((c) => c.limit && isNum(limitOf(c)));
  const canvas = h('canvas', { id: 'preset-chart', 'aria-label': `${s.title}: against ${s.x}` });
  const card = h('section', { class: 'card', id: 'preset-card' },
    h('h2', null, `${s.title} `, h('span', { class: 'unit' }, limits.length
      ? `(limits: ${limits.map((c) => `${c.title} ≤ ${limitOf(c)}`).join(', ')})`
      : '(no limits set)')),
    h('div', { class: 'chart-box' }, canvas), h('div', { class: 'table-wrap' }, table));
  const xCol = cols.find((c) => c.key === s.x);
  const labels = rows.map((r) => (xCol ? show(xCol, r[s.x]) : String(r[s.x] ?? '')));
  const plotted = cols.filter((c) => c.axis === 1 || c.axis === 2);
  const color = (i) => LINE_COLORS[i % LINE_COLORS.length];
  const datasets = plotted.map((c, i) => ({ label: c.title, data: rows.map((r) => r[c.key] ?? null), axis: c.axis === 2 ? 'y2' : 'y', color: color(i) }));
  plotted.forEach((c, i) => {
    const v = limitOf(c);
    if (isNum(v)) datasets.push({ label: `${c.title} limit`, data: rows.map(() => v), axis: c.axis === 2 ? 'y2' : 'y', dashed: true, color: color(i) });
  });
  const y2 = plotted.some((c) => c.axis === 2) ? s.y2 : undefined;
  return { card, draw: (animate) => charts.add(lineChart(canvas, labels, datasets, { x: s.x, y: s.y, y2, animate })) };
}

function sweepView(run, prof, cat, methods) {
  const swept = (run.tests ?? []).filter((t) => t.sweep);
  if (!swept.length) return { card: '' };
  // group points by (sweep group, direction); x is the swept value
  const field = swept[0].sweep.field;
  const desc = findDescriptor(cat, prof, field);
  const bytes = desc?.type === 'bytes' || desc?.item?.type === 'bytes';
  const groups = new Map();
  for (const t of swept) {
    const key = `${t.sweep.group} ${t.rw}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(t);
  }
  const xs = [...new Set(swept.map((t) => t.sweep.value))].sort((a, b) => a - b);
  const xLabel = (v) => (bytes ? fmtBytes(v) : String(v));
  const canvas = h('canvas', { id: 'preset-chart', 'aria-label': `results against ${field}` });
  const metric = methods ? 'seconds' : bytes ? 'mb_s' : 'iops';
  const yText = methods ? 'seconds' : metric === 'mb_s' ? 'MB/s (10⁶ B/s)' : 'IOPS';
  const datasets = [...groups.entries()].map(([key, pts]) => ({
    label: methods ? pts[0].rw : key,
    data: xs.map((x) => { const p = pts.find((t) => t.sweep.value === x); const b = p?.best; return b && !b.error ? b[metric] : null; }),
  }));
  const rows = swept.map((t) => {
    const b = t.best ?? {};
    const err = (t.iterations ?? []).find((it) => it.error)?.error;
    return h('tr', null, h('td', null, t.test), h('td', null, t.rw), h('td', { class: 'num' }, xLabel(t.sweep.value)),
      h('td', { class: 'num' }, err ? '–' : methods ? fmtFixed(b.mb_s / 1000, 2) : fmtMBs(b.mb_s)),
      methods ? '' : h('td', { class: 'num' }, err ? '–' : fmtFixed(b.iops, 1)),
      h('td', { class: 'num' }, err ? '–' : fmtFixed(b.seconds, 3)),
      h('td', { class: 'num' }, isNum(t.sweep.efficiency) ? fmtFixed(t.sweep.efficiency, 2) : '–'),
      h('td', null, err ?? (isNum(b.allocated_bytes) ? `${fmtBytes(b.allocated_bytes)} allocated` : '')));
  });
  const heads = methods ? ['Test', 'Method', field, 'GB/s', 'Seconds', 'Efficiency', 'Note']
    : ['Test', 'R/W', field, 'MB/s', 'IOPS', 'Seconds', 'Efficiency', 'Note'];
  const card = h('section', { class: 'card', id: 'preset-card' },
    h('h2', null, methods ? `${prof?.title ?? 'Seconds per method'} ` : `Against ${field} `, h('span', { class: 'unit' }, `(${yText}, best iteration)`)),
    h('div', { class: 'chart-box' }, canvas),
    h('div', { class: 'table-wrap' }, h('table', { class: 'iters', id: 'sweep-table' },
      h('thead', null, h('tr', null, heads.map((k) => h('th', null, k)))),
      h('tbody', null, rows))));
  return { card, draw: (animate) => charts.add(lineChart(canvas, xs.map(xLabel), datasets, { x: field, y: yText, animate })) };
}
