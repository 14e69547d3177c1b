// Number, size and time formatting, and reading sizes the way the API
// writes them ("4KiB", "1GiB", "1GB", bytes).

export const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/** MB/s the CrystalDiskMark way: two decimals, no grouping ("1520.43"). */
export const fmtMBs = (v) => (isNum(v) ? v.toFixed(2) : '–');
export const fmtFixed = (v, d = 1) => (isNum(v) ? v.toFixed(d) : '–');
export const fmtInt = (v) => (isNum(v) ? Math.round(v).toLocaleString('en-US') : '–');
export const fmtGB = (b) => (isNum(b) ? `${(b / 1e9).toFixed(1)} GB` : '–');
export const fmtPct = (v) => (isNum(v) ? `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(1)} %` : '–');
export const fmtP = (p) => (!isNum(p) ? '–' : p < 0.001 ? p.toExponential(1) : p.toFixed(3));

const BIN_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** Bytes for people: "4 KiB", "1 GiB", "1.50 GiB" when not an exact binary multiple. */
export function fmtBytes(b) {
  if (!isNum(b)) return '–';
  let i = 0, v = b;
  while (v >= 1024 && i < BIN_UNITS.length - 1 && Number.isInteger(v / 1024)) { v /= 1024; i++; }
  if (i === 0 && b >= 1024) { // not an exact binary multiple: approximate
    while (v >= 1024 && i < BIN_UNITS.length - 1) { v /= 1024; i++; }
    return `${v.toFixed(2)} ${BIN_UNITS[i]}`;
  }
  return `${v} ${BIN_UNITS[i]}`;
}

/** Bytes as the API takes them back: "4KiB", "64MiB", or plain bytes. */
export function fmtSize(b) {
  if (!isNum(b)) return '';
  let i = 0, v = b;
  while (v >= 1024 && i < BIN_UNITS.length - 2 && Number.isInteger(v / 1024)) { v /= 1024; i++; }
  return i ? `${v}${BIN_UNITS[i]}` : String(b);
}

const SIZE_UNITS = { '': 1, b: 1, k: 2 ** 10, kib: 2 ** 10, m: 2 ** 20, mib: 2 ** 20, g: 2 ** 30, gib: 2 ** 30, t: 2 ** 40, tib: 2 ** 40,
  kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12 };

/** "4KiB", "1 GiB", "1GB" (decimal), "4096" → bytes; null when it is not a size. */
export function parseSize(text) {
  const m = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(String(text));
  if (!m) return null;
  const mult = SIZE_UNITS[m[2].toLowerCase()];
  return mult ? Number(m[1]) * mult : null;
}

/** Numbers in a metric's unit, as the API names it: "10^6 B/s", "I/O/s", "µs", "ms", "s". */
export function fmtByUnit(unit, v) {
  if (!isNum(v)) return '–';
  switch (unit) {
    case '10^6 B/s': case 'MB/s': return v.toFixed(2);
    case 'µs': case 'us': return v.toFixed(1);
    case 'ms': case 's': return v.toFixed(3);
    case 'I/O/s': case '1': return fmtInt(v);
    default: return Math.abs(v) >= 100 ? fmtInt(v) : v.toFixed(3);
  }
}

/** The unit as a reader writes it. */
export const unitWord = (unit) => (unit === '10^6 B/s' ? 'MB/s' : unit === 'I/O/s' ? 'IOPS' : unit ?? '');

/** "db_read_mean_ms" → "Db read mean" (its unit shown beside it). */
export function humanize(name, unit) {
  let s = String(name ?? '');
  const tail = { ms: '_ms', s: '_s', '%': '_pct', us: '_us', 'µs': '_us' }[unit];
  if (tail && s.endsWith(tail)) s = s.slice(0, -tail.length);
  s = s.replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const pad2 = (n) => String(n).padStart(2, '0');

/** ISO 8601 UTC → local "YYYY-MM-DD HH:MM:SS". */
export function fmtTime(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

export function fmtDuration(s) {
  if (!isNum(s) || s < 0) return '–';
  s = Math.round(s);
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  return hh ? `${hh} h ${pad2(mm)} min` : mm ? `${mm} min ${pad2(ss)} s` : `${ss} s`;
}

export const secondsBetween = (a, b) => (a && b ? (new Date(b) - new Date(a)) / 1000 : NaN);
