// storbench dashboard. Plain ES module, no build step, no framework.
// Talks only to the daemon that served it (same origin, /api/v1/...).
// Chart.js is the vendored UMD build (window.Chart), loaded by index.html.

const API = '/api/v1';
const ACTIVE = new Set(['queued', 'running']);
const CDM_ORDER = ['SEQ1M Q8T1', 'SEQ1M Q1T1', 'RND4K Q32T1', 'RND4K Q1T1'];
const COLORS = { read: '#2f7ed8', write: '#e0882b', other: '#6a9f3a' };

// ---------------------------------------------------------------- helpers

const $ = (sel, root = document) => root.querySelector(sel);

/** Tiny DOM builder: h('div', {class: 'x', dataset: {a: 1}, onclick: fn}, 'text', child, ...) */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'style') el.style.cssText = v;
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'text') el.textContent = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}
function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
/** MB/s the CrystalDiskMark way: two decimals, no grouping ("1520.43"). */
export const fmtMBs = (v) => (isNum(v) ? v.toFixed(2) : '–');
const fmtFixed = (v, d = 1) => (isNum(v) ? v.toFixed(d) : '–');
const fmtInt = (v) => (isNum(v) ? Math.round(v).toLocaleString('en-US') : '–');
const fmtGB = (b) => (isNum(b) ? `${(b / 1e9).toFixed(1)} GB` : '–');
function fmtBytes(b) {
  if (!isNum(b)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0, v = b;
  while (v >= 1024 && i < units.length - 1 && Number.isInteger(v / 1024)) { v /= 1024; i++; }
  if (i === 0 && b >= 1024) { // not an exact binary multiple: approximate
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return `${v.toFixed(2)} ${units[i]}`;
  }
  return `${v} ${units[i]}`;
}
const pad2 = (n) => String(n).padStart(2, '0');
/** ISO 8601 UTC → local "YYYY-MM-DD HH:MM:SS". */
function fmtTime(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}
function fmtDuration(s) {
  if (!isNum(s) || s < 0) return '–';
  s = Math.round(s);
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  return hh ? `${hh} h ${pad2(mm)} min` : mm ? `${mm} min ${pad2(ss)} s` : `${ss} s`;
}
const secondsBetween = (a, b) => (a && b ? (new Date(b) - new Date(a)) / 1000 : NaN);
const stateBadge = (state) => h('span', { class: `badge state-${state}` }, state ?? '?');
const labelChips = (labels) =>
  (labels && labels.length ? labels.map((l) => h('span', { class: 'chip' }, l)) : [h('span', { class: 'muted' }, '–')]);

class ApiError extends Error {
  constructor(status, problem, text) {
    super(problem?.detail || problem?.title || text || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

// ---------------------------------------------------------------- access
// A daemon listening beyond loopback (or started with --require-token)
// answers 401 without "Authorization: Bearer TOKEN". The dashboard then asks
// for the token once and keeps it in this tab's sessionStorage only (gone
// when the tab closes; never in a URL, never in localStorage).

const TOKEN_KEY = 'storbench.token';
let tokenAsk = null;

/** Shows the token dialog; resolves true when a token was entered. */
function askToken(detail) {
  if (!tokenAsk) {
    tokenAsk = new Promise((resolve) => {
      const dlg = $('#token-dialog');
      $('#token-detail').textContent = detail || 'This daemon needs its API token.';
      $('#token-input').value = '';
      const done = (ok) => {
        dlg.close();
        tokenAsk = null;
        resolve(ok);
      };
      $('#token-form').onsubmit = (ev) => {
        ev.preventDefault();
        const t = $('#token-input').value.trim();
        if (t) sessionStorage.setItem(TOKEN_KEY, t);
        done(!!t);
      };
      $('#token-cancel').onclick = () => done(false);
      dlg.showModal();
      $('#token-input').focus();
    });
  }
  return tokenAsk;
}

/** fetch() with the stored token; on 401 asks for the token and retries. */
async function apiFetch(url, init = {}) {
  for (;;) {
    const headers = { ...(init.headers || {}) };
    const t = sessionStorage.getItem(TOKEN_KEY);
    if (t) headers.Authorization = `Bearer ${t}`;
    const r = await fetch(url, { ...init, headers });
    if (r.status !== 401) return r;
    let detail = '';
    try { detail = (await r.clone().json()).detail; } catch { /* not JSON */ }
    sessionStorage.removeItem(TOKEN_KEY);
    if (!(await askToken(detail))) return r;
  }
}

/** Downloads an /api/ link (CSV, an imported original) through apiFetch, so
 * the token goes in a header, not in the URL. */
async function download(href) {
  const r = await apiFetch(href);
  if (!r.ok) {
    let msg = `HTTP ${r.status}`;
    try { msg = (await r.json()).detail || msg; } catch { /* not JSON */ }
    showGlobalError(`Download failed: ${msg}`);
    return;
  }
  const cd = r.headers.get('Content-Disposition') || '';
  const m = /filename="([^"]+)"/.exec(cd);
  const url = URL.createObjectURL(await r.blob());
  const a = h('a', { href: url, download: m ? m[1] : 'storbench-download' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

async function api(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let r;
  try {
    r = await apiFetch(API + path, init);
  } catch (e) {
    throw new ApiError(0, null, `cannot reach the daemon (${e.message})`);
  }
  const text = await r.text();
  let json = null;
  if (text) { try { json = JSON.parse(text); } catch { /* not JSON */ } }
  if (!r.ok) throw new ApiError(r.status, json, text.slice(0, 300));
  return { status: r.status, json, headers: r.headers };
}

function showGlobalError(msg) {
  const el = $('#global-error');
  if (!msg) { el.hidden = true; el.textContent = ''; return; }
  el.textContent = msg;
  el.hidden = false;
}

// ---------------------------------------------------------------- profiles

let profilesPromise = null;
function loadProfiles() {
  if (!profilesPromise) {
    profilesPromise = api('GET', '/profiles')
      .then((r) => r.json?.profiles ?? [])
      .catch((e) => { profilesPromise = null; throw e; });
  }
  return profilesPromise;
}

async function fillProfileSelect() {
  const sel = $('#f-profile');
  try {
    const profiles = await loadProfiles();
    sel.replaceChildren(...profiles.map((p) =>
      h('option', { value: p.name }, p.title ? `${p.title} (${p.name})` : p.name)));
    if (profiles.some((p) => p.name === 'cdm-default')) sel.value = 'cdm-default';
    updateProfileHint();
  } catch (e) {
    sel.replaceChildren(h('option', { value: '' }, 'profiles unavailable'));
    $('#profile-hint').textContent = `Could not load profiles: ${e.message}`;
  }
}

// ---------------------------------------------------------------- SMB

const SMB_DIALECTS = ['SMB2_02', 'SMB2_10', 'SMB3_00', 'SMB3_02', 'SMB3_11'];

/** Shows the SMB fields for an smb:// target, with the stored credentials. */
async function updateSmbFields() {
  const smb = $('#f-target').value.trim().startsWith('smb://');
  const box = $('#smb-fields');
  if (box.hidden === !smb) return;
  box.hidden = !smb;
  if (!smb) return;
  for (const [id, word] of [['#f-smb-min', 'min'], ['#f-smb-max', 'max']]) {
    const sel = $(id);
    if (sel.options.length <= 1)
      sel.replaceChildren(h('option', { value: '' }, `${word}: default`),
        ...SMB_DIALECTS.map((d) => h('option', { value: d }, `${word}: ${d}`)));
  }
  const sel = $('#f-credential');
  const keep = sel.value;
  try {
    const list = (await api('GET', '/credentials')).json?.credentials ?? [];
    sel.replaceChildren(...(list.length
      ? list.map((c) => h('option', { value: c.name }, `${c.name} (${c.domain ? `${c.domain}\\` : ''}${c.user})`))
      : [h('option', { value: '' }, 'none stored')]));
    if (list.some((c) => c.name === keep)) sel.value = keep;
  } catch (e) {
    sel.replaceChildren(h('option', { value: '' }, `credentials unavailable: ${e.message}`));
  }
}

async function updateProfileHint() {
  const profiles = await loadProfiles().catch(() => []);
  const p = profiles.find((x) => x.name === $('#f-profile').value);
  const hint = $('#profile-hint');
  const custom = $('#f-profile').value === 'custom';
  $('#custom-tests').hidden = !custom;
  if (custom && !$('#custom-rows').children.length) addTestRow();
  if (custom) hint.textContent = 'Your own tests: every workload field below; names default to CrystalDiskMark style (RND4K Q32T1).';
  const opts = p?.options;
  $('#options-field').hidden = !opts;
  if (opts) {
    $('#options-hint').textContent = Object.entries(opts).map(([k, v]) => `${k}: ${v}`).join(' · ');
    $('#f-options').placeholder = OPTION_EXAMPLES[p.name] ?? '{}';
  }
  if (!p) { if (!custom) hint.textContent = ''; return; }
  if (custom) return;
  if (opts) { hint.textContent = p.title; return; }
  const names = [...new Set((p.tests ?? []).map((t) => t.test))];
  hint.textContent = names.length ? `${names.length} tests × ${[...new Set(p.tests.map((t) => t.rw))].join('/')}: ${names.join(', ')}` : '';
  const d = p.defaults ?? {};
  if (isNum(d.duration_s)) $('#f-duration').placeholder = `${d.duration_s} (profile default)`;
  if (isNum(d.interval_s)) $('#f-interval').placeholder = `${d.interval_s} (profile default)`;
}

// ---------------------------------------------------------------- job form

const OPTION_EXAMPLES = {
  'seq-sweep': '{"block_sizes": ["4KiB", "64KiB", "1MiB", "4MiB"], "queue_depth": 8}',
  'mailbox-db': '{"threads": [4, 8, 12], "database_paths": ["/mnt/db"], "log_paths": ["/mnt/log"],\n "thresholds": {"db_read_mean_ms": 20, "log_write_mean_ms": 10}}',
  'file-create': '{"sizes": ["1GiB", "4GiB", "16GiB"]}',
};

// One row of the custom profile's tests; input names are the API's field
// paths (tests[0].block_size) so a problem+json field marks its input.
const TEST_FIELDS = [
  ['name', 'Name', 'text', { placeholder: 'auto', size: 12 }],
  ['pattern', 'Pattern', ['random', 'sequential']],
  ['read_pct', 'Read %', 'number', { min: 0, max: 100, step: 1, value: 100 }],
  ['block_size', 'Block', 'text', { value: '4KiB', size: 6, title: 'bytes or 4KiB, 1MiB; a multiple of 512' }],
  ['queue_depth', 'QD', 'number', { min: 1, max: 1024, step: 1, value: 32 }],
  ['threads', 'Threads', 'number', { min: 1, max: 256, step: 1, value: 1 }],
  ['io_size', 'I/O size', 'text', { placeholder: 'time-based', size: 8, title: 'size-based: stop after this many bytes (e.g. 1GiB); empty = time-based' }],
  ['sync', 'Sync', ['none', 'dsync', 'fdatasync']],
  ['sync_every', 'Every N writes', 'number', { min: 1, max: 1000000, step: 1, placeholder: '1', title: 'fdatasync once every N writes (sync: fdatasync)' }],
];

function renumberTestRows() {
  [...$('#custom-rows').children].forEach((row, i) => {
    row.querySelector('.test-no').textContent = `#${i + 1}`;
    for (const el of row.querySelectorAll('[data-key]')) el.name = `tests[${i}].${el.dataset.key}`;
  });
}

function addTestRow() {
  const cells = TEST_FIELDS.map(([key, label, type, attrs = {}]) => {
    const input = Array.isArray(type)
      ? h('select', { dataset: { key } }, type.map((v) => h('option', { value: v }, v)))
      : h('input', { type, dataset: { key }, spellcheck: 'false', ...attrs });
    return h('label', { class: `tf tf-${key}` }, h('span', null, label), input);
  });
  const row = h('div', { class: 'test-row' }, h('span', { class: 'test-no muted' }), cells,
    h('button', { type: 'button', class: 'small', title: 'remove this test', onclick: () => { row.remove(); renumberTestRows(); } }, '×'));
  $('#custom-rows').append(row);
  renumberTestRows();
}

/** The custom tests as API objects; numbers as numbers, empty fields left out. */
function readTests() {
  const tests = [];
  for (const row of $('#custom-rows').children) {
    const t = {};
    for (const el of row.querySelectorAll('[data-key]')) {
      const key = el.dataset.key;
      const raw = el.value.trim();
      if (el.type === 'number' && el.validity.badInput) return { error: 'not a number', field: el.name };
      if (raw === '') continue;
      if (key === 'sync_every' && t.sync !== 'fdatasync') continue;
      t[key] = el.type === 'number' ? Number(raw) : (key === 'block_size' || key === 'io_size') && /^\d+$/.test(raw) ? Number(raw) : raw;
    }
    tests.push(t);
  }
  return { tests };
}

function clearFormErrors() {
  const form = $('#job-form');
  for (const el of form.querySelectorAll('.invalid')) { el.classList.remove('invalid'); el.removeAttribute('aria-invalid'); }
  for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
  $('#job-error').hidden = true;
  $('#job-error').textContent = '';
  delete $('#job-error').dataset.field;
}

function showFormError(message, field) {
  const form = $('#job-form');
  const box = $('#job-error');
  box.replaceChildren();
  if (field) {
    box.dataset.field = field;
    append(box, [h('strong', null, `Field “${field}”: `), message]);
    const input = form.elements.namedItem(field);
    if (input && input.classList) {
      input.closest('details')?.setAttribute('open', '');
      input.classList.add('invalid');
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    }
    const fe = form.querySelector(`.field-error[data-for="${CSS.escape(field)}"]`);
    if (fe) fe.textContent = message;
  } else {
    append(box, [message]);
  }
  box.hidden = false;
}

/** Build the POST body; returns {body} or {error, field} for a client-side problem. */
function readForm() {
  const f = $('#job-form').elements;
  const body = {};
  const target = f.target.value.trim();
  if (target) body.target = target;
  if (target.startsWith('smb://')) {
    if (f.credential.value) body.credential = f.credential.value;
    const smb = {};
    if (f.smb_min.value) smb.min_protocol = f.smb_min.value;
    if (f.smb_max.value) smb.max_protocol = f.smb_max.value;
    if (f.smb_signing.checked) smb.require_signing = true;
    if (f.smb_encryption.checked) smb.require_encryption = true;
    if (Object.keys(smb).length) body.smb = smb;
  }
  if (f.profile.value) body.profile = f.profile.value;
  const size = f.size.value.trim();
  if (size) body.size = /^\d+$/.test(size) ? Number(size) : size;
  for (const name of ['iterations', 'duration_s', 'interval_s']) {
    const el = f[name];
    if (el.validity.badInput) return { error: 'not a number', field: name };
    const raw = el.value.trim();
    if (raw === '') continue;
    const n = Number(raw);
    if (!Number.isFinite(n)) return { error: 'not a number', field: name };
    body[name] = n;
  }
  if (f.ramp_s.validity.badInput) return { error: 'not a number', field: 'ramp_s' };
  if (f.ramp_s.value.trim() !== '') body.ramp_s = Number(f.ramp_s.value);
  if (f.engine.value) body.engine = f.engine.value;
  if (f.data.value) body.data = f.data.value;
  if (!f.direct.checked) body.direct = false;
  if (!$('#options-field').hidden && f.options.value.trim()) {
    try {
      body.options = JSON.parse(f.options.value);
    } catch (e) {
      return { error: `not JSON: ${e.message}`, field: 'options' };
    }
  }
  if (body.profile === 'custom') {
    const { tests, error, field } = readTests();
    if (error) return { error, field };
    body.tests = tests;
  }
  const labels = f.labels.value.split(',').map((s) => s.trim()).filter(Boolean);
  if (labels.length) body.labels = labels;
  const notes = f.notes.value.trim();
  if (notes) body.notes = notes;
  return { body };
}

async function submitJob(ev) {
  ev.preventDefault();
  clearFormErrors();
  $('#job-ok').hidden = true;
  const { body, error, field } = readForm();
  if (error) { showFormError(error, field); return; }
  const btn = $('#job-submit');
  btn.disabled = true;
  try {
    const r = await api('POST', '/jobs', body);
    const job = r.json;
    const ok = $('#job-ok');
    ok.replaceChildren(`Job #${job?.id ?? '?'} queued (${job?.profile ?? body.profile ?? ''}).`);
    ok.hidden = false;
    setTimeout(() => { ok.hidden = true; }, 6000);
    pollJobsSoon();
  } catch (e) {
    if (e instanceof ApiError && e.problem) {
      const p = e.problem;
      showFormError(p.detail || p.title || `HTTP ${e.status}`, p.field);
    } else {
      showFormError(e.message);
    }
  } finally {
    btn.disabled = false;
  }
}

// ---------------------------------------------------------------- job list

const jobCards = new Map(); // id -> {el, parts, chart, samples}
let jobsTimer = null;
let jobsInFlight = false;
let lastActiveIds = new Set();

function pollJobsSoon(ms = 0) {
  clearTimeout(jobsTimer);
  jobsTimer = setTimeout(pollJobs, ms);
}

// ---------------------------------------------------------------- live events
// GET /api/v1/events (server-sent events) read through fetch, so the bearer
// token goes in a header as everywhere else. While the stream is up, job
// cards move with its "progress" events (twice a second) and a "job" event
// refreshes the list at once; the list is then polled only every 5 s. When
// the stream drops, the page polls every second again and reconnects after
// 3 s.

const lastJobs = new Map(); // id -> the job as last listed
let streamUp = false;
let streamTimer = 0;

function onEvent(name, data) {
  if (name === 'job') { pollJobsSoon(0); return; }
  if (name !== 'progress') return;
  const job = lastJobs.get(data.job_id);
  const card = jobCards.get(data.job_id);
  if (!job || !card) return;
  const live = { ...job, state: 'running', progress: data };
  lastJobs.set(job.id, live);
  updateJobCard(card, live);
}

async function liveStream() {
  clearTimeout(streamTimer);
  try {
    const r = await apiFetch(`${API}/events`, { headers: { Accept: 'text/event-stream' } });
    if (!r.ok || !r.body) throw new Error(`HTTP ${r.status}`);
    streamUp = true;
    document.body.dataset.live = 'stream';
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let name = 'message', data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) name = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) { try { onEvent(name, JSON.parse(data)); } catch { /* not JSON */ } }
      }
    }
  } catch { /* dropped: fall back to polling */ }
  streamUp = false;
  document.body.dataset.live = 'polling';
  pollJobsSoon(0);
  streamTimer = setTimeout(liveStream, 3000);
}

async function pollJobs() {
  if (jobsInFlight) return;
  jobsInFlight = true;
  let anyActive = false;
  try {
    const r = await api('GET', '/jobs?limit=50');
    const jobs = r.json?.jobs ?? [];
    for (const j of jobs) lastJobs.set(j.id, j);
    renderJobs(jobs);
    const active = new Set(jobs.filter((j) => ACTIVE.has(j.state)).map((j) => j.id));
    anyActive = active.size > 0;
    // A job has finished (or a new one has started a run): refresh the archive.
    const finished = [...lastActiveIds].some((id) => !active.has(id));
    const started = [...active].some((id) => !lastActiveIds.has(id));
    if (finished || started) { loadRuns(); pollHealth(); }
    else if (anyActive && Date.now() - runsLoadedAt > 5000) loadRuns(); // headline numbers of running runs
    lastActiveIds = active;
    $('#jobs-status').textContent = anyActive
      ? `${active.size} active · ${streamUp ? 'live' : 'updating every second'}` : '';
    showGlobalError(null);
  } catch (e) {
    $('#jobs-status').textContent = `update failed: ${e.message}`;
  } finally {
    jobsInFlight = false;
    pollJobsSoon(anyActive && !streamUp ? 1000 : 5000);
  }
}

function renderJobs(jobs) {
  const list = $('#job-list');
  if (!jobs.length) {
    list.replaceChildren(h('p', { class: 'muted' }, 'No jobs yet. Start a benchmark on the left.'));
    for (const c of jobCards.values()) c.chart?.destroy();
    jobCards.clear();
    return;
  }
  const seen = new Set();
  const ordered = [];
  // running and queued jobs first (oldest first, the order they run in), then
  // the ended ones, newest first
  const rank = (j) => (j.state === 'running' ? 0 : j.state === 'queued' ? 1 : 2);
  jobs = [...jobs].sort((a, b) => rank(a) - rank(b) || (rank(a) < 2 ? a.id - b.id : b.id - a.id));
  for (const job of jobs) {
    seen.add(job.id);
    let card = jobCards.get(job.id);
    if (!card) { card = makeJobCard(job); jobCards.set(job.id, card); }
    updateJobCard(card, job);
    ordered.push(card.el);
  }
  for (const [id, c] of jobCards) {
    if (!seen.has(id)) { c.chart?.destroy(); jobCards.delete(id); }
  }
  // Re-order without recreating nodes (keeps buttons clickable mid-poll).
  if (list.children.length !== ordered.length || ordered.some((el, i) => list.children[i] !== el)) {
    list.replaceChildren(...ordered);
  }
}

function makeJobCard(job) {
  const parts = {};
  parts.title = h('span', { class: 'job-title' });
  parts.state = h('span');
  parts.run = h('span', { class: 'job-run' });
  parts.cancel = h('button', { type: 'button', class: 'small danger', onclick: () => cancelJob(job.id, parts.cancel) }, 'Cancel');
  parts.meta = h('div', { class: 'job-meta muted' });
  parts.barFill = h('div', { class: 'bar-fill' });
  parts.bar = h('div', { class: 'bar', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100 }, parts.barFill);
  parts.progress = h('div', { class: 'job-progress' });
  parts.live = h('div', { class: 'job-live' });
  parts.error = h('div', { class: 'job-error' });
  parts.chartBox = h('div', { class: 'live-chart' });
  const el = h('div', { class: 'job', dataset: { jobId: job.id } },
    h('div', { class: 'job-head' }, parts.title, parts.state, h('span', { class: 'spacer' }), parts.run, parts.cancel),
    parts.meta, parts.bar, h('div', { class: 'job-progress-row' }, parts.progress, parts.live), parts.error, parts.chartBox);
  return { el, parts, chart: null, samples: [] };
}

function updateJobCard(card, job) {
  const { parts } = card;
  parts.title.textContent = `#${job.id} ${job.profile ?? ''}`;
  parts.state.replaceChildren(stateBadge(job.state));
  card.el.dataset.state = job.state;
  parts.run.replaceChildren(job.run_id != null
    ? h('a', { href: `#/runs/${job.run_id}`, class: 'run-link' }, `run #${job.run_id} →`) : '');
  parts.cancel.hidden = !ACTIVE.has(job.state);

  const target = job.target ?? '(scratch)';
  const labels = job.labels?.length ? ` · labels: ${job.labels.join(', ')}` : '';
  const when = job.finished_at
    ? `finished ${fmtTime(job.finished_at)} (${fmtDuration(secondsBetween(job.started_at, job.finished_at))})`
    : job.started_at ? `started ${fmtTime(job.started_at)}` : `queued ${fmtTime(job.created_at)}`;
  parts.meta.textContent = `${target} · ${fmtBytes(job.size)} × ${job.iterations ?? '?'} it × ${job.duration_s ?? '?'} s${labels} · ${when}`;

  const p = job.progress;
  let frac = job.state === 'done' ? 1 : isNum(p?.fraction) ? p.fraction : 0;
  frac = Math.max(0, Math.min(1, frac));
  parts.barFill.style.width = `${(frac * 100).toFixed(1)}%`;
  parts.bar.setAttribute('aria-valuenow', Math.round(frac * 100));
  parts.bar.className = `bar bar-${job.state}`;

  if (job.state === 'running' && p) {
    const bits = [`${Math.round(frac * 100)} %`, p.phase];
    if (p.test) bits.push(`${p.test} ${p.rw ?? ''}`.trim());
    if (isNum(p.iteration)) bits.push(`iteration ${p.iteration}/${p.iterations ?? '?'}`);
    if (isNum(p.tests_total)) bits.push(`test ${Math.min((p.tests_done ?? 0) + 1, p.tests_total)} of ${p.tests_total}`);
    parts.progress.textContent = bits.filter(Boolean).join(' · ');
    parts.live.replaceChildren(
      h('span', { class: 'live-num' }, fmtMBs(p.live_mb_s)), ' MB/s  ',
      h('span', { class: 'live-num' }, fmtFixed(p.live_iops, 0)), ' IOPS');
  } else if (job.state === 'queued') {
    parts.progress.textContent = 'waiting in queue';
    parts.live.replaceChildren();
  } else {
    parts.progress.textContent = job.state === 'done' ? '100 %' : '';
    parts.live.replaceChildren();
  }
  parts.error.textContent = job.error ?? '';
  parts.error.hidden = !job.error;
  updateLiveChart(card, job);
}

function updateLiveChart(card, job) {
  const p = job.progress;
  const measuring = job.state === 'running' && p && p.phase === 'measuring' && (isNum(p.live_mb_s) || isNum(p.live_iops));
  if (job.state !== 'running') {
    if (card.chart) { card.chart.destroy(); card.chart = null; }
    card.parts.chartBox.replaceChildren();
    card.samples = [];
    return;
  }
  if (!measuring || !window.Chart) return;
  const t = card.samples.length ? card.samples.at(-1).t + 1 : 0;
  card.samples.push({ t, mbs: p.live_mb_s ?? null, iops: p.live_iops ?? null, test: `${p.test ?? ''} ${p.rw ?? ''}` });
  if (card.samples.length > 180) card.samples.shift();
  if (!card.chart) {
    const canvas = h('canvas', { class: 'live-canvas', 'aria-label': 'live throughput' });
    card.parts.chartBox.replaceChildren(canvas);
    card.chart = new window.Chart(canvas, {
      type: 'line',
      data: { labels: [], datasets: [
        { label: 'MB/s', data: [], borderColor: COLORS.read, backgroundColor: COLORS.read, yAxisID: 'y', pointRadius: 0, borderWidth: 2, tension: 0.2 },
        { label: 'IOPS', data: [], borderColor: COLORS.write, backgroundColor: COLORS.write, yAxisID: 'y1', pointRadius: 0, borderWidth: 2, tension: 0.2 },
      ] },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        interaction: { mode: 'index', intersect: false },
        plugins: { legend: { position: 'top', align: 'end', labels: { boxWidth: 10, font: { size: 11 } } },
          tooltip: { callbacks: { title: (items) => card.samples[items[0].dataIndex]?.test ?? '' } } },
        scales: {
          x: { display: false },
          y: { beginAtZero: true, title: { display: true, text: 'MB/s', font: { size: 10 } }, ticks: { font: { size: 10 } } },
          y1: { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: 'IOPS', font: { size: 10 } }, ticks: { font: { size: 10 } } },
        },
      },
    });
  }
  const c = card.chart;
  c.data.labels = card.samples.map((s) => s.t);
  c.data.datasets[0].data = card.samples.map((s) => s.mbs);
  c.data.datasets[1].data = card.samples.map((s) => s.iops);
  c.update('none');
}

