// The DOM helpers every view uses: a query shorthand, a tiny element
// builder, and the small pieces of markup several views share.

export const $ = (sel, root = document) => root.querySelector(sel);

/** Tiny DOM builder: h('div', {class: 'x', dataset: {a: 1}, onclick: fn}, 'text', child, ...) */
export function h(tag, attrs, ...children) {
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

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export const stateBadge = (state) => h('span', { class: `badge state-${state}` }, state ?? '?');

export const labelChips = (labels) =>
  (labels && labels.length ? labels.map((l) => h('span', { class: 'chip' }, l)) : [h('span', { class: 'muted' }, '–')]);

/** The red banner above every view; null hides it. */
export function showGlobalError(msg) {
  const el = $('#global-error');
  if (!msg) { el.hidden = true; el.textContent = ''; return; }
  el.textContent = msg;
  el.hidden = false;
}
