// Form fields generated from the API's field descriptors (GET
// /api/v1/profiles: a preset's fields.options and fields.tests, and
// job_fields). A descriptor: {name, type: int|number|bool|string|enum|bytes|
// dir|list|object, unit, min, max, min_exclusive, step, choices, default,
// default_text, help, nullable, unique, sweep, item, min_items, max_items,
// fields}.
//
// makeField(desc, name) returns {el, read}: el the markup, read() the value
// for the request — undefined when the input is empty (the daemon fills its
// default) — or a thrown FieldError naming the input's API path when the
// value breaks the descriptor's limits. Every input's name is its API path
// ("options.threads", "options.thresholds.db_read_mean_ms",
// "options.database_paths[1]", "tests[0].block_size"), so a problem+json
// `field` finds the input it is about (see markField).

import { h } from './dom.js';
import { isNum, fmtSize, fmtBytes, parseSize, humanize } from './format.js';

export class FieldError extends Error {
  constructor(field, message) { super(message); this.field = field; }
}

const NUMERIC = new Set(['int', 'number']);
const idOf = (name) => `f-${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/-$/, '')}`;

/** A value as the user would type it back. */
const showValue = (d, v) => (d?.type === 'bytes' && isNum(v) ? fmtSize(v) : String(v));

/** The default in words: "64MiB", "4, 8, 12", or the descriptor's default_text. */
export function defaultText(d) {
  const v = d.default;
  if (Array.isArray(v)) return v.map((x) => showValue(d.item, x)).join(', ');
  if (v !== undefined && v !== null && typeof v !== 'object') return showValue(d, v);
  return d.default_text ?? '';
}

/** "1 … 256", "> 0 … 3600000 ms", "8 MiB … 64 TiB". */
export function limitsText(d) {
  if (!isNum(d.min) && !isNum(d.max)) return '';
  const show = (v) => (d.type === 'bytes' ? fmtBytes(v) : String(v));
  const unit = d.type === 'bytes' || !d.unit ? '' : ` ${d.unit}`;
  if (d.min_exclusive && isNum(d.min)) return `> ${show(d.min)}${isNum(d.max) ? ` … ${show(d.max)}` : ''}${unit}`;
  if (d.type === 'string') return `${d.min ?? 0} … ${d.max} characters`;
  return `${isNum(d.min) ? show(d.min) : ''} … ${isNum(d.max) ? show(d.max) : ''}${unit}`;
}

const SHORT = 22; // a default longer than this goes in the hint, not the placeholder

/** What an empty input shows: the default, or "not checked" for a nullable value. */
function placeholderOf(d) {
  if (d.nullable) return 'not checked';
  const def = defaultText(d);
  return def.length > SHORT ? 'default: see below' : def;
}

/** The line under an input: its help, limits, and a default too long for the placeholder. */
export function hintText(d) {
  const item = d.type === 'list' ? d.item ?? {} : d;
  const parts = [d.help ?? item.help];
  if (d.type === 'list' && ['int', 'number', 'bytes'].includes(item.type)) parts.push('comma-separated');
  const lim = limitsText(item);
  if (lim) parts.push(lim);
  if (d.type === 'list' && isNum(d.max_items)) parts.push(`up to ${d.max_items}${d.unique ? ', each once' : ''}`);
  const def = defaultText(d);
  if (d.nullable && d.default != null) parts.push(`default ${def}`);
  else if (def.length > SHORT) parts.push(`default: ${def}`);
  return parts.filter(Boolean).join(' · ');
}

/** The label's words: the name without its unit, the unit beside it. */
function labelOf(d, words, compact) {
  const unit = d.type === 'list' ? d.item?.unit : d.unit;
  const shown = unit && unit !== 'B' && (!compact || unit.length <= 2);
  return [words ?? humanize(d.name, unit), shown ? h('span', { class: 'unit' }, ` (${unit})`) : ''];
}