async function cancelJob(id, btn) {
  if (!confirm(`Cancel job #${id}?`)) return;
  btn.disabled = true;
  try {
    await api('DELETE', `/jobs/${id}`);
  } catch (e) {
    showGlobalError(`Cancel job #${id}: ${e.message}`);
  } finally {
    btn.disabled = false;
    pollJobsSoon();
  }
}

// ---------------------------------------------------------------- archive

let runs = [];
let runsTotal = 0;
let runsLoading = false;
let runsLoadedAt = 0;

async function loadRuns({ more = false } = {}) {
  if (runsLoading) return;
  runsLoading = true;
  try {
    const offset = more ? runs.length : 0;
    const q = new URLSearchParams({ limit: '100', offset: String(offset) });
    for (const el of $('#runs-filters').elements) {
      const v = el.value?.trim();
      if (el.name && v && !(el.name === 'sort' && v === '-id')) q.set(el.name, v);
    }
    const t0 = performance.now();
    const r = await api('GET', `/runs?${q}`);
    $('#archive').dataset.loadMs = String(Math.round(performance.now() - t0));
    const got = r.json?.runs ?? [];
    runs = more ? runs.concat(got) : got;
    runsTotal = isNum(r.json?.total) ? r.json.total : runs.length;
    runsLoadedAt = Date.now();
    renderRuns();
  } catch (e) {
    $('#runs-body').replaceChildren(h('tr', null, h('td', { colspan: 11, class: 'error-text' }, `Could not load runs: ${e.message}`)));
  } finally {
    runsLoading = false;
  }
}

