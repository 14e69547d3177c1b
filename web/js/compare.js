// A comparison (#/compare?runs=… or ?group_by=…): GET /api/v1/compare as it
// is — the sides, verdicts with what changed between the sides beside them
// (each cannot-tell reason once, with its tests), a bar chart per headline metric, each side's
// difference against the baseline inside its noise band, a line per side
// for sweeps, the rows' verdicts of kinds that have them, the delta table
// (delta, 95 % interval, noise band, the test used), and one I/O test side
// by side. Numbers are formatted by each
// metric's `unit`; metric names come from the profiles' summary columns
// where one names them.

import { counterOverlay, cpuAxis } from './counters.js';
import { $, h } from './dom.js';
import { api } from './api.js';
import { isNum, fmtPct, fmtP, fmtByUnit, unitWord, humanize } from './format.js';
import { ChartSet, drawn, makeChart, sideColor } from './charts.js';
import { loadCatalogue, columnTitle, summaryOfKind, findDescriptor } from './state.js';

const charts = new ChartSet();

// the I/O metrics every test has (the run JSON's names, docs/api.md)
const IO_WORDS = { mb_s: 'MB/s', iops: 'IOPS', lat_mean_us: 'mean latency', lat_p99_us: 'p99 latency', seconds: 'seconds' };

export const stopCompareView = () => charts.clear();

export async function showCompare(query) {
  stopCompareView();
  const root = $('#compare-root');
  root.replaceChildren(h('section', { class: 'card' }, h('p', { class: 'muted' }, 'comparing…')));
  let c, cat;
  try {
    [c, cat] = await Promise.all([api('GET', `/compare?${query}`).then((r) => r.json),
      loadCatalogue().catch(() => ({ profiles: [], job_fields: [] }))]);
  } catch (e) {
    root.replaceChildren(h('section', { class: 'card' }, h('h2', null, 'Comparison'),
      h('p', { class: 'error-text', id: 'compare-error' }, e.message)));
    return;
  }
  renderCompare(root, c, query, cat);
}

