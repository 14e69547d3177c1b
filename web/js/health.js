// The daemon's status in the top bar: GET /healthz every 5 s.

import { $ } from './dom.js';

let healthTimer = 0;

export async function pollHealth() {
  clearTimeout(healthTimer);
  const el = $('#health');
  try {
    const r = await fetch('/healthz', { headers: { Accept: 'application/json' } });
    const j = await r.json();
    const q = j.queue ?? {};
    el.textContent = `daemon ${j.version ?? ''} · ${j.status ?? r.status} · ${q.running ?? 0} running, ${q.queued ?? 0} queued`;
    el.className = `health ${r.ok ? 'ok' : 'bad'}`;
  } catch {
    el.textContent = 'daemon unreachable';
    el.className = 'health bad';
  }
  healthTimer = setTimeout(pollHealth, 5000);
}