/** Pick up to two tests to show as headline: SEQ1M Q8T1 and RND4K Q1T1 when present. */
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

/** Imports the picked files and the pasted text, one POST each, and lists
 * what became of each. */
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
      li = r.ok ? h('li', { class: 'ok' }, `${it.name}: `, j.duplicate ? 'already imported as ' : 'imported as ',
        h('a', { href: `#/runs/${j.id}` }, `run #${j.id}`), ` (${j.import.tool} ${j.import.version}, ${j.tests.length} tests)`)
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

// Runs ticked in the archive, in the order ticked: the first is the baseline.
let selectedRuns = [];

function toggleSelected(id, on) {
  selectedRuns = selectedRuns.filter((x) => x !== id);
  if (on) selectedRuns.push(id);
  const b = $('#compare-selected');
  b.disabled = selectedRuns.length < 2;
  b.textContent = selectedRuns.length ? `Compare selected (${selectedRuns.length})` : 'Compare selected';
}

function renderRuns() {
  const q = $('#runs-filter').value.trim().toLowerCase();
  const shown = runs.filter((r) => runMatches(r, q));
  const body = $('#runs-body');
  $('#runs-count').textContent = q ? `${shown.length} of ${runs.length} shown · ${runsTotal} total` : `${runsTotal} run${runsTotal === 1 ? '' : 's'}`;
  $('#runs-more').hidden = runs.length >= runsTotal;
  if (!shown.length) {
    body.replaceChildren(h('tr', null, h('td', { colspan: 11, class: 'muted' }, runs.length ? 'No run matches the filter.' : 'No runs archived yet.')));
    return;
  }
  body.replaceChildren(...shown.map((run) => {
    const hl = run.headline ?? [];
    const picks = headlinePicks(hl);
    const get = (test, rw) => hl.find((x) => x.test === test && x.rw === rw);
    const headCell = h('td', { class: 'num headline' }, picks.length ? picks.map((t) => h('div', null,
      h('span', { class: 'hl-test' }, t), ' ',
      h('span', { class: 'hl-r' }, fmtMBs(get(t, 'read')?.mb_s)), ' / ',
      h('span', { class: 'hl-w' }, fmtMBs(get(t, 'write')?.mb_s)))) : h('span', { class: 'muted' }, '–'));
    return h('tr', { class: 'run-row', dataset: { runId: run.id }, tabindex: 0,
      onclick: (ev) => { if (!ev.target.closest('a')) location.hash = `#/runs/${run.id}`; },
      onkeydown: (ev) => { if (ev.key === 'Enter') location.hash = `#/runs/${run.id}`; } },
    h('td', { class: 'sel', onclick: (ev) => ev.stopPropagation() },
      h('input', { type: 'checkbox', class: 'run-select', 'aria-label': `select run ${run.id} to compare`,
        checked: selectedRuns.includes(run.id) || undefined,
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
  }));
}

// ---------------------------------------------------------------- compare page

const SIDE_COLORS = ['#7f8c8d', '#2f7ed8', '#e0882b', '#6a9f3a', '#8e44ad', '#c0392b', '#16a085', '#d4ac0d',
  '#1abc9c', '#34495e', '#e84393', '#6c5ce7', '#00b894', '#b35900', '#0984e3', '#636e72'];
const METRIC_WORDS = {
  mb_s: 'MB/s', iops: 'IOPS', lat_mean_us: 'mean latency (µs)', lat_p99_us: 'p99 latency (µs)',
  seconds: 'seconds', transactional_iops: 'transactional IOPS', db_read_mean_ms: 'db read mean (ms)',
  db_read_p99_ms: 'db read p99 (ms)', db_write_mean_ms: 'db write mean (ms)',
  log_write_mean_ms: 'log write mean (ms)', log_write_p99_ms: 'log write p99 (ms)',
};
let compareCharts = [];

function stopCompareView() {
  for (const c of compareCharts) c.destroy();
  compareCharts = [];
}

const fmtMetric = (m, v) => (!isNum(v) ? '–' : ['seconds', 'db_read_mean_ms', 'db_read_p99_ms', 'db_write_mean_ms',
  'log_write_mean_ms', 'log_write_p99_ms'].includes(m) ? v.toFixed(3) : m === 'mb_s' ? v.toFixed(2)
  : m.startsWith('lat_') ? v.toFixed(1) : fmtInt(v));
const fmtPct = (v) => (isNum(v) ? `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(1)} %` : '–');
const fmtP = (p) => (!isNum(p) ? '–' : p < 0.001 ? p.toExponential(1) : p.toFixed(3));

async function showCompare(query) {
  stopCompareView();
  const root = $('#compare-root');
  root.replaceChildren(h('section', { class: 'card' }, h('p', { class: 'muted' }, 'comparing…')));
  let c;
  try {
    const r = await api('GET', `/compare?${query}`);
    c = r.json;
  } catch (e) {
    root.replaceChildren(h('section', { class: 'card' }, h('h2', null, 'Comparison'),
      h('p', { class: 'error-text', id: 'compare-error' }, e.message)));
    return;
  }
  renderCompare(root, c, query);
}

function renderCompare(root, c, query) {
  const n = c.sides.length;
  const sideHead = (s, i) => h('li', null, h('span', { class: 'swatch', style: `background:${SIDE_COLORS[i % SIDE_COLORS.length]}` }),
    h('b', null, s.label), i === 0 ? h('span', { class: 'muted' }, ' (baseline)') : '', ' — ',
    s.runs.map((r, k) => [k ? ', ' : '', h('a', { href: `#/runs/${r.id}` }, `#${r.id}`),
      r.fs_type ? h('span', { class: 'muted' }, ` ${r.fs_type}`) : '']));
  const head = h('section', { class: 'card' },
    h('div', { class: 'card-head' }, h('h2', null, 'Comparison'),
      h('a', { class: 'button', id: 'compare-permalink', href: `#/compare?${query}` }, 'Permalink'),
      h('a', { class: 'button', href: `/api/v1/compare?${query}`, target: '_blank', rel: 'noopener' }, 'JSON'),
      h('a', { class: 'button', id: 'compare-csv', href: `/api/v1/compare?${query}&format=csv` }, 'CSV')),
    h('ul', { class: 'sides' }, c.sides.map(sideHead)),
    h('div', { id: 'compare-verdicts' }, c.verdicts.map((v) => h('p', { class: 'verdict' }, v.text))),
    (c.warnings ?? []).map((w) => h('p', { class: 'warning-text' }, w)),
    c.tests.some((t) => t.not_like_for_like?.some(Boolean)) ? h('p', { class: 'warning-text', id: 'compare-unlike' },
      'Not like for like (same name, different workload; marked ≠ and not judged): ',
      c.tests.filter((t) => t.not_like_for_like?.some(Boolean)).map((t) => `${t.test} ${t.rw}: ${t.not_like_for_like.filter(Boolean).join('; ')}`).join(' · ')) : '',
    c.unmatched.length ? h('p', { class: 'muted', id: 'compare-unmatched' }, 'Not on every side: ',
      c.unmatched.map((u) => `${u.test} ${u.rw} (on ${u.present.map((p, i) => (p ? c.sides[i].label : null)).filter(Boolean).join(', ')})`).join('; ')) : '');

  // grouped bars: one chart per headline metric, a bar per side
  const groups = new Map();
  for (const t of c.tests) {
    if (!groups.has(t.headline)) groups.set(t.headline, []);
    groups.get(t.headline).push(t);
  }
  const charts = h('section', { class: 'card' }, h('h2', null, 'Headline per test (mean over iterations)'));
  const toDraw = [];
  for (const [metric, tests] of groups) {
    const canvas = h('canvas', { class: 'compare-bars', dataset: { metric } });
    charts.append(h('h3', null, METRIC_WORDS[metric] ?? metric), h('div', { class: 'chart-box' }, canvas));
    toDraw.push(() => {
      const data = (i) => tests.map((t) => t.metrics.find((m) => m.metric === metric)?.sides[i]?.mean ?? null);
      compareCharts.push(new window.Chart(canvas, {
        type: 'bar',
        data: { labels: tests.map((t) => `${t.test} ${t.rw}`),
          datasets: c.sides.map((s, i) => ({ label: s.label, data: data(i), backgroundColor: SIDE_COLORS[i % SIDE_COLORS.length] })) },
        options: { responsive: true, maintainAspectRatio: false, transitions: { resize: { animation: { duration: 0 } } },
          animation: { duration: 200, onComplete: () => { canvas.dataset.rendered = '1'; } },
          plugins: { legend: { position: 'top' } },
          scales: { y: { beginAtZero: true, title: { display: true, text: METRIC_WORDS[metric] ?? metric } }, x: { grid: { display: false } } } },
      }));
    });
  }

  // sweeps: the headline against the swept value, a line per side
  const sweeps = new Map();
  for (const t of c.tests.filter((x) => x.sweep)) {
    const key = `${t.sweep.group} ${t.rw}`;
    if (!sweeps.has(key)) sweeps.set(key, []);
    sweeps.get(key).push(t);
  }
  for (const [key, tests] of sweeps) {
    const canvas = h('canvas', { class: 'compare-sweep' });
    const field = tests[0].sweep.field;
    charts.append(h('h3', null, `Sweep: ${key} (${METRIC_WORDS[tests[0].headline] ?? tests[0].headline} against ${field})`),
      h('div', { class: 'chart-box' }, canvas));
    toDraw.push(() => compareCharts.push(new window.Chart(canvas, {
      type: 'line',
      data: { datasets: c.sides.map((s, i) => ({ label: s.label, borderColor: SIDE_COLORS[i % SIDE_COLORS.length],
        backgroundColor: SIDE_COLORS[i % SIDE_COLORS.length], tension: 0,
        data: tests.map((t) => ({ x: t.sweep.value, y: t.metrics.find((m) => m.metric === t.headline)?.sides[i]?.mean ?? null }))
          .sort((p, q) => p.x - q.x) })) },
      options: { responsive: true, maintainAspectRatio: false, transitions: { resize: { animation: { duration: 0 } } },
        animation: { duration: 150, onComplete: () => { canvas.dataset.rendered = '1'; } },
        scales: { x: { type: field === 'block_size' ? 'logarithmic' : 'linear', title: { display: true, text: field } },
          y: { beginAtZero: true, title: { display: true, text: METRIC_WORDS[tests[0].headline] ?? '' } } } },
    })));
  }

  // mailbox-db: PASS/FAIL of each side at each thread count
  const mbx = c.tests.filter((t) => t.kind === 'mailbox');
  if (mbx.length) {
    head.append(h('p', { id: 'compare-mailbox' }, 'Mailbox PASS/FAIL: ', mbx.map((t, k) => [k ? '; ' : '', `${t.test}: `,
      c.sides.map((s, i) => `${s.label} ${(t.mailbox_verdicts[i] ?? []).join('/') || '–'}`).join(', ')])));
  }

  // the delta table: a row per test and metric
  const rows = [];
  for (const t of c.tests) {
    for (const m of t.metrics) {
      const cells = [h('td', null, t.test), h('td', null, t.rw), h('td', null, METRIC_WORDS[m.metric] ?? m.metric)];
      m.sides.forEach((sv, i) => cells.push(h('td', { class: 'num' }, sv ? `${fmtMetric(m.metric, sv.mean)}${isNum(sv.sd) ? ` ± ${fmtMetric(m.metric, sv.sd)}` : ''}` : '–',
        sv ? h('span', { class: 'muted' }, ` n=${sv.n}`) : '')));
      for (let i = 1; i < n; i++) {
        const v = m.vs_baseline[i];
        const unlike = t.not_like_for_like?.[i];
        const cls = !v ? '' : unlike ? 'unlike' : v.verdict === 'significant' ? (v.better ? 'better' : 'worse') : v.verdict === 'within noise' ? 'noise' : 'untested';
        const signed = (x) => (isNum(x) ? `${x > 0 ? '+' : x < 0 ? '−' : ''}${fmtMetric(m.metric, Math.abs(x))}` : '–');
        cells.push(h('td', { class: `num delta ${cls}`, dataset: { side: i, verdict: v?.verdict ?? '' },
          title: unlike ? `not like for like: ${unlike}` : undefined },
          v ? `${signed(v.delta)} (${fmtPct(v.delta_pct)})${unlike ? ' ≠' : ''}` : '–'),
        h('td', { class: `num ${cls}` }, v ? fmtP(v.p) : '–'),
        h('td', { class: cls }, v?.verdict ?? '–'));
      }
      rows.push(h('tr', { class: m.metric === t.headline ? 'headline-row' : '', dataset: { test: t.test, rw: t.rw, metric: m.metric } }, cells));
    }
  }
  const headCells = [h('th', null, 'Test'), h('th', null, 'rw'), h('th', null, 'Metric'),
    ...c.sides.map((s) => h('th', { class: 'num' }, `${s.label} mean ± sd`))];
  for (let i = 1; i < n; i++) headCells.push(h('th', { class: 'num' }, `Δ ${c.sides[i].label}`), h('th', { class: 'num' }, 'p'), h('th', null, 'Welch'));
  const table = h('section', { class: 'card' }, h('h2', null, 'Deltas against the baseline'),
    h('p', { class: 'muted' }, `Welch's t-test, p < ${c.rules.alpha} is significant; needs ≥ ${c.rules.min_iterations} iterations per side. Green better, red worse, grey within noise.`),
    h('div', { class: 'table-wrap' }, h('table', { class: 'compare', id: 'compare-table' }, h('thead', null, h('tr', null, headCells)), h('tbody', null, rows))));

  // per-second overlay and latency percentiles for one chosen test
  // imported results have no per-second samples or latency histograms
  const ioTests = c.sides.some((sd) => sd.runs.some((r) => !r.imported)) ? c.tests.filter((t) => t.kind === 'io') : [];
  const pick = h('select', { id: 'compare-test' }, ioTests.map((t) => h('option', { value: `${t.test}\u001f${t.rw}` }, `${t.test} ${t.rw}`)));
  const secCanvas = h('canvas', { id: 'compare-seconds' });
  const latCanvas = h('canvas', { id: 'compare-latency' });
  const detail = h('section', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'One test, side by side'), pick),
    h('h3', null, 'MB/s per second (first run of each side, iteration 1)'), h('div', { class: 'chart-box' }, secCanvas),
    h('h3', null, 'Latency percentiles (µs, all iterations merged)'), h('div', { class: 'chart-box' }, latCanvas));
  root.replaceChildren(head, charts, table, ioTests.length ? detail : '');
  for (const d of toDraw) d();
  if (ioTests.length) {
    const draw = () => drawCompareDetail(c, pick.value.split('\u001f'), secCanvas, latCanvas);
    pick.addEventListener('change', draw);
    draw();
  }
}

async function drawCompareDetail(c, [test, rw], secCanvas, latCanvas) {
  const firstRuns = c.sides.map((s) => s.runs[0]?.id);
  const [samples, runsFull] = await Promise.all([
    Promise.all(firstRuns.map((id) => api('GET', `/runs/${id}/samples`).then((r) => r.json.samples).catch(() => []))),
    Promise.all(firstRuns.map((id) => api('GET', `/runs/${id}`).then((r) => r.json).catch(() => null))),
  ]);
  for (const ch of compareCharts.filter((x) => x.canvas === secCanvas || x.canvas === latCanvas)) ch.destroy();
  compareCharts = compareCharts.filter((x) => x.canvas !== secCanvas && x.canvas !== latCanvas);
  const color = (i) => SIDE_COLORS[i % SIDE_COLORS.length];
  compareCharts.push(new window.Chart(secCanvas, {
    type: 'line',
    data: { datasets: samples.map((ss, i) => ({ label: c.sides[i].label, borderColor: color(i), backgroundColor: color(i),
      data: ss.filter((x) => x.test === test && x.rw === rw && x.iteration === 1)
        .map((x) => ({ x: x.t_s, y: (x.read?.mb_s ?? 0) + (x.write?.mb_s ?? 0) })), pointRadius: 2, tension: 0 })) },
    options: { responsive: true, maintainAspectRatio: false, transitions: { resize: { animation: { duration: 0 } } },
      animation: { duration: 150, onComplete: () => { secCanvas.dataset.rendered = '1'; } },
      scales: { x: { type: 'linear', min: 0, title: { display: true, text: 's' } }, y: { beginAtZero: true, title: { display: true, text: 'MB/s' } } } },
  }));
  const pcts = ['p50', 'p90', 'p99', 'p99.9', 'p99.99'];
  compareCharts.push(new window.Chart(latCanvas, {
    type: 'line',
    data: { labels: pcts, datasets: runsFull.map((r, i) => {
      const t = r?.tests.find((x) => x.test === test && x.rw === rw);
      return { label: c.sides[i].label, borderColor: color(i), backgroundColor: color(i),
        data: pcts.map((p) => t?.latency_us?.[p] ?? null), tension: 0 };
    }) },
    options: { responsive: true, maintainAspectRatio: false, transitions: { resize: { animation: { duration: 0 } } },
      animation: { duration: 150, onComplete: () => { latCanvas.dataset.rendered = '1'; } },
      scales: { y: { type: 'logarithmic', title: { display: true, text: 'µs' } } } },
  }));
}

// ---------------------------------------------------------------- run page

let runChart = null;
let samplesChart = null;
let runTimer = null;
let currentRunId = null;

function stopRunView() {
  clearTimeout(runTimer);
  runTimer = null;
  currentRunId = null;
  if (runChart) { runChart.destroy(); runChart = null; }
  if (samplesChart) { samplesChart.destroy(); samplesChart = null; }
}

async function showRun(id, { refresh = false } = {}) {
  const root = $('#run-root');
  if (!refresh) {
    stopRunView();
    currentRunId = id;
    root.replaceChildren(h('p', { class: 'muted' }, `Loading run #${id}…`));
  }
  let run, profiles = [];
  try {
    [run, profiles] = await Promise.all([
      api('GET', `/runs/${id}`).then((r) => r.json),
      loadProfiles().catch(() => []),
    ]);
  } catch (e) {
    if (currentRunId !== id) return;
    if (!refresh) {
      root.replaceChildren(h('div', { class: 'card' },
        h('h2', null, `Run #${id}`),
        h('p', { class: 'error-text' }, e.status === 404 ? `There is no run #${id}.` : `Could not load run #${id}: ${e.message}`),
        h('p', null, h('a', { href: '#/' }, '← back to the archive'))));
    } else {
      runTimer = setTimeout(() => showRun(id, { refresh: true }), 3000);
    }
    return;
  }
  if (currentRunId !== id) return; // navigated away meanwhile
  let job = null;
  if (run.state !== 'done' && run.job_id != null) { // live progress, or why the run ended early
    job = await api('GET', `/jobs/${run.job_id}`).then((r) => r.json).catch(() => null);
    if (currentRunId !== id) return;
  }
  renderRun(run, profiles, { job, refresh });
  if (ACTIVE.has(run.state)) {
    runTimer = setTimeout(() => showRun(id, { refresh: true }), 2000);
  }
}

/** Rows (test names) and columns (rw) for the tile grid. */
function tileLayout(run, profiles) {
  const tests = run.tests ?? [];
  const prof = profiles.find((p) => p.name === run.profile);
  const planned = prof?.tests ?? [];
  const names = [];
  for (const t of [...planned, ...tests]) if (!names.includes(t.test)) names.push(t.test);
  const rws = new Set([...planned, ...tests].map((t) => t.rw));
  const cols = ['read', 'write'].filter((x) => rws.has(x));
  for (const rw of rws) if (!cols.includes(rw)) cols.push(rw);
  if (!cols.length) cols.push('read', 'write');
  return { names, cols };
}

function splitTestName(name) {
  const m = /^(\S+)\s+(.+)$/.exec(name ?? '');
  return m ? [m[1], m[2]] : [name ?? '', ''];
}

function renderRun(run, profiles, { job = null, refresh = false } = {}) {
  const root = $('#run-root');
  const tests = run.tests ?? [];
  const find = (test, rw) => tests.find((t) => t.test === test && t.rw === rw);
  const { names, cols } = tileLayout(run, profiles);
  const maxMbs = Math.max(1e-9, ...tests.map((t) => t.best?.mb_s ?? 0));

  // --- header
  const dur = secondsBetween(run.started_at, run.finished_at);
  const head = h('div', { class: 'run-head' },
    h('div', null,
      h('a', { href: '#/', class: 'back' }, '← Archive'),
      h('h1', null, `Run #${run.id} `, h('span', { class: 'muted' }, run.profile ?? ''), ' ', stateBadge(run.state)),
      h('div', { class: 'run-sub' },
        h('span', { class: 'path' }, run.target ?? '–'), ' · ',
        run.probe?.hostname ?? '–', ' · ', run.probe?.fs_type ?? '–', ' · ',
        `started ${fmtTime(run.started_at)}`,
        run.finished_at ? ` · finished ${fmtTime(run.finished_at)} (${fmtDuration(dur)})` : '',
        run.job_id != null ? ` · job #${run.job_id}` : ''),
      h('div', { class: 'run-labels' }, labelChips(run.labels))),
    h('span', { class: 'spacer' }),
    h('a', { class: 'button', href: `${API}/runs/${run.id}`, target: '_blank', rel: 'noopener' }, 'JSON'),
    h('a', { class: 'button', href: `${API}/runs/${run.id}?format=csv`, id: 'run-csv' }, 'CSV'));

  // --- tiles
  const grid = h('div', { class: 'tiles', style: `grid-template-columns: 8.5rem repeat(${cols.length}, 1fr)` },
    h('div', { class: 'tiles-corner' }, h('span', null, 'best of'), h('span', null, `${run.spec?.iterations ?? run.spec?.imported?.best_of ?? '?'} it.`)),
    cols.map((rw) => h('div', { class: `tiles-colhead rw-${rw}` }, `${rw[0].toUpperCase()}${rw.slice(1)} `, h('span', { class: 'unit' }, '[MB/s]'))));
  for (const name of names) {
    const [a, b] = splitTestName(name);
    grid.append(h('div', { class: 'tile-rowhead' }, h('strong', null, a), h('span', null, b)));
    for (const rw of cols) {
      const t = find(name, rw);
      const best = t?.best;
      const pct = best && isNum(best.mb_s) ? Math.min(100, (best.mb_s / maxMbs) * 100) : 0;
      const planned = !t && (profiles.find((p) => p.name === run.profile)?.tests ?? []).some((x) => x.test === name && x.rw === rw);
      const active = job?.progress && job.progress.test === name && job.progress.rw === rw;
      grid.append(h('div', {
        class: `tile rw-${rw}${best ? '' : ' tile-empty'}${active ? ' tile-active' : ''}`,
        dataset: { test: name, rw },
        title: best ? `${name} ${rw}: best iteration ${best.iteration}` : planned ? 'not measured' : 'not part of this profile',
      },
      h('div', { class: 'tile-mbs' }, best ? fmtMBs(best.mb_s) : '–'),
      h('div', { class: 'tile-small' },
        h('span', null, best ? `${fmtFixed(best.iops, 1)} IOPS` : ''),
        h('span', null, best ? `${fmtFixed(best.lat_mean_us, 1)} µs` : '')),
      h('div', { class: 'tile-gauge' }, h('div', { style: `width:${pct.toFixed(1)}%` }))));
    }
  }

  // --- chart
  const canvas = h('canvas', { id: 'run-chart', 'aria-label': 'MB/s per test, read and write' });
  const chartCard = h('section', { class: 'card chart-card' },
    h('h2', null, 'Throughput per test ', h('span', { class: 'unit' }, '(MB/s, best iteration)')),
    h('div', { class: 'chart-box' }, canvas));

  // --- details
  const probe = run.probe ?? {};
  const spec = run.spec ?? {};
  const eng = run.engine ?? {};
  const kv = (rows) => h('dl', { class: 'kv' }, rows.map(([k, v, title]) => [h('dt', null, k), h('dd', { title: title ?? null }, v ?? '–')]));
  const yesNo = (v) => (v === true ? 'yes' : v === false ? 'no' : '–');
  // fields the page has no special place for: shown with a readable name
  const extraRows = (obj, known) => Object.entries(obj).filter(([k]) => !known.includes(k)).map(([k, v]) => [
    k === 'direct_requested' ? 'Direct I/O requested' : k.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()),
    typeof v === 'boolean' ? yesNo(v) : v !== null && typeof v === 'object' ? JSON.stringify(v) : v == null ? '–' : String(v)]);
  const probeCard = h('section', { class: 'card' }, h('h2', null, 'Probe snapshot'), kv([
    ['Hostname', probe.hostname],
    ['Kernel', probe.kernel],
    ['Filesystem', probe.fs_type],
    ['FS block size', isNum(probe.fs_block_size) ? `${fmtInt(probe.fs_block_size)} B` : null],
    ['Mount point', probe.mount_point],
    ['Mount options', probe.mount_options],
    ['Device', probe.device ? `${probe.device}${probe.disk ? ` (${probe.disk})` : ''}` : probe.disk],
    ['Model', probe.device_model],
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
  const specCard = h('section', { class: 'card' }, h('h2', null, 'Spec & engine'), kv([
    ['Test file size', isNum(spec.size) ? `${fmtBytes(spec.size)}` : null, isNum(spec.size) ? `${spec.size} B` : null],
    ['Iterations', spec.iterations],
    ['Duration', isNum(spec.duration_s) ? `${spec.duration_s} s per iteration` : null],
    ['Interval', isNum(spec.interval_s) ? `${spec.interval_s} s between tests` : null],
    ...(run.import ? [
      ['Imported from', `${run.import.tool} ${run.import.version}${spec.imported?.best_of ? ` (each number the best of ${spec.imported.best_of})` : ''}`],
      ['Original file', h('a', { href: run.import.original, id: 'run-original' }, run.import.filename || 'download')],
    ] : []),
    ...(spec.smb ? [['SMB session', `credential ${spec.smb.credential}; protocol ${spec.smb.min_protocol ?? 'default'} … ${spec.smb.max_protocol ?? 'default'}; signing ${spec.smb.require_signing ? 'required' : 'as negotiated'}; encryption ${spec.smb.require_encryption ? 'required' : 'as negotiated'}`]] : []),
    ...extraRows(spec, ['size', 'iterations', 'duration_s', 'interval_s', 'profile', 'tests', 'smb', 'imported']),
    ['Engine version', eng.version],
    ['I/O back-end', eng.target],
    ['Direct I/O', eng.direct === false ? h('span', { class: 'warn-text' }, 'no (buffered)') : yesNo(eng.direct)],
    ...extraRows(eng, ['version', 'target', 'direct']),
  ]));
  const warnings = run.warnings ?? [];
  const notesCard = h('section', { class: 'card' },
    h('h2', null, 'Warnings'),
    warnings.length
      ? h('ul', { class: 'warnings' }, warnings.map((w) => h('li', null, typeof w === 'string' ? w : (w.message ?? w.detail ?? JSON.stringify(w)))))
      : h('p', { class: 'muted' }, 'None.'),
    h('h2', null, 'Labels'), h('div', null, labelChips(run.labels)),
    h('h2', null, 'Notes'), run.notes ? h('p', { class: 'notes' }, run.notes) : h('p', { class: 'muted' }, 'None.'));

  // --- per-second samples
  const samplesCanvas = h('canvas', { id: 'samples-chart', 'aria-label': 'MB/s per second of every test' });
  const samplesCard = h('section', { class: 'card' },
    h('h2', null, 'Per second ', h('span', { class: 'unit' }, '(MB/s in each second of every iteration, in the order measured; the short last second of an iteration is not drawn)')),
    h('div', { class: 'chart-box' }, samplesCanvas));

  // --- iterations table
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
        h('td', { class: 'num' }, it.latency_us ? fmtFixed(it.latency_us.p50, 1) : '–'),
        h('td', { class: 'num' }, it.latency_us ? fmtFixed(it.latency_us.p99, 1) : '–'),
        h('td', { class: 'num' }, it.latency_us ? fmtFixed(it.latency_us['p99.9'], 1) : '–'),
        h('td', { class: 'num' }, it.latency_us ? fmtFixed(it.latency_us.max, 1) : '–'),
        h('td', { class: 'num' }, fmtInt(it.ios)),
        h('td', { class: 'num' }, fmtInt(it.bytes)),
        h('td', { class: 'num' }, fmtFixed(it.seconds, 3))));
    }
  }
  const iterCard = h('section', { class: 'card' },
    h('h2', null, 'Every iteration'),
    h('p', { class: 'muted small' }, 'Test parameters: ', tests.length ? [...new Map(tests.map((t) => [t.test, t])).values()].map((t) =>
      `${t.test} = ${t.pattern ?? '?'} ${fmtBytes(t.block_size)}, QD ${t.queue_depth ?? '?'}, ${t.threads ?? '?'} thread${t.threads === 1 ? '' : 's'}`).join(' · ') : '–'),
    h('div', { class: 'table-wrap' }, h('table', { class: 'iters', id: 'iter-table' },
      h('thead', null, h('tr', null,
        h('th', null, 'Test'), h('th', null, 'R/W'), h('th', { class: 'num' }, 'Iteration'),
        h('th', { class: 'num' }, 'MB/s'), h('th', { class: 'num' }, 'MiB/s'), h('th', { class: 'num' }, 'IOPS'),
        h('th', { class: 'num' }, 'Mean lat. (µs)'), h('th', { class: 'num' }, 'p50 (µs)'), h('th', { class: 'num' }, 'p99 (µs)'),
        h('th', { class: 'num' }, 'p99.9 (µs)'), h('th', { class: 'num' }, 'Max (µs)'),
        h('th', { class: 'num' }, 'I/Os'), h('th', { class: 'num' }, 'Bytes (B)'),
        h('th', { class: 'num' }, 'Window (s)'))),
      h('tbody', null, rows.length ? rows : h('tr', null, h('td', { colspan: 14, class: 'muted' }, 'No iteration measured yet.'))))));

  // --- latency over every iteration of a test (merged histograms)
  const latRows = tests.filter((t) => t.latency_us).map((t) => {
    const l = t.latency_us;
    return h('tr', null, h('td', null, t.test), h('td', null, t.rw),
      h('td', { class: 'num' }, fmtInt(l.ios)),
      ['mean', 'stdev', 'min', 'p50', 'p90', 'p99', 'p99.9', 'p99.99', 'max'].map((k) => h('td', { class: 'num' }, fmtFixed(l[k], 1))));
  });
  const latCard = h('section', { class: 'card' },
    h('h2', null, 'Latency over all iterations ', h('span', { class: 'unit' }, '(µs; each I/O from its slot freeing to its completion, histograms of every iteration merged)')),
    h('div', { class: 'table-wrap' }, h('table', { class: 'iters', id: 'latency-table' },
      h('thead', null, h('tr', null, h('th', null, 'Test'), h('th', null, 'R/W'), h('th', { class: 'num' }, 'I/Os'),
        ['Mean', 'Stdev', 'Min', 'p50', 'p90', 'p99', 'p99.9', 'p99.99', 'Max'].map((k) => h('th', { class: 'num' }, k)))),
      h('tbody', null, latRows.length ? latRows : h('tr', null, h('td', { colspan: 12, class: 'muted' }, 'No latency distribution stored for this run.'))))));

  // --- the plan: every test as it was asked for
  const plan = Array.isArray(spec.tests) ? spec.tests : [];
  const planCard = plan.length ? h('section', { class: 'card' },
    h('h2', null, 'Tests as planned'),
    h('div', { class: 'table-wrap' }, h('table', { class: 'iters', id: 'plan-table' },
      h('thead', null, h('tr', null, ['Name', 'Pattern', 'Read %', 'Block', 'QD', 'Threads', 'Duration / size', 'Ramp (s)', 'Sync', 'Data'].map((k) => h('th', null, k)))),
      h('tbody', null, plan.map((t) => h('tr', null,
        h('td', null, t.name), h('td', null, t.pattern), h('td', { class: 'num' }, t.read_pct),
        h('td', { class: 'num' }, fmtBytes(t.block_size)), h('td', { class: 'num' }, t.queue_depth), h('td', { class: 'num' }, t.threads),
        h('td', null, t.io_size > 0 ? `${fmtBytes(t.io_size)} of I/O` : `${t.duration_s} s`),
        h('td', { class: 'num' }, t.ramp_s), h('td', null, t.sync === 'fdatasync' ? `fdatasync every ${t.sync_every}` : t.sync),
        h('td', null, t.data))))))) : '';

  const presetCard = presetView(run);

  const tilesCard = h('section', { class: 'card tiles-card' },
    h('h2', null, 'Results ', h('span', { class: 'unit' }, '(best iteration · MB/s = 10⁶ B/s · IOPS · mean latency µs)')), grid);

  // --- live progress of the job while the run is being measured
  let live = '';
  if (job && ACTIVE.has(job.state)) {
    const p = job.progress;
    const frac = Math.max(0, Math.min(1, isNum(p?.fraction) ? p.fraction : 0));
    live = h('div', { class: 'card run-live' },
      h('div', { class: 'run-live-text' },
        h('strong', null, job.state === 'queued' ? 'Queued' : `${Math.round(frac * 100)} %`), ' ',
        p ? [p.phase, p.test ? `${p.test} ${p.rw ?? ''}` : null, isNum(p.iteration) ? `iteration ${p.iteration}/${p.iterations ?? '?'}` : null]
          .filter(Boolean).join(' · ') : '',
        h('span', { class: 'spacer' }),
        p && isNum(p.live_mb_s) ? [h('span', { class: 'live-num' }, fmtMBs(p.live_mb_s)), ' MB/s  ', h('span', { class: 'live-num' }, fmtFixed(p.live_iops, 0)), ' IOPS'] : ''),
      h('div', { class: `bar bar-${job.state}` }, h('div', { class: 'bar-fill', style: `width:${(frac * 100).toFixed(1)}%; transition:none` })));
  }

  let ended = '';
  if (['failed', 'interrupted', 'cancelled'].includes(run.state)) {
    const why = job?.error ? `: ${job.error}` : '';
    ended = h('div', { class: `banner ${run.state === 'cancelled' ? 'banner-warn' : 'banner-error'}` },
      `This run ended ${run.state}${why}. Tests that finished before are shown; the others are empty.`);
  }

  root.replaceChildren(head, live, ended,
    warnings.length ? h('div', { class: 'banner banner-warn' }, `${warnings.length} warning${warnings.length > 1 ? 's' : ''}: `, warnings.map((w) => (typeof w === 'string' ? w : w.message ?? JSON.stringify(w))).join(' · ')) : '',
    presetCard.card,
    h('div', { class: 'run-top' }, tilesCard, chartCard),
    h('div', { class: 'run-details' }, probeCard, specCard, notesCard),
    samplesCard,
    latCard,
    planCard,
    iterCard);
  drawRunChart(canvas, names, cols, find, !refresh);
  presetCard.draw?.(!refresh);
  drawSamplesChart(samplesCanvas, run.id, !refresh);
}