function rangeError(d, value, field, shown) {
  const lo = d.min, hi = d.max;
  const below = isNum(lo) && (d.min_exclusive ? value <= lo : value < lo);
  if (!below && !(isNum(hi) && value > hi)) return;
  const show = (v) => (d.type === 'bytes' ? fmtBytes(v) : String(v));
  const unit = d.type === 'bytes' || !d.unit ? '' : ` ${d.unit}`;
  const what = d.type === 'int' ? 'an integer' : d.type === 'bytes' ? 'a size' : 'a number';
  const low = isNum(lo) ? (d.min_exclusive ? `> ${show(lo)}` : `from ${show(lo)}`) : '';
  const high = isNum(hi) ? (d.min_exclusive ? `at most ${show(hi)}` : `to ${show(hi)}`) : '';
  const range = low && high && d.min_exclusive ? `${low} and ${high}` : [low, high].filter(Boolean).join(' ')
    .replace(/^to /, 'at most ');
  throw new FieldError(field, `${shown} is out of range: must be ${what} ${range}${unit}`);
}

/** One typed-in value checked against its descriptor; the value to send. */
export function checkValue(d, raw, field) {
  switch (d.type) {
    case 'int':
    case 'number': {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new FieldError(field, `"${raw}" is not a number`);
      if (d.type === 'int' && !Number.isInteger(n)) throw new FieldError(field, `${raw} is not a whole number`);
      rangeError(d, n, field, raw);
      return n;
    }
    case 'bytes': {
      const b = parseSize(raw);
      if (b === null) throw new FieldError(field, `"${raw}" is not a size: bytes, or a whole number with a unit (4KiB, 64MiB, 1GiB)`);
      rangeError(d, b, field, raw);
      return /^\d+$/.test(raw) ? b : raw;
    }
    case 'string':
      if (isNum(d.max) && [...raw].length > d.max) throw new FieldError(field, `longer than ${d.max} characters`);
      return raw;
    default:
      return raw;
  }
}

/** A comma list checked item by item (the item's path is name[i]). */
function checkList(d, raw, field) {
  const parts = raw.split(',').map((s) => s.trim());
  const item = d.item ?? d;
  const values = parts.map((p, i) => {
    if (p === '') throw new FieldError(`${field}[${i}]`, `item ${i + 1} is empty`);
    return checkValue(item, p, `${field}[${i}]`);
  });
  checkItems(d, values, field, (i) => parts[i]);
  return values;
}

function checkItems(d, values, field, shown) {
  if (isNum(d.max_items) && values.length > d.max_items) throw new FieldError(field, `at most ${d.max_items} items, not ${values.length}`);
  if (isNum(d.min_items) && values.length < d.min_items) throw new FieldError(field, `at least ${d.min_items} item${d.min_items === 1 ? '' : 's'}`);
  if (d.unique || d.sweep) {
    const key = (v) => String(d.item?.type === 'bytes' || d.type === 'bytes' ? parseSize(v) ?? v : v);
    const seen = new Map();
    values.forEach((v, i) => {
      if (seen.has(key(v))) throw new FieldError(`${field}[${i}]`, `${shown(i)} is given twice (items ${seen.get(key(v)) + 1} and ${i + 1})`);
      seen.set(key(v), i);
    });
  }
}

