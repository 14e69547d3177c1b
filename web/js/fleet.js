// Multi-host jobs on the dashboard: a running job's line per host (its
// coordinator's fleet_progress) and, on an aggregate run's page, the Hosts
// card — each host's run beside the aggregate, the clocks and the common
// window (probe.fleet).

import { h } from './dom.js';
import { api } from './api.js';
import { isNum, fmtMBs, fmtFixed } from './format.js';

/** "3 hosts: self, n2, n3" */
export const hostsText = (job) => (job.hosts?.length ? `${job.hosts.length} hosts: ${job.hosts.join(', ')}` : '');

/** The live lines of a running multi-host job: one per host. */
export function fleetLines(fp) {
  if (!fp?.hosts?.length) return [];
  return fp.hosts.map((x) => {
    const frac = isNum(x.fraction) ? Math.max(0, Math.min(1, x.fraction)) : 0;
    const what = [x.state, x.phase === 'waiting' ? null : x.phase, x.test ? `${x.test} ${x.rw ?? ''}`.trim() : null,
      isNum(x.gate) ? `waiting for window ${x.gate}` : null].filter(Boolean).join(' · ');
    return h('div', { class: 'fleet-host', dataset: { host: x.name } },
      h('strong', { class: 'fleet-name' }, x.name),
      h('span', { class: 'bar fleet-bar' }, h('span', { class: 'bar-fill', style: `width:${(frac * 100).toFixed(1)}%` })),
      h('span', { class: 'muted fleet-what' }, what),
      h('span', { class: 'fleet-live' }, h('span', { class: 'live-num' }, fmtFixed(x.live_iops, 0)), ' IOPS  ',
        h('span', { class: 'live-num' }, fmtMBs(x.live_mb_s)), ' MB/s'),
      x.error ? h('span', { class: 'job-error' }, x.error) : null);
  });
}

const best = (t) => t?.best ?? null;
// test u's iteration that is the same window as b (an iteration of the
// aggregate), else its best
const same = (u, b) => u?.iterations?.find((it) => it.iteration === b?.iteration) ?? best(u);
const num = (v, d = 1) => (isNum(v) ? fmtFixed(v, d) : '–');

/** The Hosts card of an aggregate run (run.probe.fleet), or '' (nothing to add). */
export function hostsCard(run) {
  const f = run.probe?.fleet;
  if (!f?.hosts?.length) return '';
  const hostRows = f.hosts.map((x) => h('tr', { dataset: { host: x.name } },
    h('td', null, h('a', { href: `#/runs/${x.run_id}` }, x.name)),
    h('td', null, x.hostname || '–'), h('td', null, x.os || '–'), h('td', null, x.version || '–'),
    h('td', { class: 'num' }, `${num(x.offset_ms, 2)} ± ${num(x.uncertainty_ms, 2)}`),
    h('td', { class: 'num' }, num(x.rtt_ms, 2)),
    h('td', { class: 'num' }, num(x.start_skew_max_ms, 3)),
    h('td', { class: 'num' }, isNum(x.common_share_min) ? `${(100 * x.common_share_min).toFixed(2)} %` : '–')));
  const perTest = h('div', { class: 'fleet-tests' }, h('p', { class: 'muted' }, 'Loading each host\'s run…'));
  const card = h('section', { class: 'card fleet-card' },
    h('h2', null, `Hosts `, h('span', { class: 'unit' }, `(${f.hosts.length}, coordinated by ${f.coordinator || '?'})`)),
    h('p', { class: 'muted' }, 'IOPS and MB/s are summed over the window where every host measured; percentiles come from the hosts\' merged histograms, not averaged. ',
      `Start skew: median ${num(f.start_skew_ms?.median, 3)} ms, max ${num(f.start_skew_ms?.max, 3)} ms over ${f.start_skew_ms?.windows ?? '?'} windows; clock bound ${num(f.clock_bound_ms)} ms.`,
      f.hosts_sweep ? ` Part of a host-count sweep: ${f.hosts_sweep.join(', ')} hosts.` : ''),
    h('table', { class: 'fleet-table' },
      h('thead', null, h('tr', null, ...['host', 'host name', 'OS', 'version', 'clock offset ms', 'round trip ms', 'start skew max ms', 'common window']
        .map((c) => h('th', null, c)))),
      h('tbody', null, hostRows)),
    perTest);
  fillPerTest(run, f, perTest);
  return card;
}

// Each test's best iteration of the aggregate: IOPS, MB/s and p99 of every
// host in that same iteration (their windows were the same seconds) beside
// the aggregate's.
async function fillPerTest(run, f, box) {
  let runs;
  try {
    runs = await Promise.all(f.hosts.map((x) => api('GET', `/runs/${x.run_id}`).then((r) => r.json)));
  } catch (e) {
    box.replaceChildren(h('p', { class: 'error-text' }, `Could not load the hosts' runs: ${e.message}`));
    return;
  }
  const head = h('tr', null, h('th', null, 'test'), ...f.hosts.map((x) => h('th', null, x.name)), h('th', null, 'aggregate'));
  const rows = (run.tests ?? []).map((t) => {
    const cell = (b) => (b ? `${fmtFixed(b.iops, 0)} IOPS · ${fmtMBs(b.mb_s)} MB/s · p99 ${num(b.latency_us?.p99, 1)} µs` : '–');
    return h('tr', { dataset: { test: `${t.test} ${t.rw}` } }, h('td', null, `${t.test} ${t.rw}`),
      ...runs.map((r) => h('td', { class: 'num fleet-host-cell' }, cell(same(r.tests?.find((u) => u.test === t.test && u.rw === t.rw), best(t))))),
      h('td', { class: 'num fleet-agg-cell' }, cell(best(t))));
  });
  box.replaceChildren(h('table', { class: 'fleet-table' }, h('thead', null, head), h('tbody', null, rows)));
}
