// The import box: each picked file and the pasted text is one POST
// /api/v1/import; the list says what became of each.

import { $, h } from './dom.js';
import { API, apiFetch } from './api.js';
import { loadRuns } from './archive.js';

async function importResults() {
  const list = $('#import-results');
  const labels = $('#import-labels').value.trim();
  const items = [...$('#import-files').files].map((f) => ({ name: f.name, body: f }));
  const paste = $('#import-paste').value;
  if (paste.trim()) items.push({ name: 'pasted.txt', body: new Blob([paste], { type: 'text/plain' }) });
  list.replaceChildren();
  for (const it of items) {
    const q = new URLSearchParams({ filename: it.name });
    if (labels) q.set('labels', labels);
    let li;
    try {
      const r = await apiFetch(`${API}/import?${q}`, { method: 'POST', body: await it.body.arrayBuffer() });
      const j = await r.json();
      // a file may hold several runs (DiskSpd text): one line each
      li = r.ok ? h('li', { class: 'ok' }, `${it.name}: `, ...(j.runs ?? [{ id: j.id, duplicate: j.duplicate, tool: `${j.import.tool} ${j.import.version}`, tests: j.tests.length }])
        .flatMap((x, k) => [k ? '; ' : '', x.duplicate ? 'already imported as ' : 'imported as ',
          h('a', { href: `#/runs/${x.id}` }, `run #${x.id}`), ` (${x.tool}, ${x.tests} tests)`]))
        : h('li', { class: 'error-text' }, `${it.name}: ${j.detail ?? r.status}`);
    } catch (e) {
      li = h('li', { class: 'error-text' }, `${it.name}: ${e.message}`);
    }
    list.append(li);
  }
  if (!items.length) list.append(h('li', { class: 'muted' }, 'pick a file or paste a result first'));
  $('#import-paste').value = '';
  loadRuns();
}

export function initImport() {
  $('#import-go').addEventListener('click', importResults);
}
