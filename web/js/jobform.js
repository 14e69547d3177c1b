// The "New benchmark" form. Everything preset-specific comes from GET
// /api/v1/profiles: the profile list (the first is selected), each
// profile's defaults (placeholders), its options (typed inputs generated
// from fields.options) and, for a profile that takes its own tests, one row
// of inputs per test generated from fields.tests; for a profile that
// interleaves targets, the "compare with" targets. The job-level inputs are
// in index.html and take their limits from job_fields. A refusal's
// problem+json `field` marks the input of that API path.

import { $, h, append } from './dom.js';
import { api, ApiError } from './api.js';
import { isNum, fmtSize, parseSize } from './format.js';
import { loadCatalogue, findProfile } from './state.js';
import { makeField, checkValue, markField, clearMarks, clearMarkOnInput, hintText, FieldError } from './forms.js';
import { pollJobsSoon } from './jobs.js';

const form = {
  cat: { profiles: [], job_fields: [] },
  options: new Map(), // profile name -> its options' field ({el, read}), kept while the page lives
  rowsFor: null, // the profile whose fields.tests the test rows were made from
  rowCells: new WeakMap(), // test row -> [{name, read}]
  baseline: null, // the "baseline" object's inputs ({el, read}), made once
};

const selected = () => findProfile(form.cat.profiles, $('#f-profile').value);
const jobField = (name) => form.cat.job_fields.find((d) => d.name === name) ?? null;

// ---------------------------------------------------------------- SMB

const SMB_DIALECTS = ['SMB2_02', 'SMB2_10', 'SMB3_00', 'SMB3_02', 'SMB3_11'];

/** Shows the SMB fields for an smb:// target, with the stored credentials. */
async function updateSmbFields() {
  const smb = $('#f-target').value.trim().startsWith('smb://');
  const box = $('#smb-fields');
  if (box.hidden === !smb) return;
  box.hidden = !smb;
  if (!smb) return;
  const dialects = jobField('smb')?.fields?.find((d) => d.name === 'max_protocol')?.choices ?? SMB_DIALECTS;
  for (const [id, word] of [['#f-smb-min', 'min'], ['#f-smb-max', 'max']]) {
    const sel = $(id);
    if (sel.options.length <= 1)
      sel.replaceChildren(h('option', { value: '' }, `${word}: default`),
        ...dialects.map((d) => h('option', { value: d }, `${word}: ${d}`)));
  }
  const bd = jobField('baseline');
  if (bd && !form.baseline) { // the wire baseline, from its descriptors
    form.baseline = makeField(bd, 'baseline', { legend: 'iperf3 server' });
    $('#baseline-fields').replaceChildren(form.baseline.el);
  }
  $('#baseline-box').hidden = !bd;
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

// ---------------------------------------------------------------- test rows

function renumberTestRows() {
  [...$('#custom-rows').children].forEach((row, i) => {
    row.querySelector('.test-no').textContent = `#${i + 1}`;
    for (const el of row.querySelectorAll('[data-key]')) el.name = `tests[${i}].${el.dataset.key}`;
  });
}

/** One row of the tests a profile takes: an input per test field. */
function addTestRow() {
  const descs = findProfile(form.cat.profiles, form.rowsFor)?.fields?.tests ?? [];
  const cells = descs.map((d) => ({ name: d.name, ...makeField(d, `tests[0].${d.name}`, { compact: true }) }));
  const row = h('div', { class: 'test-row' },
    h('div', { class: 'test-head' }, h('span', { class: 'test-no muted' }), h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'small', title: 'remove this test', onclick: () => { row.remove(); renumberTestRows(); } }, '×')),
    h('div', { class: 'test-cells' }, cells.map((c) => c.el)));
  form.rowCells.set(row, cells);
  $('#custom-rows').append(row);
  renumberTestRows();
}

/** The tests as API objects; empty fields left out. */
function readTests() {
  return [...$('#custom-rows').children].map((row) => {
    const t = {};
    for (const c of form.rowCells.get(row) ?? []) {
      const v = c.read();
      if (v !== undefined) t[c.name] = v;
    }
    return t;
  });
}

// ---------------------------------------------------------------- profile

/** Shows what the selected profile takes: its tests, options, defaults. */
function updateProfile() {
  const p = selected();
  const hint = $('#profile-hint');
  const takesTests = !!p?.fields?.tests;
  $('#compare-with-field').hidden = !p?.interleave;
  // the profiles that are lists of tests run on several hosts too
  $('#hosts-field').hidden = !p?.interleave;
  $('#custom-tests').hidden = !takesTests;
  if (takesTests && form.rowsFor !== p.name) {
    form.rowsFor = p.name;
    $('#custom-rows').replaceChildren();
    $('#custom-tests legend .muted').textContent = `(${p.name} profile; run in this order)`;
  }
  if (takesTests && !$('#custom-rows').children.length) addTestRow();

  const box = $('#options-field');
  const opts = p?.fields?.options;
  box.hidden = !opts;
  if (opts) {
    if (!form.options.has(p.name)) {
      form.options.set(p.name, makeField({ name: 'options', type: 'object', fields: opts }, 'options',
        { top: true, legend: ['Options ', h('span', { class: 'muted' }, '(empty fields take the default)')] }));
    }
    box.replaceChildren(form.options.get(p.name).el);
  } else {
    box.replaceChildren();
  }

  const names = [...new Set((p?.tests ?? []).map((t) => t.test))];
  hint.textContent = !p ? ''
    : names.length ? `${names.length} tests × ${[...new Set(p.tests.map((t) => t.rw))].join('/')}: ${names.join(', ')}`
      : takesTests ? `${p.title}: every workload field below; names default to CrystalDiskMark style (RND4K Q32T1).`
        : p.title ?? '';
  const d = p?.defaults ?? {};
  const ph = (sel, v) => { $(sel).placeholder = v === undefined || v === '' ? '' : `${v} (profile default)`; };
  ph('#f-size', isNum(d.size) ? fmtSize(d.size) : undefined);
  ph('#f-iterations', d.iterations);
  ph('#f-duration', d.duration_s);
  ph('#f-interval', d.interval_s);
}

