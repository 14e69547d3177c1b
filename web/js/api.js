// Talking to the daemon: every request goes to the same origin under
// /api/v1, with the bearer token when the daemon asked for one. Refusals
// are application/problem+json; api() throws them as ApiError with the
// problem (detail, field) attached.

import { $, h, showGlobalError } from './dom.js';

export const API = '/api/v1';

export class ApiError extends Error {
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
let tokenAsk = null; // the open dialog's promise: one question at a time

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
export async function apiFetch(url, init = {}) {
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

/** One JSON request: resolves {status, json, headers}, throws ApiError. */
export async function api(method, path, body) {
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

/** Downloads an /api/ link (CSV, an imported original) through apiFetch, so
 * the token goes in a header, not in the URL. */
export async function download(href) {
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

/** Links into the API (CSV, originals) download through apiFetch. */
export function interceptApiLinks() {
  document.addEventListener('click', (ev) => {
    const a = ev.target.closest?.('a[href^="/api/"]');
    if (!a || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    download(a.getAttribute('href'));
  });
}
