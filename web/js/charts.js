// Chart.js helpers. Chart.js is the vendored UMD build (window.Chart),
// loaded by index.html before the modules. Every chart marks its canvas
// data-rendered="1" when drawn (the browser tests wait for it).

import { h } from './dom.js';

export const COLORS = { read: '#2f7ed8', write: '#e0882b', other: '#6a9f3a' };
export const LINE_COLORS = ['#2f7ed8', '#e0882b', '#6a9f3a', '#8e44ad', '#c0392b', '#16a085', '#7f8c8d'];
export const SIDE_COLORS = ['#7f8c8d', '#2f7ed8', '#e0882b', '#6a9f3a', '#8e44ad', '#c0392b', '#16a085', '#d4ac0d',
  '#1abc9c', '#34495e', '#e84393', '#6c5ce7', '#00b894', '#b35900', '#0984e3', '#636e72'];
export const sideColor = (i) => SIDE_COLORS[i % SIDE_COLORS.length];

export const hasChart = () => typeof window.Chart === 'function';

export function chartDefaults() {
  if (!hasChart()) return;
  window.Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  window.Chart.defaults.color = '#3b4452';
}

/** The animation option that marks the canvas once drawn. */
export const drawn = (canvas, animate, duration = 250) =>
  (animate ? { duration, onComplete: () => { canvas.dataset.rendered = '1'; } } : false);

/** new Chart, or a sentence in the canvas's place when Chart.js did not load. */
export function makeChart(canvas, config, animate = true) {
  if (!hasChart()) {
    canvas.replaceWith(h('p', { class: 'error-text' }, 'Chart.js did not load.'));
    return null;
  }
  const chart = new window.Chart(canvas, config);
  if (!animate) canvas.dataset.rendered = '1';
  return chart;
}

/** A line chart over category labels; datasets [{label, data, dashed, axis: 'y'|'y2', color}]. */
export function lineChart(canvas, labels, datasets, { y, y2, x, animate }) {
  return makeChart(canvas, {
    type: 'line',
    data: {
      labels,
      datasets: datasets.map((d, i) => ({
        label: d.label, data: d.data, yAxisID: d.axis ?? 'y',
        borderColor: d.color ?? LINE_COLORS[i % LINE_COLORS.length],
        backgroundColor: d.color ?? LINE_COLORS[i % LINE_COLORS.length],
        borderDash: d.dashed ? [6, 4] : undefined, pointRadius: d.dashed ? 0 : 3, spanGaps: true, tension: 0,
      })),
    },
    options: {
      responsive: true, maintainAspectRatio: false,
      animation: drawn(canvas, animate),
      plugins: { legend: { position: 'top' } },
      scales: {
        x: { title: { display: true, text: x } },
        y: { beginAtZero: true, title: { display: true, text: y } },
        ...(y2 ? { y2: { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: y2 } } } : {}),
      },
    },
  }, animate);
}

/** Keeps a view's charts so that leaving it destroys them. */
export class ChartSet {
  constructor() { this.list = []; }
  add(chart) { if (chart) this.list.push(chart); return chart; }
  drop(canvas) {
    for (const c of this.list.filter((x) => x.canvas === canvas)) c.destroy();
    this.list = this.list.filter((x) => x.canvas !== canvas);
  }
  clear() { while (this.list.length) this.list.pop().destroy(); }
}