function renderCompare(root, c, query, cat) {
  const n = c.sides.length;
  // a metric's words and unit, from the answer's own unit
  const unitOf = new Map(c.tests.flatMap((t) => t.metrics.map((m) => [m.metric, m.unit])));
  const words = (metric) => {
    const w = columnTitle(cat, metric);
    if (w) return w;
    const unit = unitWord(unitOf.get(metric));
    const name = IO_WORDS[metric] ?? humanize(metric, unitOf.get(metric));
    return name === unit || !unit ? name : `${name} (${unit})`;
  };
  const sideHead = (s, i) => h('li', null, h('span', { class: 'swatch', style: `background:${sideColor(i)}` }),
    h('b', null, s.label), i === 0 ? h('span', { class: 'muted' }, ' (baseline)') : '', ' — ',
    s.runs.map((r, k) => [k ? ', ' : '', h('a', { href: `#/runs/${r.id}` }, `#${r.id}`),
      r.fs_type ? h('span', { class: 'muted' }, ` ${r.fs_type}`) : '',
      // one run a side (runs=…, an interleaved job): which target it is
      s.runs.length === 1 && r.target ? h('span', { class: 'muted side-target' }, ` on ${r.target}`) : '']));
  const unlike = c.tests.filter((t) => t.not_like_for_like?.some(Boolean));
  const head = h('section', { class: 'card' },
    h('div', { class: 'card-head' }, h('h2', null, 'Comparison'),
      h('a', { class: 'button', id: 'compare-permalink', href: `#/compare?${query}` }, 'Permalink'),
      h('a', { class: 'button', href: `/api/v1/compare?${query}`, target: '_blank', rel: 'noopener' }, 'JSON'),
      h('a', { class: 'button', id: 'compare-csv', href: `/api/v1/compare?${query}&format=csv` }, 'CSV'),
      // one self-contained HTML file to publish (no script, prints on A4)
      h('a', { class: 'button', id: 'compare-report', href: `/api/v1/compare?${query}&format=html`,
        title: 'Download a self-contained HTML report to publish' }, 'Report')),
    h('ul', { class: 'sides' }, c.sides.map(sideHead)),
    h('div', { class: 'compare-story' },
      h('div', { id: 'compare-verdicts' }, c.verdicts.map((v) => h('p', { class: 'verdict' }, v.text))),
      changedList(c)),
    (c.cannot_tell ?? []).map((x) => h('p', { class: 'muted compare-cannot-tell' },
      `Cannot tell on ${x.tests.join(', ')} (${x.sides.map((i) => c.sides[i].label).join(', ')} against ${c.sides[0].label}): ${x.how}.`)),
    (c.warnings ?? []).map((w) => h('p', { class: 'warning-text' }, w)),
    unlike.length ? h('p', { class: 'warning-text', id: 'compare-unlike' },
      'Not like for like (same name, different workload; marked ≠ and not judged): ',
      unlike.map((t) => `${t.test} ${t.rw}: ${t.not_like_for_like.filter(Boolean).join('; ')}`).join(' · ')) : '',
    c.unmatched.length ? h('p', { class: 'muted', id: 'compare-unmatched' }, 'Not on every side: ',
      c.unmatched.map((u) => `${u.test} ${u.rw} (on ${u.present.map((p, i) => (p ? c.sides[i].label : null)).filter(Boolean).join(', ')})`).join('; ')) : '');

  // rows of a kind whose summary has verdicts (/profiles: summary.kind,
  // summary.verdicts): each side's verdicts at each row
  const verdictsOf = (t) => summaryOfKind(cat, t.kind)?.verdicts;
  const judged = c.tests.filter((t) => verdictsOf(t) && Array.isArray(t[verdictsOf(t)]));
  if (judged.length) {
    const kinds = [...new Set(judged.map((t) => t.kind))];
    head.append(...kinds.map((kind) => h('p', { class: 'compare-row-verdicts', dataset: { kind } },
      `${summaryOfKind(cat, kind)?.title ?? humanize(kind)}, verdicts: `,
      judged.filter((t) => t.kind === kind).map((t, k) => [k ? '; ' : '', `${t.test}: `,
        c.sides.map((s, i) => `${s.label} ${(t[verdictsOf(t)][i] ?? []).join('/') || '–'}`).join(', ')]))));
  }

  const chartsCard = h('section', { class: 'card' }, h('h2', null, 'Headline per test (mean over iterations)'));
  const toDraw = [...noiseBands(c, chartsCard), ...headlineBars(c, chartsCard, words), ...sweepLines(c, chartsCard, words, cat)];
  const table = deltaTable(c, n, words);

  // per-second overlay and latency percentiles for one chosen I/O test
  // (imported results have no per-second samples or latency histograms)
  const ioTests = c.sides.some((sd) => sd.runs.some((r) => !r.imported)) ? c.tests.filter((t) => t.kind === 'io') : [];
  const pick = h('select', { id: 'compare-test' }, ioTests.map((t) => h('option', { value: `${t.test}\u001f${t.rw}` }, `${t.test} ${t.rw}`)));
  const secCanvas = h('canvas', { id: 'compare-seconds' });
  const latCanvas = h('canvas', { id: 'compare-latency' });
  const detail = h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'One test, side by side'), pick),
    h('h3', null, 'MB/s per second (first run of each side, iteration 1; dashed: its device\'s MB/s, dotted: its CPU busy %, where the run has counters)'), h('div', { class: 'chart-box' }, secCanvas),
    h('h3', null, 'Latency percentiles (µs, all iterations merged)'), h('div', { class: 'chart-box' }, latCanvas));
  root.replaceChildren(head, chartsCard, table, ioTests.length ? detail : '');
  for (const d of toDraw) d();
  if (ioTests.length) {
    const draw = () => drawCompareDetail(c, pick.value.split('\u001f'), secCanvas, latCanvas);
    pick.addEventListener('change', draw);
    draw();
  }
}

const chartOpts = (canvas, scales, duration = 200) => ({ responsive: true, maintainAspectRatio: false,
  transitions: { resize: { animation: { duration: 0 } } }, animation: drawn(canvas, true, duration), scales });

/** What changed between the sides (c.changed): a line per field, `label:
 * A → B`, or each side's value for three sides or more; nothing when
 * nothing differs. */
