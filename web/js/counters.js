// The host's and the device's counters beside every second (a sample's
// `host` and `device`, docs/api.md "Samples"): on the run page, the
// engine's IOPS and MB/s against the device's, and the CPU's busy share
// with its busiest core; in compare's per-second overlay, each side's
// device MB/s and CPU busy %. Nothing is drawn for a run without counters
// (older runs, Windows, a share, the null engine has no device).

import { h } from './dom.js';
import { fmtFixed } from './format.js';
import { ChartSet, makeChart, drawn } from './charts.js';

const charts = new ChartSet();
export const stopCountersView = () => charts.clear();

const engineIops = (s) => (s.read?.iops ?? 0) + (s.write?.iops ?? 0);
const engineMBs = (s) => (s.read?.mb_s ?? 0) + (s.write?.mb_s ?? 0);
const devIops = (s) => (s.device ? s.device.read_iops + s.device.write_iops : null);
const devMBs = (s) => (s.device ? s.device.read_mb_s + s.device.write_mb_s : null);

/** Points {x, y} on the run's time axis (tests back to back), the short last second left out as the samples chart does. */
function points(samples, f) {
  const out = [];
  let t = 0;
  for (const s of samples) {
    if (s.length_s >= 0.5) out.push({ x: t + s.length_s / 2, y: f(s) });
    t += s.length_s;
  }
  return out;
}

// wide: a line drawn under another that may hide it (Chart.js draws the
// first dataset on top): the device's under the engine's
const line = (label, data, color, axis, dash, wide = false) => ({
  label, data, yAxisID: axis, borderColor: wide ? `${color}99` : color, backgroundColor: color,
  borderDash: dash, pointRadius: 1.5, borderWidth: wide ? 6 : 2, tension: 0, spanGaps: false,
});

/** {card, draw(samples, animate)}: the run page's counters card; draw fills it from samples, a promise of the run's seconds (or says there are none). */
export function countersView(run) {
  charts.clear();
  const ioCanvas = h('canvas', { id: 'counters-io-chart', 'aria-label': 'engine IOPS and MB/s against the device\'s, per second' });
  const cpuCanvas = h('canvas', { id: 'counters-cpu-chart', 'aria-label': 'CPU busy % and the busiest core, per second' });
  const note = h('p', { class: 'muted' });
  const card = h('section', { class: 'card', id: 'counters-card' },
    h('h2', null, 'Host and device counters ', h('span', { class: 'unit' }, '(per second, tests back to back: what the engine did against what the device under the target and the CPUs did)')),
    note, h('div', { class: 'chart-box' }, ioCanvas), h('div', { class: 'chart-box' }, cpuCanvas));
  const draw = async (seconds, animate = true) => {
    let samples;
    try {
      samples = await seconds;
    } catch (e) {
      note.textContent = `Could not load samples: ${e.message}`;
      return;
    }
    if (!card.isConnected) return;
    const dev = samples.find((s) => s.device)?.device;
    if (!samples.some((s) => s.host || s.device)) {
      card.replaceChildren(h('h2', null, 'Host and device counters'),
        h('p', { class: 'muted' }, 'This run has no host or device counters (run before they were kept, on Windows, or imported).'));
      return;
    }
    note.textContent = dev
      ? `Device ${dev.name}${dev.members?.length ? ` (members ${dev.members.map((m) => m.name).join(', ')})` : ''}: /sys/block/${dev.name}/stat; CPU and memory: /proc/stat, /proc/meminfo.`
      : 'No block device under this target (a share, tmpfs or the null engine): CPU and memory only.';
    charts.add(makeChart(ioCanvas, {
      type: 'line',
      data: { datasets: [
        line('engine IOPS', points(samples, engineIops), '#2f7ed8', 'y'),
        ...(dev ? [line(`device ${dev.name} IOPS`, points(samples, devIops), '#e0882b', 'y', undefined, true)] : []),
        line('engine MB/s', points(samples, engineMBs), '#2f7ed8', 'y2', [6, 4]),
        ...(dev ? [line(`device ${dev.name} MB/s`, points(samples, devMBs), '#e0882b', 'y2', [6, 4], true)] : []),
      ] },
      options: {
        responsive: true, maintainAspectRatio: false, animation: drawn(ioCanvas, animate),
        plugins: { legend: { position: 'top' }, tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmtFixed(c.raw.y, 1)}` } } },
        scales: {
          x: { type: 'linear', title: { display: true, text: 's (measured time, tests back to back)' } },
          y: { beginAtZero: true, title: { display: true, text: 'IOPS' } },
          y2: { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: 'MB/s (dashed)' } },
        },
      },
    }, animate));
    charts.add(makeChart(cpuCanvas, {
      type: 'line',
      data: { datasets: [
        line('CPU busy %', points(samples, (s) => s.host?.cpu_busy_pct ?? null), '#6a9f3a', 'y'),
        line('busiest core %', points(samples, (s) => s.host?.core_busy_pct ?? null), '#c0392b', 'y', [6, 4]),
        line('iowait %', points(samples, (s) => s.host?.cpu_iowait_pct ?? null), '#7f8c8d', 'y', [2, 3]),
        ...(dev ? [line(`device ${dev.name} utilisation %`, points(samples, (s) => s.device?.util_pct ?? null), '#e0882b', 'y', [8, 3])] : []),
      ] },
      options: {
        responsive: true, maintainAspectRatio: false, animation: drawn(cpuCanvas, animate),
        plugins: { legend: { position: 'top' } },
        scales: {
          x: { type: 'linear', title: { display: true, text: 's (measured time, tests back to back)' } },
          y: { min: 0, max: 100, title: { display: true, text: '% (CPU: of all CPUs)' } },
        },
      },
    }, animate));
  };
  return { card, draw };
}

/** Compare's per-second overlay: side i's device MB/s (dashed, axis y) and CPU busy % (dotted, axis y2) for its seconds ss; [] without counters. */
export function counterOverlay(ss, label, color) {
  const out = [];
  if (ss.some((x) => x.device)) {
    out.push(line(`${label} device MB/s`, ss.map((x) => ({ x: x.t_s, y: devMBs(x) })), color, 'y', [6, 4]));
  }
  if (ss.some((x) => x.host)) {
    out.push(line(`${label} CPU busy %`, ss.map((x) => ({ x: x.t_s, y: x.host?.cpu_busy_pct ?? null })), color, 'y2', [2, 3]));
  }
  return out;
}

/** The y2 scale counterOverlay's CPU lines need. */
export const cpuAxis = { min: 0, max: 100, position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: 'CPU busy % (dotted)' } };