// ---------------------------------------------------------------- presets

const presetCharts = [];
const LINE_COLORS = ['#2f7ed8', '#e0882b', '#6a9f3a', '#8e44ad', '#c0392b', '#16a085', '#7f8c8d'];

/** A Chart.js line chart; datasets [{label, data, dashed, axis}]. */
function lineChart(canvas, labels, datasets, { y, y2, x, animate }) {
  if (!window.Chart) { canvas.replaceWith(h('p', { class: 'error-text' }, 'Chart.js did not load.')); return; }
  const chart = new window.Chart(canvas, {
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
      animation: animate ? { duration: 250, onComplete: () => { canvas.dataset.rendered = '1'; } } : false,
      plugins: { legend: { position: 'top' } },
      scales: {
        x: { title: { display: true, text: x } },
        y: { beginAtZero: true, title: { display: true, text: y } },
        ...(y2 ? { y2: { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: y2 } } } : {}),
      },
    },
  });
  presetCharts.push(chart);
  if (!animate) canvas.dataset.rendered = '1';
}

/** The card that answers a preset's question: mailbox-db, seq-sweep, file-create, or a thread/QD sweep. */
function presetView(run) {
  while (presetCharts.length) presetCharts.pop().destroy();
  const tests = run.tests ?? [];
  const swept = tests.filter((t) => t.sweep);
  if (run.mailbox?.length) {
    const pts = run.mailbox;
    const th = run.spec?.options?.thresholds ?? {};
    const canvas = h('canvas', { id: 'preset-chart', 'aria-label': 'transactional IOPS and latency against threads' });
    const table = h('table', { class: 'iters', id: 'mailbox-table' },
      h('thead', null, h('tr', null, ['Threads', 'Transactional IOPS', 'Efficiency', 'DB read mean (ms)', 'DB read p99 (ms)',
        'DB write mean (ms)', 'Log write mean (ms)', 'Log write p99 (ms)', 'Log MB/s', 'Result'].map((k) => h('th', null, k)))),
      h('tbody', null, pts.map((p) => h('tr', { class: p.verdict === 'PASS' ? 'pass' : 'fail' },
        h('td', { class: 'num' }, p.threads), h('td', { class: 'num' }, fmtFixed(p.transactional_iops, 1)),
        h('td', { class: 'num' }, fmtFixed(p.efficiency, 2)),
        ...['db_read_mean_ms', 'db_read_p99_ms', 'db_write_mean_ms', 'log_write_mean_ms', 'log_write_p99_ms'].map((k) => h('td', { class: 'num' }, fmtFixed(p[k], 3))),
        h('td', { class: 'num' }, fmtMBs(p.log_mb_s)),
        h('td', null, h('strong', { class: p.verdict === 'PASS' ? 'ok-text' : 'error-text' }, p.verdict), p.reasons?.length ? ` — ${p.reasons.join('; ')}` : '')))));
    const card = h('section', { class: 'card', id: 'preset-card' },
      h('h2', null, 'Mailbox database ', h('span', { class: 'unit' }, `(thresholds: DB read mean ≤ ${th.db_read_mean_ms ?? '–'} ms, log write mean ≤ ${th.log_write_mean_ms ?? '–'} ms)`)),
      h('div', { class: 'chart-box' }, canvas), h('div', { class: 'table-wrap' }, table));
    const labels = pts.map((p) => `T${p.threads}`);
    const flat = (v) => (isNum(v) ? pts.map(() => v) : null);
    return { card, draw: (animate) => lineChart(canvas, labels, [
      { label: 'Transactional IOPS', data: pts.map((p) => p.transactional_iops) },
      { label: 'DB read mean (ms)', data: pts.map((p) => p.db_read_mean_ms), axis: 'y2' },
      { label: 'Log write mean (ms)', data: pts.map((p) => p.log_write_mean_ms), axis: 'y2' },
      ...(flat(th.db_read_mean_ms) ? [{ label: 'DB read threshold', data: flat(th.db_read_mean_ms), axis: 'y2', dashed: true, color: '#c0392b' }] : []),
      ...(flat(th.log_write_mean_ms) ? [{ label: 'Log write threshold', data: flat(th.log_write_mean_ms), axis: 'y2', dashed: true, color: '#8e44ad' }] : []),
    ], { x: 'threads', y: 'IOPS', y2: 'ms', animate }) };
  }
  if (!swept.length) return { card: '' };
  // group points by (sweep group, direction); x is the swept value
  const field = swept[0].sweep.field;
  const groups = new Map();
  for (const t of swept) {
    const key = `${t.sweep.group} ${t.rw}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(t);
  }
  const xs = [...new Set(swept.map((t) => t.sweep.value))].sort((a, b) => a - b);
  const xLabel = (v) => (field === 'block_size' || field === 'size' ? fmtBytes(v) : String(v));
  const canvas = h('canvas', { id: 'preset-chart', 'aria-label': `results against ${field}` });
  const isFile = run.profile === 'file-create';
  const metric = isFile ? 'seconds' : field === 'block_size' ? 'mb_s' : 'iops';
  const yText = isFile ? 'seconds' : metric === 'mb_s' ? 'MB/s (10⁶ B/s)' : 'IOPS';
  const datasets = [...groups.entries()].map(([key, pts]) => ({
    label: isFile ? pts[0].rw : key,
    data: xs.map((x) => { const p = pts.find((t) => t.sweep.value === x); const b = p?.best; return b && !b.error ? b[metric] : null; }),
  }));
  const rows = swept.map((t) => {
    const b = t.best ?? {};
    const err = (t.iterations ?? []).find((it) => it.error)?.error;
    return h('tr', null, h('td', null, t.test), h('td', null, t.rw), h('td', { class: 'num' }, xLabel(t.sweep.value)),
      h('td', { class: 'num' }, err ? '–' : isFile ? fmtFixed(b.mb_s / 1000, 2) : fmtMBs(b.mb_s)),
      isFile ? '' : h('td', { class: 'num' }, err ? '–' : fmtFixed(b.iops, 1)),
      h('td', { class: 'num' }, err ? '–' : fmtFixed(b.seconds, 3)),
      h('td', { class: 'num' }, isNum(t.sweep.efficiency) ? fmtFixed(t.sweep.efficiency, 2) : '–'),
      h('td', null, err ?? (isNum(b.allocated_bytes) ? `${fmtBytes(b.allocated_bytes)} allocated` : '')));
  });
  const card = h('section', { class: 'card', id: 'preset-card' },
    h('h2', null, isFile ? 'Time to create and copy a file ' : `Against ${field} `, h('span', { class: 'unit' }, `(${yText}, best iteration)`)),
    h('div', { class: 'chart-box' }, canvas),
    h('div', { class: 'table-wrap' }, h('table', { class: 'iters', id: 'sweep-table' },
      h('thead', null, h('tr', null, (isFile ? ['Test', 'Method', field, 'GB/s', 'Seconds', 'Efficiency', 'Note']
        : ['Test', 'R/W', field, 'MB/s', 'IOPS', 'Seconds', 'Efficiency', 'Note']).map((k) => h('th', null, k)))),
      h('tbody', null, rows))));
  return { card, draw: (animate) => lineChart(canvas, xs.map(xLabel), datasets, { x: field, y: yText, animate }) };
}

/** One line per test and direction over the run's time axis. */
async function drawSamplesChart(canvas, runId, animate = true) {
  let data;
  try {
    data = (await api('GET', `/runs/${runId}/samples`)).json;
  } catch (e) {
    canvas.replaceWith(h('p', { class: 'error-text' }, `Could not load samples: ${e.message}`));
    return;
  }
  if (currentRunId !== runId || !canvas.isConnected || !window.Chart) return;
  if (samplesChart) { samplesChart.destroy(); samplesChart = null; }
  const series = new Map();
  let t = 0;
  for (const s of data.samples ?? []) {
    const key = `${s.test} ${s.rw}`;
    if (!series.has(key)) series.set(key, { rw: s.rw, points: [] });
    const v = s[s.rw] ?? s.read;
    if (s.length_s >= 0.5) series.get(key).points.push({ x: t + s.length_s / 2, y: v?.mb_s ?? null });
    t += s.length_s;
  }
  const palette = { read: ['#2f7ed8', '#1b4f8a', '#6aa7ea', '#0d3463'], write: ['#e0882b', '#9c5413', '#f0b070', '#6b3a0c'] };
  const used = { read: 0, write: 0 };
  const datasets = [...series.entries()].map(([label, s]) => {
    const colors = palette[s.rw] ?? palette.read;
    const color = colors[(used[s.rw] ?? 0) % colors.length];
    used[s.rw] = (used[s.rw] ?? 0) + 1;
    return { label, data: s.points, borderColor: color, backgroundColor: color, pointRadius: 2, borderWidth: 2, tension: 0 };
  });
  samplesChart = new window.Chart(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      responsive: true, maintainAspectRatio: false, parsing: true,
      animation: animate ? { duration: 250, onComplete: () => { canvas.dataset.rendered = '1'; } } : false,
      plugins: { legend: { position: 'top' } },
      scales: {
        x: { type: 'linear', title: { display: true, text: 's (measured time, tests back to back)' } },
        y: { beginAtZero: true, title: { display: true, text: 'MB/s (10⁶ B/s)' } },
      },
    },
  });
  if (!animate) canvas.dataset.rendered = '1';
}

function drawRunChart(canvas, names, cols, find, animate = true) {
  if (runChart) { runChart.destroy(); runChart = null; }
  if (!window.Chart) {
    canvas.replaceWith(h('p', { class: 'error-text' }, 'Chart.js did not load.'));
    return;
  }
  const datasets = cols.map((rw) => ({
    label: `${rw[0].toUpperCase()}${rw.slice(1)} (MB/s)`,
    data: names.map((n) => find(n, rw)?.best?.mb_s ?? null),
    backgroundColor: COLORS[rw] ?? COLORS.other,
    borderRadius: 3,
    maxBarThickness: 46,
  }));
  runChart = new window.Chart(canvas, {
    type: 'bar',
    data: { labels: names, datasets },
    options: {
      responsive: true, maintainAspectRatio: false,
      animation: animate ? { duration: 250, onComplete: () => { canvas.dataset.rendered = '1'; } } : false,
      plugins: {
        legend: { position: 'top' },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label.replace(' (MB/s)', '')}: ${fmtMBs(c.raw)} MB/s` } },
      },
      scales: {
        y: { beginAtZero: true, title: { display: true, text: 'MB/s (10⁶ B/s)' } },
        x: { grid: { display: false } },
      },
    },
  });
  if (!animate) canvas.dataset.rendered = '1';
}

