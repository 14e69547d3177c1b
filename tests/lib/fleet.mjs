// What a test needs to check a multi-host job's aggregate on its own:
// storbench's stored histograms read (storage/engine/histogram.c's form),
// merged bucket by bucket and asked for a nearest-rank percentile, and the
// hosts' seconds counted inside their common window.

const SUB_BITS = 7;
const SUB = 1 << SUB_BITS;

// base64 of hist_encode's bytes → {count, min, max, buckets: Map(index → count)}
export function decodeHist(b64) {
  const b = Buffer.from(b64, 'base64');
  if (b.readUInt32LE(0) !== 1) throw new Error('not a format-1 histogram');
  const h = { count: Number(b.readBigUInt64LE(4)), min: Number(b.readBigUInt64LE(12)), max: Number(b.readBigUInt64LE(20)), buckets: new Map() };
  for (let p = 44; p + 10 <= b.length; p += 10) h.buckets.set(b.readUInt16LE(p), Number(b.readBigUInt64LE(p + 2)));
  return h;
}

export function mergeHists(hs) {
  const m = { count: 0, min: Infinity, max: 0, buckets: new Map() };
  for (const h of hs) {
    m.count += h.count;
    m.min = Math.min(m.min, h.min);
    m.max = Math.max(m.max, h.max);
    for (const [i, c] of h.buckets) m.buckets.set(i, (m.buckets.get(i) ?? 0) + c);
  }
  return m;
}

function bucketRange(i) {
  if (i < 2 * SUB) return [i, i + 1];
  const e = Math.floor((i - 2 * SUB) / SUB) + 1;
  const sub = ((i - 2 * SUB) % SUB) + SUB;
  return [sub * 2 ** e, (sub + 1) * 2 ** e];
}

// the nearest-rank percentile p of h, ns: its bucket's middle, within min … max
export function histPercentile(h, p) {
  const rank = Math.max(1, Math.ceil((p / 100) * h.count));
  let seen = 0;
  for (const i of [...h.buckets.keys()].sort((a, b) => a - b)) {
    seen += h.buckets.get(i);
    if (seen < rank) continue;
    const [lo, hi] = bucketRange(i);
    const mid = hi - lo === 1 ? lo : (lo + hi) / 2;
    return Math.min(Math.max(mid, h.min), h.max);
  }
  return h.max;
}

// hosts: [{start (BigInt ns on one clock), window_ns, samples: [{length_s,
// read_ios, write_ios}]}] → the common window's length (s), its I/Os (each
// second counted in proportion to its part inside) and the least share of a
// host's window inside it
export function commonWindow(hosts) {
  let cs = -Infinity, ce = Infinity;
  for (const h of hosts) {
    const s = Number(h.start);
    cs = Math.max(cs, s);
    ce = Math.min(ce, s + h.window_ns);
  }
  let ios = 0, share = 1;
  for (const h of hosts) {
    let at = Number(h.start);
    for (const s of h.samples) {
      const len = Math.round(s.length_s * 1e9);
      const lo = Math.max(at, cs), hi = Math.min(at + len, ce);
      if (hi > lo) ios += (s.read_ios + s.write_ios) * (hi - lo) / len;
      at += len;
    }
    share = Math.min(share, (ce - cs) / h.window_ns);
  }
  return { seconds: (ce - cs) / 1e9, ios, share };
}
