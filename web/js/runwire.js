// An SMB run against the wire (run.wire, docs/api.md "The wire
// baseline"): the TCP throughput iperf3 measured to the file server before
// the tests, both ways, and each test's SMB MB/s as a share of the wire in
// its direction (wire_efficiency, computed by the daemon).

import { h } from './dom.js';
import { isNum, fmtMBs, fmtFixed, fmtTime } from './format.js';

const pct = (v) => (isNum(v) ? `${fmtFixed(v * 100, 1)} %` : '–');

/** The wire MB/s a test's direction is set against (a mix: by time). */
function wireRate(w, t) {
  if (t.rw === 'read') return w.from_server_mb_s;
  if (t.rw === 'write') return w.to_server_mb_s;
  const b = t.best;
  return b && isNum(b.wire_efficiency) && b.wire_efficiency > 0 ? b.mb_s / b.wire_efficiency : null;
}

/** The card, or '' for a run without a wire baseline. */
export function wireCard(run) {
  const w = run.wire;
  if (!w) return '';
  const rows = (run.tests ?? []).filter((t) => isNum(t.best?.wire_efficiency)).map((t) =>
    h('tr', null, h('td', null, t.test), h('td', null, t.rw),
      h('td', { class: 'num' }, fmtMBs(t.best.mb_s)),
      h('td', { class: 'num' }, fmtMBs(wireRate(w, t))),
      h('td', { class: 'num wire-eff' }, pct(t.best.wire_efficiency))));
  return h('section', { class: 'card', id: 'wire-card' },
    h('h2', null, 'Against the wire ', h('span', { class: 'unit' }, '(SMB MB/s ÷ TCP MB/s in the same direction; a mix by time)')),
    h('p', { class: 'wire-line' },
      h('strong', null, `wire: ${fmtMBs(w.to_server_mb_s)} MB/s →, ${fmtMBs(w.from_server_mb_s)} MB/s ←`),
      h('span', { class: 'muted' },
        ` (→ to the server: SMB writes; ← from it: SMB reads) · iperf3${w.iperf ? ` ${w.iperf}` : ''} to ${w.host}:${w.port}, ` +
        `${w.streams} stream${w.streams === 1 ? '' : 's'}, ${w.duration_s} s each way` +
        `${isNum(w.to_server_retransmits) ? `, ${w.to_server_retransmits} / ${w.from_server_retransmits ?? '–'} retransmits` : ''}` +
        ` · measured ${fmtTime(w.measured_at)}`)),
    h('div', { class: 'table-wrap' }, h('table', { class: 'iters' },
      h('thead', null, h('tr', null, h('th', null, 'Test'), h('th', null, 'R/W'), h('th', { class: 'num' }, 'SMB MB/s (best)'),
        h('th', { class: 'num' }, 'Wire MB/s'), h('th', { class: 'num' }, 'Efficiency'))),
      h('tbody', null, rows))));
}
