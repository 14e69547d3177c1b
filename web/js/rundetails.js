// The run page's detail cards: probe snapshot, spec and engine, warnings
// and notes, every iteration, latency over all iterations, and the tests
// as planned. Each returns its card (or '' when the run has nothing for it).

import { h, labelChips } from './dom.js';
import { isNum, fmtMBs, fmtFixed, fmtInt, fmtGB, fmtBytes } from './format.js';
import { allSteady } from './steady.js';

const kv = (rows) => h('dl', { class: 'kv' }, rows.map(([k, v, title]) => [h('dt', null, k), h('dd', { title: title ?? null }, v ?? '–')]));
const yesNo = (v) => (v === true ? 'yes' : v === false ? 'no' : '–');

/** Members the page has no special place for: shown with a readable name. */
const extraRows = (obj, known) => Object.entries(obj).filter(([k]) => !known.includes(k)).map(([k, v]) => [
  k === 'direct_requested' ? 'Direct I/O requested' : k.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()),
  typeof v === 'boolean' ? yesNo(v) : v !== null && typeof v === 'object' ? JSON.stringify(v) : v == null ? '–' : String(v)]);

export const warningText = (w) => (typeof w === 'string' ? w : (w.message ?? w.detail ?? JSON.stringify(w)));

export function probeCard(run) {
  const probe = run.probe ?? {};
  return h('section', { class: 'card' }, h('h2', null, 'Probe snapshot'), kv([
    ['Hostname', probe.hostname],
    ['Kernel', probe.kernel],
    ['Filesystem', probe.fs_type ? `${probe.fs_type}${probe.volume_label ? ` (label ${probe.volume_label})` : ''}` : null],
    ['Filesystem features', probe.fs_features],
    ['FS block size', isNum(probe.fs_block_size) ? `${fmtInt(probe.fs_block_size)} B` : null],
    ['Mount point', probe.mount_point],
    ['Mount options', probe.mount_options],
    ['Device', probe.device ? `${probe.device}${probe.disk ? ` (${probe.disk})` : ''}` : probe.disk],
    ['Model', probe.device_model ? `${probe.device_model}${probe.bus_type ? ` (${probe.bus_type})` : ''}` : probe.bus_type],
    ['Rotational', yesNo(probe.rotational)],
    ['Write cache', probe.write_cache],
    ['Free space', isNum(probe.free_bytes) ? `${fmtGB(probe.free_bytes)}${isNum(probe.total_bytes) ? ` of ${fmtGB(probe.total_bytes)}` : ''}` : null, isNum(probe.free_bytes) ? `${probe.free_bytes} B` : null],
    ['CPU', probe.cpu_model ? `${probe.cpu_model}${isNum(probe.cpus) ? ` × ${probe.cpus}` : ''}` : isNum(probe.cpus) ? `${probe.cpus} CPUs` : null],
    ['Memory', isNum(probe.memory_bytes) ? fmtGB(probe.memory_bytes) : null],
    ...(probe.smb ? [
      ['SMB server', `${probe.smb.server}${isNum(probe.smb.port) ? `:${probe.smb.port}` : ''}`],
      ['SMB share', probe.smb.share],
      ['SMB dialect', probe.smb.dialect],
      ['SMB signing', yesNo(probe.smb.signing)],
      ['SMB encryption', yesNo(probe.smb.encryption)],
    ] : []),
  ]));
}

// Iterations and their duration, or, when every test runs steady-state
// rounds, the rounds' length and most.
function roundsRows(spec) {
  const ss = allSteady(spec.tests);
  if (ss) {
    const same = (k) => ss.every((x) => x[k] === ss[0][k]) ? ss[0][k] : 'per test';
    return [['Rounds', `until steady, at most ${same('max_rounds')} (window ${same('window')})`],
      ['Round', `${same('round_s')} s${isNum(spec.ramp_s) && spec.ramp_s > 0 ? ` after a ${spec.ramp_s} s ramp` : ''}`]];
  }
  return [['Iterations', spec.iterations],
    ['Duration', isNum(spec.duration_s) ? `${spec.duration_s} s per iteration` : null]];
}