// ---------------------------------------------------------------- health

let healthTimer = null;
async function pollHealth() {
  clearTimeout(healthTimer);
  const el = $('#health');
  try {
    const r = await fetch('/healthz', { headers: { Accept: 'application/json' } });
    const j = await r.json();
    const q = j.queue ?? {};
    el.textContent = `daemon ${j.version ?? ''} · ${j.status ?? r.status} · ${q.running ?? 0} running, ${q.queued ?? 0} queued`;
    el.className = `health ${r.ok ? 'ok' : 'bad'}`;
  } catch (e) {
    el.textContent = 'daemon unreachable';
    el.className = 'health bad';
  }
  healthTimer = setTimeout(pollHealth, 5000);
}

// ---------------------------------------------------------------- router

function route() {
  const hash = location.hash || '#/';
  const m = /^#\/runs\/(\d+)\/?$/.exec(hash);
  const cm = /^#\/compare\?(.+)$/.exec(hash);
  for (const a of document.querySelectorAll('[data-nav]')) a.classList.remove('active');
  $('#view-compare').hidden = !cm;
  if (cm) {
    stopRunView();
    $('#view-home').hidden = true;
    $('#view-run').hidden = true;
    showCompare(cm[1]);
    window.scrollTo(0, 0);
    return;
  }
  stopCompareView();
  if (m) {
    $('#view-home').hidden = true;
    $('#view-run').hidden = false;
    showRun(Number(m[1]));
    window.scrollTo(0, 0);
    return;
  }
  stopRunView();
  $('#view-run').hidden = true;
  $('#view-home').hidden = false;
  if (hash === '#/runs') {
    document.querySelector('[data-nav="runs"]').classList.add('active');
    $('#archive').scrollIntoView({ block: 'start' });
  } else {
    document.querySelector('[data-nav="home"]').classList.add('active');
  }
  loadRuns();
}

