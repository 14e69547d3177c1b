// The run archive on the home page: GET /api/v1/runs with the filters the
// API takes, a quick text filter over the loaded rows, delete, and the
// selection (and group) that opens a comparison.

import { $, h, labelChips, stateBadge, showGlobalError } from './dom.js';
import { api } from './api.js';
import { isNum, fmtMBs, fmtTime } from './format.js';
import { loadProfiles } from './state.js';

const archive = {
  runs: [],
  total: 0,
  loading: false,
  loadedAt: 0,
  selected: [], // run ids ticked, in the order ticked: the first is the baseline
};

/** Milliseconds since the list was last loaded. */
export const runsAge = () => Date.now() - archive.loadedAt;

export async function loadRuns({ more = false } = {}) {
  if (archive.loading) return;
  archive.loading = true;
  try {
    const offset = more ? archive.runs.length : 0;
    const q = new URLSearchParams({ limit: '100', offset: String(offset) });
    for (const el of $('#runs-filters').elements) {
      const v = el.value?.trim();
      if (el.name && v && !(el.name === 'sort' && v === '-id')) q.set(el.name, v);
    }
    const t0 = performance.now();
    const r = await api('GET', `/runs?${q}`);
    $('#archive').dataset.loadMs = String(Math.round(performance.now() - t0));
    const got = r.json?.runs ?? [];
    archive.runs = more ? archive.runs.concat(got) : got;
    archive.total = isNum(r.json?.total) ? r.json.total : archive.runs.length;
    archive.loadedAt = Date.now();
    renderRuns();
  } catch (e) {
    $('#runs-body').replaceChildren(h('tr', null, h('td', { colspan: 11, class: 'error-text' }, `Could not load runs: ${e.message}`)));
  } finally {
    archive.loading = false;
  }
}

/** Up to two tests to show as headline: SEQ1M Q8T1 and RND4K Q1T1 when present. */
function headlinePicks(headline) {
  const names = [...new Set(headline.map((x) => x.test))];
  const pref = ['SEQ1M Q8T1', 'RND4K Q1T1'].filter((n) => names.includes(n));
  if (pref.length) return pref;
  return names.length <= 2 ? names : [names[0], names.at(-1)];
}

function runMatches(run, q) {
  if (!q) return true;
  const hay = [run.id, run.profile, run.target, run.fs_type, run.hostname, run.state, ...(run.labels ?? [])]
    .filter((x) => x != null).join(' ').toLowerCase();
  return q.split(/\s+/).every((w) => hay.includes(w));
}

/** Deletes a run after the user confirms (its results and samples go too). */
async function deleteRun(run) {
  if (!window.confirm(`Delete run #${run.id} (${run.profile} on ${run.target}, ${fmtTime(run.started_at)}) with all its results? This cannot be undone.`)) return;
  try {
    await api('DELETE', `/runs/${run.id}`);
    toggleSelected(run.id, false);
    loadRuns();
  } catch (e) {
    const msg = `Could not delete run #${run.id}: ${e.message}`;
    showGlobalError(msg);
    window.alert(msg);
  }
}

function toggleSelected(id, on) {
  archive.selected = archive.selected.filter((x) => x !== id);
  if (on) archive.selected.push(id);
  const b = $('#compare-selected');
  b.disabled = archive.selected.length < 2;
  b.textContent = archive.selected.length ? `Compare selected (${archive.selected.length})` : 'Compare selected';
}

function runRow(run) {
  const hl = run.headline ?? [];
  const picks = headlinePicks(hl);
  const get = (test, rw) => hl.find((x) => x.test === test && x.rw === rw);
  const headCell = h('td', { class: 'num headline' }, picks.length ? picks.map((t) => h('div', null,
    h('span', { class: 'hl-test' }, t), ' ',
    h('span', { class: 'hl-r' }, fmtMBs(get(t, 'read')?.mb_s)), ' / ',
    h('span', { class: 'hl-w' }, fmtMBs(get(t, 'write')?.mb_s)))) : h('span', { class: 'muted' }, '–'));
  const open = () => { location.hash = `#/runs/${run.id}`; };
  return h('tr', { class: 'run-row', dataset: { runId: run.id }, tabindex: 0,
    onclick: (ev) => { if (!ev.target.closest('a')) open(); },
    onkeydown: (ev) => { if (ev.key === 'Enter') open(); } },
  h('td', { class: 'sel', onclick: (ev) => ev.stopPropagation() },
    h('input', { type: 'checkbox', class: 'run-select', 'aria-label': `select run ${run.id} to compare`,
      checked: archive.selected.includes(run.id) || undefined,
      onchange: (ev) => toggleSelected(run.id, ev.target.checked) })),
  h('td', { class: 'num' }, h('a', { href: `#/runs/${run.id}`, class: 'run-link' }, `#${run.id}`)),
  h('td', { class: 'nowrap', title: run.started_at ?? '' }, fmtTime(run.started_at)),
  h('td', null, run.profile ?? '–'),
  h('td', { class: 'path', title: run.target ?? '' }, run.target ?? '–'),
  h('td', null, run.fs_type ?? '–'),
  h('td', null, run.hostname ?? '–'),
  h('td', null, labelChips(run.labels)),
  h('td', null, stateBadge(run.state)),
  headCell,
  h('td', { onclick: (ev) => ev.stopPropagation() },
    h('button', { type: 'button', class: 'run-delete', disabled: run.state === 'running' || undefined,
      title: run.state === 'running' ? 'still running: cancel its job first' : `delete run #${run.id}`,
      onclick: () => deleteRun(run) }, 'Delete')));
}

function renderRuns() {
  const q = $('#runs-filter').value.trim().toLowerCase();
  const { runs, total } = archive;
  const shown = runs.filter((r) => runMatches(r, q));
  $('#runs-count').textContent = q ? `${shown.length} of ${runs.length} shown · ${total} total` : `${total} run${total === 1 ? '' : 's'}`;
  $('#runs-more').hidden = runs.length >= total;
  $('#runs-body').replaceChildren(...(shown.length ? shown.map(runRow)
    : [h('tr', null, h('td', { colspan: 11, class: 'muted' }, runs.length ? 'No run matches the filter.' : 'No runs archived yet.'))]));
}

export function initArchive() {
  $('#runs-filter').addEventListener('input', renderRuns);
  $('#runs-filters').addEventListener('submit', (ev) => ev.preventDefault());
  let filterTimer = 0;
  $('#runs-filters').addEventListener('input', () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => loadRuns(), 250);
  });
  loadProfiles().then((ps) => $('#dl-profiles').replaceChildren(...ps.map((p) => h('option', { value: p.name })))).catch(() => {});
  $('#compare-groups').addEventListener('click', () => {
    const q = new URLSearchParams({ group_by: $('#group-by').value });
    const vals = $('#group-values').value.split(',').map((x) => x.trim()).filter(Boolean);
    if (vals.length) q.set('values', vals.join(','));
    for (const el of $('#runs-filters').elements) {
      const v = el.value?.trim();
      if (el.name && el.name !== 'sort' && v) q.set(el.name, v);
    }
    location.hash = `#/compare?${q}`;
  });
  $('#compare-selected').addEventListener('click', () => {
    if (archive.selected.length >= 2) location.hash = `#/compare?runs=${archive.selected.join(',')}`;
  });
  $('#runs-more').addEventListener('click', () => loadRuns({ more: true }));
}