/** The input of a scalar (or a comma list of scalars when asList). */
function scalarInput(d, name, { compact, asList }) {
  const common = { name, id: compact ? undefined : idOf(name), dataset: compact ? { key: d.name } : undefined,
    title: compact ? [hintText(d), defaultText(d).length <= SHORT && defaultText(d) && `default ${defaultText(d)}`].filter(Boolean).join(' · ') : undefined, 'aria-describedby': compact ? undefined : `${idOf(name)}-hint` };
  if (d.type === 'enum') {
    const def = d.default ?? null;
    const opts = (d.choices ?? []).map((c) => h('option', { value: c === def ? '' : c, selected: c === def || undefined },
      c === def && !compact ? `${c} (default)` : c));
    if (def === null) opts.unshift(h('option', { value: '' }, compact ? 'default' : `default: ${d.default_text ?? '–'}`));
    return h('select', common, opts);
  }
  if (d.type === 'bool') return h('input', { ...common, type: 'checkbox', checked: d.default === true || undefined });
  const placeholder = compact ? (d.default != null ? defaultText(d) : 'default') : placeholderOf(d);
  if (NUMERIC.has(d.type) && !asList) {
    return h('input', { ...common, type: 'number', min: d.min, max: d.max, step: d.type === 'int' ? 1 : d.step ?? 'any',
      placeholder, value: d.nullable && isNum(d.default) ? d.default : undefined });
  }
  return h('input', { ...common, type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder,
    inputmode: NUMERIC.has((d.item ?? d).type) ? 'decimal' : undefined });
}

/** A scalar field, a comma list (list of numbers or sizes), or a sweep-able test field. */
function scalarField(d, name, opts) {
  const asList = d.type === 'list' || (opts.compact && d.sweep);
  const input = scalarInput(d.type === 'list' ? { ...d.item, name: d.name, help: d.help } : d, name, { ...opts, asList });
  if (d.type === 'list') input.placeholder = placeholderOf(d);
  const read = () => {
    const field = input.name;
    if (d.type === 'bool') return input.checked === (d.default === true) ? undefined : input.checked;
    if (input.validity?.badInput) throw new FieldError(field, 'not a number');
    const raw = input.value.trim();
    if (raw === '') return d.nullable && d.default != null ? null : undefined;
    if (d.type === 'list') return checkList(d, raw, field);
    if (asList) { // a sweep: one value, or a list of them (one test per value)
      const values = checkList({ ...d, item: d }, raw, field);
      return values.length === 1 ? values[0] : values;
    }
    const v = checkValue(d, raw, field);
    return d.nullable && v === d.default ? undefined : v;
  };
  if (opts.compact) return { el: h('label', { class: `tf tf-${d.name}` }, h('span', null, labelOf(d, opts.words, true)), input), read };
  if (d.type === 'bool') {
    return { read, el: h('div', { class: 'field field-check' }, h('label', null, input, ' ', labelOf(d, opts.words)),
      h('div', { class: 'field-error', dataset: { for: name } }), h('div', { class: 'hint', id: `${idOf(name)}-hint` }, hintText(d))) };
  }
  return { read, el: h('div', { class: `field${d.type === 'list' || d.type === 'dir' ? ' wide' : ''}` },
    h('label', { for: input.id }, labelOf(d, opts.words)), input,
    h('div', { class: 'field-error', dataset: { for: name } }),
    h('div', { class: 'hint', id: `${idOf(name)}-hint` }, hintText(d))) };
}

/** A list of directories (or strings): one input per item, rows added and removed. */
function listEditor(d, name, opts) {
  const rows = h('div', { class: 'list-rows' });
  const renumber = () => [...rows.children].forEach((row, i) => {
    const input = row.querySelector('input');
    input.name = `${name}[${i}]`;
    input.setAttribute('aria-label', `${d.name} ${i + 1}`);
    row.querySelector('.field-error').dataset.for = input.name;
  });
  const addRow = (value = '') => {
    const input = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', value: value || undefined,
      placeholder: rows.children.length ? '' : placeholderOf(d) });
    const row = h('div', { class: 'list-row' }, h('div', { class: 'list-line' }, input,
      h('button', { type: 'button', class: 'small', title: 'remove this row', onclick: () => {
        if (rows.children.length > 1) { row.remove(); renumber(); } else input.value = '';
      } }, '×')), h('div', { class: 'field-error' }));
    rows.append(row);
    renumber();
    return input;
  };
  addRow();
  const add = h('button', { type: 'button', class: 'small list-add',
    onclick: () => { if (!isNum(d.max_items) || rows.children.length < d.max_items) addRow().focus(); } }, 'Add');
  const read = () => {
    // empty rows are dropped first, so that item i of the request is row i
    for (const row of [...rows.children]) if (rows.children.length > 1 && !row.querySelector('input').value.trim()) row.remove();
    renumber();
    const inputs = [...rows.querySelectorAll('input')];
    const values = inputs.map((el) => el.value.trim());
    if (values.length === 1 && values[0] === '') return undefined;
    const out = values.map((v, i) => checkValue(d.item ?? { type: 'dir' }, v, inputs[i].name));
    checkItems(d, out, name, (i) => `"${out[i]}"`);
    return out;
  };
  const el = h('fieldset', { class: 'field wide list-field', name },
    h('legend', null, labelOf(d, opts.words)), rows,
    h('div', { class: 'list-foot' }, h('div', { class: 'hint' }, hintText(d)), add),
    h('div', { class: 'field-error', dataset: { for: name } }));
  return { el, read };
}

