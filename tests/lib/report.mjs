// What the integration and browser tests of the HTML report share: the
// report's figures (<data value="EXACT">SHOWN</data>), the numbers the
// JSON compare states for each test's deltas, and whether a shown figure
// is its exact value rounded as the report rounds it.

/** The figures of an HTML report: [{ value: number, shown: string }]. */
export function figures(html) {
  return [...html.matchAll(/<data value="([^"]+)">([^<]*)<\/data>/g)]
    .map((m) => ({ value: Number(m[1]), shown: m[2] }));
}

/** The shown text as a number ("−12.4" → -12.4, "+3.70" → 3.7). */
export const shownNumber = (s) => Number(s.replace('−', '-').replace('+', ''));

/** Is shown exact rounded to the digits shown (1 decimal from 100, 2 from
 * 1, else 3 significant)? */
export function roundsTo(exact, shown) {
  const a = Math.abs(exact);
  const want = a >= 100 ? a.toFixed(1) : a >= 1 ? a.toFixed(2) : Number(a.toPrecision(3)).toString();
  return Math.abs(Math.abs(shownNumber(shown)) - Number(want)) < 1e-9 && (exact < 0) === shown.startsWith('−');
}

/**
 * The numbers the JSON compare c states for each test's deltas, on every
 * metric some side has a value of: each side's mean, and against the
 * baseline delta, delta_pct, the 95 % interval's ends and p.
 * [{ what: string, value: number }]
 */
export function deltaNumbers(c) {
  const out = [];
  for (const t of c.tests) {
    for (const m of t.metrics) {
      if (!m.sides.some((s) => typeof s?.mean === 'number')) continue;
      const name = `${t.test} ${t.rw ?? ''} ${m.metric}`;
      m.sides.forEach((s, k) => { if (typeof s?.mean === 'number') out.push({ what: `${name} side ${k} mean`, value: s.mean }); });
      m.vs_baseline.forEach((v, k) => {
        if (!v) return;
        for (const f of ['delta', 'delta_pct', 'p']) {
          if (typeof v[f] === 'number') out.push({ what: `${name} side ${k} ${f}`, value: v[f] });
        }
        (v.ci_pct ?? []).forEach((x, i) => out.push({ what: `${name} side ${k} ci_pct[${i}]`, value: x }));
      });
    }
  }
  return out;
}

/** HTML-escaped text, as the report escapes what it writes. */
export const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  .replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Every src=, href= and url() of html that points anywhere but #… or data: */
export function externalRefs(html) {
  const refs = [...html.matchAll(/\b(?:src|href|xlink:href|action|srcset|poster)\s*=\s*["']?([^"'\s>]*)/gi)].map((m) => m[1]);
  refs.push(...[...html.matchAll(/url\(\s*["']?([^"')]*)/gi)].map((m) => m[1]));
  refs.push(...[...html.matchAll(/@import\s+["']?([^"';\s]*)/gi)].map((m) => m[1]));
  return refs.filter((u) => !u.startsWith('#') && !u.startsWith('data:'));
}

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'")
  .replace(/&amp;/g, '&');

/** The JSON of each <pre> of html (the job specs), parsed. */
export function specs(html) {
  return [...html.matchAll(/<pre>([^<]*)<\/pre>/g)].map((m) => JSON.parse(unescape(m[1])));
}

/** The JSON of each <pre class="rerun"> of html (the requests that run a
 * spec's job again), parsed. */
export function reruns(html) {
  return [...html.matchAll(/<pre class="rerun">([^<]*)<\/pre>/g)].map((m) => JSON.parse(unescape(m[1])));
}