/** Limits and help of the job-level inputs, from job_fields. */
function applyJobFields() {
  for (const [sel, name] of [['#f-target', 'target'], ['#f-compare-with', 'compare_with'], ['#f-size', 'size'], ['#f-iterations', 'iterations'],
    ['#f-duration', 'duration_s'], ['#f-interval', 'interval_s'], ['#f-ramp', 'ramp_s'], ['#f-labels', 'labels'], ['#f-notes', 'notes']]) {
    const d = jobField(name);
    const el = $(sel);
    if (!d || !el) continue;
    el.title = hintText(d);
    if (el.type === 'number') {
      if (isNum(d.min)) el.min = d.min;
      if (isNum(d.max)) el.max = d.max;
      el.step = d.type === 'int' ? 1 : 'any';
    }
  }
}

async function fillProfileSelect() {
  const sel = $('#f-profile');
  try {
    form.cat = await loadCatalogue();
    sel.replaceChildren(...form.cat.profiles.map((p) =>
      h('option', { value: p.name }, p.title ? `${p.title} (${p.name})` : p.name)));
    if (form.cat.profiles.length) sel.value = form.cat.profiles[0].name;
    applyJobFields();
    updateProfile();
  } catch (e) {
    sel.replaceChildren(h('option', { value: '' }, 'profiles unavailable'));
    $('#profile-hint').textContent = `Could not load profiles: ${e.message}`;
  }
}

// ---------------------------------------------------------------- submit

function clearFormErrors() {
  clearMarks($('#job-form'));
  const box = $('#job-error');
  box.hidden = true;
  box.textContent = '';
  delete box.dataset.field;
}

function showFormError(message, field) {
  const box = $('#job-error');
  box.replaceChildren();
  if (field) {
    box.dataset.field = field;
    append(box, [h('strong', null, `Field “${field}”: `), message]);
    markField($('#job-form'), field, message);
  } else {
    append(box, [message]);
  }
  box.hidden = false;
}

/** A job-level number: empty → left out; else checked against job_fields. */
function readNumber(el, name, body) {
  if (el.validity.badInput) throw new FieldError(name, 'not a number');
  const raw = el.value.trim();
  if (raw === '') return;
  body[name] = checkValue(jobField(name) ?? { type: 'number' }, raw, name);
}

/** The POST body; throws FieldError for what the form can tell is wrong. */
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
    if (f.baseline_on?.checked) body.baseline = form.baseline?.read() ?? {};
  }
  const p = selected();
  if (f.profile.value) body.profile = f.profile.value;
  const others = f.compare_with.value.split('\n').map((s) => s.trim()).filter(Boolean);
  if (others.length && p?.interleave) body.compare_with = others;
  const hosts = f.hosts.value.split(',').map((s) => s.trim()).filter(Boolean);
  if (hosts.length && p?.interleave) body.hosts = hosts;
  const size = f.size.value.trim();
  if (size) {
    // a size the form can read is checked against its limits here; one it
    // cannot read goes to the daemon, which says why
    const d = jobField('size');
    if (d && parseSize(size) !== null) checkValue(d, size, 'size');
    body.size = /^\d+$/.test(size) ? Number(size) : size;
  }
  readNumber(f.iterations, 'iterations', body);
  readNumber(f.duration_s, 'duration_s', body);
  readNumber(f.interval_s, 'interval_s', body);
  readNumber(f.ramp_s, 'ramp_s', body);
  if (f.engine.value) body.engine = f.engine.value;
  if (f.data.value) body.data = f.data.value;
  if (!f.direct.checked) body.direct = false;
  if (p?.fields?.options) {
    const options = form.options.get(p.name)?.read();
    if (options !== undefined) body.options = options;
  }
  if (p?.fields?.tests) body.tests = readTests();
  const labels = f.labels.value.split(',').map((s) => s.trim()).filter(Boolean);
  if (labels.length) body.labels = labels;
  const notes = f.notes.value.trim();
  if (notes) body.notes = notes;
  return body;
}

async function submitJob(ev) {
  ev.preventDefault();
  clearFormErrors();
  $('#job-ok').hidden = true;
  let body;
  try {
    body = readForm();
  } catch (e) {
    if (!(e instanceof FieldError)) throw e;
    showFormError(e.message, e.field);
    return;
  }
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

export function initJobForm() {
  const el = $('#job-form');
  el.addEventListener('submit', submitJob);
  $('#f-profile').addEventListener('change', updateProfile);
  $('#f-target').addEventListener('input', updateSmbFields);
  $('#add-test').addEventListener('click', addTestRow);
  clearMarkOnInput(el);
  fillProfileSelect();
}