export function specCard(run) {
  const spec = run.spec ?? {};
  const eng = run.engine ?? {};
  return h('section', { class: 'card' }, h('h2', null, 'Spec & engine'), kv([
    ['Test file size', isNum(spec.size) ? `${fmtBytes(spec.size)}` : null, isNum(spec.size) ? `${spec.size} B` : null],
    ...roundsRows(spec),
    ['Interval', isNum(spec.interval_s) ? `${spec.interval_s} s between tests` : null],
    ...(run.import ? [
      ['Imported from', `${run.import.tool} ${run.import.version}${spec.imported?.best_of ? ` (each number the best of ${spec.imported.best_of})` : ''}`],
      ['Original file', h('a', { href: run.import.original, id: 'run-original' }, run.import.filename || 'download')],
    ] : []),
    ...(spec.smb ? [['SMB session', `credential ${spec.smb.credential}; protocol ${spec.smb.min_protocol ?? 'default'} … ${spec.smb.max_protocol ?? 'default'}; signing ${spec.smb.require_signing ? 'required' : 'as negotiated'}; encryption ${spec.smb.require_encryption ? 'required' : 'as negotiated'}${spec.smb.baseline ? `; wire baseline iperf3 ${spec.smb.baseline.host}:${spec.smb.baseline.port}` : ''}`]] : []),
    ...extraRows(spec, ['size', 'iterations', 'duration_s', 'interval_s', 'profile', 'tests', 'smb', 'imported']),
    ['Engine version', eng.version],
    ['I/O back-end', eng.target],
    ['Direct I/O', eng.direct === false ? h('span', { class: 'warn-text' }, 'no (buffered)') : yesNo(eng.direct)],
    ...extraRows(eng, ['version', 'target', 'direct']),
  ]));
}

export function notesCard(run) {
  const warnings = run.warnings ?? [];
  return h('section', { class: 'card' },
    h('h2', null, 'Warnings'),
    warnings.length
      ? h('ul', { class: 'warnings' }, warnings.map((w) => h('li', null, warningText(w))))
      : h('p', { class: 'muted' }, 'None.'),
    h('h2', null, 'Labels'), h('div', null, labelChips(run.labels)),
    h('h2', null, 'Notes'), run.notes ? h('p', { class: 'notes' }, run.notes) : h('p', { class: 'muted' }, 'None.'));
}

export function iterationsCard(run) {
  const tests = run.tests ?? [];
  const lat = (it, k) => h('td', { class: 'num' }, it.latency_us ? fmtFixed(it.latency_us[k], 1) : '–');
  const rows = [];
  for (const t of tests) {
    for (const it of t.iterations ?? []) {
      const isBest = t.best && it.iteration === t.best.iteration;
      rows.push(h('tr', { class: isBest ? 'best' : null },
        h('td', null, t.test), h('td', null, t.rw),
        h('td', { class: 'num' }, it.iteration, isBest ? h('span', { class: 'best-mark', title: 'best iteration (headline)' }, ' ★') : ''),
        h('td', { class: 'num' }, fmtMBs(it.mb_s)),
        h('td', { class: 'num' }, fmtFixed(it.mib_s, 2)),
        h('td', { class: 'num' }, fmtFixed(it.iops, 1)),
        h('td', { class: 'num' }, fmtFixed(it.lat_mean_us, 1)),
        lat(it, 'p50'), lat(it, 'p99'), lat(it, 'p99.9'), lat(it, 'max'),
        h('td', { class: 'num' }, fmtInt(it.ios)),
        h('td', { class: 'num' }, fmtInt(it.bytes)),
        h('td', { class: 'num' }, fmtFixed(it.seconds, 3))));
    }
  }
  const heads = ['MB/s', 'MiB/s', 'IOPS', 'Mean lat. (µs)', 'p50 (µs)', 'p99 (µs)', 'p99.9 (µs)', 'Max (µs)', 'I/Os', 'Bytes (B)', 'Window (s)'];
  return h('section', { class: 'card' },
    h('h2', null, 'Every iteration'),
    h('p', { class: 'muted small' }, 'Test parameters: ', tests.length ? [...new Map(tests.map((t) => [t.test, t])).values()].map((t) =>
      `${t.test} = ${t.pattern ?? '?'} ${fmtBytes(t.block_size)}, QD ${t.queue_depth ?? '?'}, ${t.threads ?? '?'} thread${t.threads === 1 ? '' : 's'}`).join(' · ') : '–'),
    h('div', { class: 'table-wrap' }, h('table', { class: 'iters', id: 'iter-table' },
      h('thead', null, h('tr', null, h('th', null, 'Test'), h('th', null, 'R/W'), h('th', { class: 'num' }, 'Iteration'),
        heads.map((k) => h('th', { class: 'num' }, k)))),
      h('tbody', null, rows.length ? rows : h('tr', null, h('td', { colspan: 14, class: 'muted' }, 'No iteration measured yet.'))))));
}