function init() {
  if (window.Chart) {
    window.Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    window.Chart.defaults.color = '#3b4452';
  }
  $('#job-form').addEventListener('submit', submitJob);
  $('#f-profile').addEventListener('change', updateProfileHint);
  $('#f-target').addEventListener('input', updateSmbFields);
  $('#add-test').addEventListener('click', addTestRow);
  $('#job-form').addEventListener('input', (ev) => {
    const t = ev.target;
    if (t.classList?.contains('invalid')) {
      t.classList.remove('invalid');
      t.removeAttribute('aria-invalid');
      const fe = $('#job-form').querySelector(`.field-error[data-for="${CSS.escape(t.name)}"]`);
      if (fe) fe.textContent = '';
    }
  });
  $('#runs-filter').addEventListener('input', renderRuns);
  $('#runs-filters').addEventListener('submit', (ev) => ev.preventDefault());
  let filterTimer = 0;
  $('#runs-filters').addEventListener('input', () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => loadRuns(), 250);
  });
  loadProfiles().then((ps) => $('#dl-profiles').replaceChildren(...ps.map((p) => h('option', { value: p.name })))).catch(() => {});
  $('#import-go').addEventListener('click', importResults);
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
    if (selectedRuns.length >= 2) location.hash = `#/compare?runs=${selectedRuns.join(',')}`;
  });
  $('#runs-more').addEventListener('click', () => loadRuns({ more: true }));
  window.addEventListener('hashchange', route);
  // links into the API (CSV, originals) download through apiFetch
  document.addEventListener('click', (ev) => {
    const a = ev.target.closest?.('a[href^="/api/"]');
    if (!a || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    download(a.getAttribute('href'));
  });
  fillProfileSelect();
  pollJobs();
  liveStream();
  pollHealth();
  route();
}

init();