/** An object: a fieldset of its fields (thresholds; the options themselves). */
function objectField(d, name, opts) {
  const kids = (d.fields ?? []).map((c) => ({ name: c.name, ...makeField(c, `${name}.${c.name}`) }));
  const read = () => {
    const obj = {};
    for (const k of kids) {
      const v = k.read();
      if (v !== undefined) obj[k.name] = v;
    }
    return Object.keys(obj).length ? obj : undefined;
  };
  const el = h('fieldset', { class: `sub-fields${opts.top ? ' top-fields' : ' wide'}`, name },
    h('legend', null, opts.legend ?? labelOf(d, opts.words), d.help && !opts.top ? h('span', { class: 'muted' }, ` — ${d.help}`) : ''),
    h('div', { class: 'field-grid' }, kids.map((k) => k.el)),
    h('div', { class: 'field-error', dataset: { for: name } }));
  return { el, read };
}

/** The field for a descriptor at an API path; opts.compact for a test row's cell. */
export function makeField(d, name, opts = {}) {
  if (d.type === 'object') return objectField(d, name, opts);
  if (d.type === 'list' && !['int', 'number', 'bytes'].includes(d.item?.type)) return listEditor(d, name, opts);
  return scalarField(d, name, opts);
}

// ---------------------------------------------------------------- errors

const parentPath = (p) => (/\[\d+\]$/.test(p) ? p.replace(/\[\d+\]$/, '') : p.includes('.') ? p.replace(/\.[^.]+$/, '') : '');

/** Marks the input a field path names (or, for an item of a comma list or a
 * member of an object, the nearest input or fieldset holding it) and puts
 * the message beside it. Returns the element marked, if any. */
export function markField(form, field, message) {
  for (let f = field; f; f = parentPath(f)) {
    let el = form.elements.namedItem(f);
    if (el && !(el instanceof Element)) el = el[0]; // a RadioNodeList
    const fe = form.querySelector(`.field-error[data-for="${CSS.escape(f)}"]`);
    if (!el && !fe) continue;
    if (fe) fe.textContent = message;
    if (el) {
      el.closest('details')?.setAttribute('open', '');
      el.classList.add('invalid');
      el.setAttribute('aria-invalid', 'true');
      (el.matches('fieldset') ? el.querySelector('input, select') : el)?.focus();
    }
    return el;
  }
  return null;
}

/** Clears every mark markField made. */
export function clearMarks(form) {
  for (const el of form.querySelectorAll('.invalid')) { el.classList.remove('invalid'); el.removeAttribute('aria-invalid'); }
  for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
}

/** Typing in a marked input clears its mark (and its fieldset's). */
export function clearMarkOnInput(form) {
  form.addEventListener('input', (ev) => {
    for (const t of [ev.target, ev.target.closest?.('fieldset.invalid')]) {
      if (!t?.classList?.contains('invalid')) continue;
      t.classList.remove('invalid');
      t.removeAttribute('aria-invalid');
      const fe = form.querySelector(`.field-error[data-for="${CSS.escape(t.name ?? '')}"]`);
      if (fe) fe.textContent = '';
    }
  });
}