const LAT_KEYS = ['mean', 'stdev', 'min', 'p50', 'p90', 'p99', 'p99.9', 'p99.99', 'max'];

export function latencyCard(run) {
  const rows = (run.tests ?? []).filter((t) => t.latency_us).map((t) => {
    const l = t.latency_us;
    return h('tr', null, h('td', null, t.test), h('td', null, t.rw),
      h('td', { class: 'num' }, fmtInt(l.ios)),
      LAT_KEYS.map((k) => h('td', { class: 'num' }, fmtFixed(l[k], 1))));
  });
  return h('section', { class: 'card' },
    h('h2', null, 'Latency over all iterations ', h('span', { class: 'unit' }, '(µs; each I/O from its slot freeing to its completion, histograms of every iteration merged)')),
    h('div', { class: 'table-wrap' }, h('table', { class: 'iters', id: 'latency-table' },
      h('thead', null, h('tr', null, h('th', null, 'Test'), h('th', null, 'R/W'), h('th', { class: 'num' }, 'I/Os'),
        LAT_KEYS.map((k) => h('th', { class: 'num' }, k === 'mean' ? 'Mean' : k === 'stdev' ? 'Stdev' : k === 'min' ? 'Min' : k === 'max' ? 'Max' : k)))),
      h('tbody', null, rows.length ? rows : h('tr', null, h('td', { colspan: 12, class: 'muted' }, 'No latency distribution stored for this run.'))))));
}

/** The plan: every test as it was asked for. */
export function planCard(run) {
  const plan = Array.isArray(run.spec?.tests) ? run.spec.tests : [];
  if (!plan.length) return '';
  return h('section', { class: 'card' },
    h('h2', null, 'Tests as planned'),
    h('div', { class: 'table-wrap' }, h('table', { class: 'iters', id: 'plan-table' },
      h('thead', null, h('tr', null, ['Name', 'Pattern', 'Read %', 'Block', 'QD', 'Threads', 'Duration / size', 'Ramp (s)', 'Sync', 'Data'].map((k) => h('th', null, k)))),
      h('tbody', null, plan.map((t) => h('tr', null,
        h('td', null, t.name), h('td', null, t.pattern), h('td', { class: 'num' }, t.read_pct),
        h('td', { class: 'num' }, fmtBytes(t.block_size)), h('td', { class: 'num' }, t.queue_depth), h('td', { class: 'num' }, t.threads),
        h('td', null, t.io_size > 0 ? `${fmtBytes(t.io_size)} of I/O` : `${t.duration_s} s`),
        h('td', { class: 'num' }, t.ramp_s), h('td', null, t.sync === 'fdatasync' ? `fdatasync every ${t.sync_every}` : t.sync),
        h('td', null, t.data)))))));
}