function changedList(c) {
  const changed = c.changed ?? [];
  if (!changed.length) return '';
  const show = (v) => (v === null || v === undefined ? 'not stated' : isNum(v) ? v.toLocaleString('en-US') : String(v));
  return h('div', { id: 'compare-changed', class: 'compare-changed' }, h('h3', null, 'What changed'),
    h('ul', null, changed.map((x) => h('li', { dataset: { field: x.field } }, h('b', null, `${x.label}: `),
      x.values.length === 2 ? `${show(x.values[0])} → ${show(x.values[1])}`
        : x.values.map((v, i) => `${c.sides[i].label} ${show(v)}`).join(' · ')))));
}

/** Each side's headline difference (%) against the baseline, drawn over
 * its noise band (the 95 % interval's half-width): a difference inside the
 * band is not called real. */
function noiseBands(c, card) {
  const n = c.sides.length;
  const rows = c.tests.map((t) => ({ t, m: t.metrics.find((m) => m.metric === t.headline) }))
    .filter(({ m }) => m && m.vs_baseline.some((v) => v && isNum(v.delta_pct)));
  const bands = [];
  for (let i = 1; i < n; i++) {
    for (const { t, m } of rows) {
      const v = m.vs_baseline[i];
      bands.push(h('li', { class: `band ${v?.verdict === 'significant' ? (v.better ? 'better' : 'worse') : 'noise'}`,
        dataset: { side: i, test: t.test, rw: t.rw, verdict: v?.verdict ?? '' } },
      `${c.sides[i].label}, ${t.test} ${t.rw}: ${fmtPct(v?.delta_pct)} `,
      isNum(v?.noise_band_pct)
        ? `${Math.abs(v.delta_pct) > v.noise_band_pct ? 'outside' : 'inside'} a noise band of ±${v.noise_band_pct.toFixed(1)} % → `
        : 'no noise band → ',
      // a cannot-tell reason is said once, above (cannot_tell)
      h('b', null, v?.verdict ?? '–'), v?.how && v.verdict !== 'cannot tell' ? h('span', { class: 'muted' }, ` (${v.how})`) : ''));
    }
  }
  if (!rows.length) return [];
  const canvas = h('canvas', { id: 'compare-noise', class: 'compare-noise' });
  card.append(h('h3', null, 'Difference against the baseline, with its noise band (%)'),
    h('div', { class: 'chart-box' }, canvas), h('ul', { class: 'noise-bands', id: 'compare-bands' }, bands));
  const labels = rows.map(({ t }) => `${t.test} ${t.rw}`);
  const datasets = [];
  for (let i = 1; i < n; i++) {
    const vs = rows.map(({ m }) => m.vs_baseline[i]);
    datasets.push({ label: `${c.sides[i].label}: noise band`, grouped: n > 2, barPercentage: 0.9,
      data: vs.map((v) => (isNum(v?.noise_band_pct) ? [-v.noise_band_pct, v.noise_band_pct] : null)),
      backgroundColor: 'rgba(138,146,156,0.30)', borderColor: 'rgba(138,146,156,0.8)', borderWidth: 1 });
    datasets.push({ label: `${c.sides[i].label}: Δ %`, grouped: n > 2, barPercentage: 0.35,
      data: vs.map((v) => (isNum(v?.delta_pct) ? [0, v.delta_pct] : null)), backgroundColor: sideColor(i) });
  }
  return [() => charts.add(makeChart(canvas, {
    type: 'bar',
    data: { labels, datasets },
    options: { ...chartOpts(canvas, { x: { title: { display: true, text: '% of the baseline' } }, y: { grid: { display: false } } }),
      indexAxis: 'y', plugins: { legend: { position: 'top' } } },
  }))];
}

/** Grouped bars: one chart per headline metric, a bar per side. */
function headlineBars(c, card, words) {
  const groups = new Map();
  for (const t of c.tests) {
    if (!groups.has(t.headline)) groups.set(t.headline, []);
    groups.get(t.headline).push(t);
  }
  return [...groups].map(([metric, tests]) => {
    const canvas = h('canvas', { class: 'compare-bars', dataset: { metric } });
    card.append(h('h3', null, words(metric)), h('div', { class: 'chart-box' }, canvas));
    const data = (i) => tests.map((t) => t.metrics.find((m) => m.metric === metric)?.sides[i]?.mean ?? null);
    return () => charts.add(makeChart(canvas, {
      type: 'bar',
      data: { labels: tests.map((t) => `${t.test} ${t.rw}`),
        datasets: c.sides.map((s, i) => ({ label: s.label, data: data(i), backgroundColor: sideColor(i) })) },
      options: { ...chartOpts(canvas, { y: { beginAtZero: true, title: { display: true, text: words(metric) } }, x: { grid: { display: false } } }),
        plugins: { legend: { position: 'top' } } },
    }));
  });
}

/** Sweeps: the headline against the swept value, a line per side. */
function sweepLines(c, card, words, cat) {
  const sweeps = new Map();
  for (const t of c.tests.filter((x) => x.sweep)) {
    const key = `${t.sweep.group} ${t.rw}`;
    if (!sweeps.has(key)) sweeps.set(key, []);
    sweeps.get(key).push(t);
  }
  return [...sweeps].map(([key, tests]) => {
    const canvas = h('canvas', { class: 'compare-sweep' });
    const field = tests[0].sweep.field;
    const d = findDescriptor(cat, null, field);
    const log = d?.type === 'bytes' || d?.item?.type === 'bytes';
    card.append(h('h3', null, `Sweep: ${key} (${words(tests[0].headline)} against ${field})`), h('div', { class: 'chart-box' }, canvas));
    return () => charts.add(makeChart(canvas, {
      type: 'line',
      data: { datasets: c.sides.map((s, i) => ({ label: s.label, borderColor: sideColor(i), backgroundColor: sideColor(i), tension: 0,
        data: tests.map((t) => ({ x: t.sweep.value, y: t.metrics.find((m) => m.metric === t.headline)?.sides[i]?.mean ?? null }))
          .sort((p, q) => p.x - q.x) })) },
      options: chartOpts(canvas, { x: { type: log ? 'logarithmic' : 'linear', title: { display: true, text: field } },
        y: { beginAtZero: true, title: { display: true, text: words(tests[0].headline) } } }, 150),
    }));
  });
}

/** The delta table: a row per test and metric. */
function deltaTable(c, n, words) {
  const rows = [];
  for (const t of c.tests) {
    for (const m of t.metrics.filter((x) => x.sides.some(Boolean))) { // a row some side fills
      const fmt = (v) => fmtByUnit(m.unit, v);
      const cells = [h('td', null, t.test), h('td', null, t.rw), h('td', null, words(m.metric))];
      m.sides.forEach((sv) => cells.push(h('td', { class: 'num' }, sv ? `${fmt(sv.mean)}${isNum(sv.sd) ? ` ± ${fmt(sv.sd)}` : ''}` : '–',
        sv ? h('span', { class: 'muted' }, ` n=${sv.n}`) : '')));
      for (let i = 1; i < n; i++) {
        const v = m.vs_baseline[i];
        const unlike = t.not_like_for_like?.[i];
        const cls = !v ? '' : unlike ? 'unlike' : v.verdict === 'significant' ? (v.better ? 'better' : 'worse') : v.verdict === 'within noise' ? 'noise' : 'untested';
        const signed = (x) => (isNum(x) ? `${x > 0 ? '+' : x < 0 ? '−' : ''}${fmt(Math.abs(x))}` : '–');
        const ci = Array.isArray(v?.ci_pct) && isNum(v.ci_pct[0]) ? `${fmtPct(v.ci_pct[0])} … ${fmtPct(v.ci_pct[1])}` : '–';
        cells.push(h('td', { class: `num delta ${cls}`, dataset: { side: i, verdict: v?.verdict ?? '' },
          title: unlike ? `not like for like: ${unlike}` : undefined },
        v ? `${signed(v.delta)} (${fmtPct(v.delta_pct)})${unlike ? ' ≠' : ''}` : '–'),
        h('td', { class: `num ${cls}` }, ci),
        h('td', { class: `num band ${cls}` }, isNum(v?.noise_band_pct) ? `±${v.noise_band_pct.toFixed(1)} %` : '–'),
        h('td', { class: `num ${cls}` }, v ? fmtP(v.p) : '–'),
        h('td', { class: cls, title: v?.how ?? '' }, v?.verdict ?? '–', v?.test ? h('span', { class: 'muted' }, ` (${v.test})`) : ''));
      }
      rows.push(h('tr', { class: m.metric === t.headline ? 'headline-row' : '', dataset: { test: t.test, rw: t.rw, metric: m.metric } }, cells));
    }
  }
  const headCells = [h('th', null, 'Test'), h('th', null, 'rw'), h('th', null, 'Metric'),
    ...c.sides.map((s) => h('th', { class: 'num' }, `${s.label} mean ± sd`))];
  for (let i = 1; i < n; i++) {
    headCells.push(h('th', { class: 'num' }, `Δ ${c.sides[i].label}`), h('th', { class: 'num' }, '95 % CI'),
      h('th', { class: 'num' }, 'noise band'), h('th', { class: 'num' }, 'p'), h('th', null, 'verdict (test)'));
  }
  const tests = c.rules.tests ?? {};
  return h('section', { class: 'card' }, h('h2', null, 'Deltas against the baseline'),
    h('p', { class: 'muted', id: 'compare-rules' }, `The run is the unit of evidence: a side's figure per run (or per round of an interleaved job) is tested, `,
      `at p < ${c.rules.alpha}; a difference inside the noise band is never called real. Green better, red worse, grey within noise or cannot tell.`),
    h('ul', { class: 'muted compare-tests' }, Object.entries(tests).map(([k, v]) => h('li', null, h('b', null, k), `: ${v}`))),
    h('div', { class: 'table-wrap' }, h('table', { class: 'compare', id: 'compare-table' }, h('thead', null, h('tr', null, headCells)), h('tbody', null, rows))));
}

async function drawCompareDetail(c, [test, rw], secCanvas, latCanvas) {
  const firstRuns = c.sides.map((s) => s.runs[0]?.id);
  const [samples, runsFull] = await Promise.all([
    Promise.all(firstRuns.map((id) => api('GET', `/runs/${id}/samples`).then((r) => r.json.samples).catch(() => []))),
    Promise.all(firstRuns.map((id) => api('GET', `/runs/${id}`).then((r) => r.json).catch(() => null))),
  ]);
  charts.drop(secCanvas);
  charts.drop(latCanvas);
  const mine = samples.map((ss) => ss.filter((x) => x.test === test && x.rw === rw && x.iteration === 1));
  const extra = mine.flatMap((ss, i) => counterOverlay(ss, c.sides[i].label, sideColor(i)));
  charts.add(makeChart(secCanvas, {
    type: 'line',
    data: { datasets: [...mine.map((ss, i) => ({ label: c.sides[i].label, borderColor: sideColor(i), backgroundColor: sideColor(i),
      data: ss.map((x) => ({ x: x.t_s, y: (x.read?.mb_s ?? 0) + (x.write?.mb_s ?? 0) })), pointRadius: 2, tension: 0 })), ...extra] },
    options: chartOpts(secCanvas, { x: { type: 'linear', min: 0, title: { display: true, text: 's' } }, y: { beginAtZero: true, title: { display: true, text: 'MB/s' } },
      ...(extra.some((d) => d.yAxisID === 'y2') ? { y2: cpuAxis } : {}) }, 150),
  }));
  const pcts = ['p50', 'p90', 'p99', 'p99.9', 'p99.99'];
  charts.add(makeChart(latCanvas, {
    type: 'line',
    data: { labels: pcts, datasets: runsFull.map((r, i) => {
      const t = r?.tests.find((x) => x.test === test && x.rw === rw);
      return { label: c.sides[i].label, borderColor: sideColor(i), backgroundColor: sideColor(i),
        data: pcts.map((p) => t?.latency_us?.[p] ?? null), tension: 0 };
    }) },
    options: chartOpts(latCanvas, { y: { type: 'logarithmic', title: { display: true, text: 'µs' } } }, 150),
  }));
}
