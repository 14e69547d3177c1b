// tests/lib/cdmgen.mjs — CrystalDiskMark 8 result files made from a real
// one (a copy of ../shared/fixtures' cdm801 SATA file below, so that a
// clone without ../shared makes them too), every figure scaled by one
// factor and the date set: a series of runs of one drive with known
// levels, for the history tests and bench/history. The MB/s and IOPS of a
// line scale together and its latency inversely, so each file is as
// consistent as the real one.

/** The template: cdm801-sata-no-trailing-newline.txt of ../shared/fixtures, as it is. */
export const template = `------------------------------------------------------------------------------
CrystalDiskMark 8.0.1 x64 (C) 2007-2021 hiyohiyo
                                  Crystal Dew World: https://crystalmark.info/
------------------------------------------------------------------------------
* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]
* KB = 1000 bytes, KiB = 1024 bytes

[Read]
  SEQ    1MiB (Q=  8, T= 1):   534.383 MB/s [    509.6 IOPS] < 15662.75 us>
  SEQ    1MiB (Q=  1, T= 1):   504.314 MB/s [    481.0 IOPS] <  2078.16 us>
  RND    4KiB (Q= 32, T= 1):   261.929 MB/s [  63947.5 IOPS] <   484.28 us>
  RND    4KiB (Q=  1, T= 1):    38.578 MB/s [   9418.5 IOPS] <   105.93 us>

[Write]
  SEQ    1MiB (Q=  8, T= 1):   512.268 MB/s [    488.5 IOPS] < 16310.10 us>
  SEQ    1MiB (Q=  1, T= 1):   489.005 MB/s [    466.4 IOPS] <  2142.69 us>
  RND    4KiB (Q= 32, T= 1):   225.312 MB/s [  55007.8 IOPS] <   576.63 us>
  RND    4KiB (Q=  1, T= 1):   101.729 MB/s [  24836.2 IOPS] <    40.01 us>

Profile: Default
   Test: 1 GiB (x5) [C: 98% (109/111GiB)]
   Mode: [Admin]
   Time: Measure 5 sec / Interval 5 sec 
   Date: 2021/06/22 16:34:54
     OS: Windows 10  [10.0 Build 19042] (x64)
Comment: Samsung 840 EVO 120GB`;

const pad = (v, w, d) => v.toFixed(d).padStart(w);

/**
 * The template with every result scaled by `scale` (1.15: 15 % faster) and
 * dated `date` (a Date, written in UTC as CrystalDiskMark's "YYYY/MM/DD
 * hh:mm:ss"); `drive` ("D:") replaces its drive (the run's target), `os`
 * its OS line's text.
 */
export function cdmFile(scale, date, { drive, os } = {}) {
  const line = /^(\s+\S+\s+\S+ \(Q=\s*\d+, T=\s*\d+\):)(\s*)([\d.]+) MB\/s \[(\s*)([\d.]+) IOPS\] <(\s*)([\d.]+) us>/;
  const d = date.toISOString();
  return template.split('\n').map((l) => {
    const m = line.exec(l);
    if (m) {
      const w1 = m[2].length + m[3].length, w2 = m[4].length + m[5].length, w3 = m[6].length + m[7].length;
      return `${m[1]}${pad(Number(m[3]) * scale, w1, 3)} MB/s [${pad(Number(m[5]) * scale, w2, 1)} IOPS] <${pad(Number(m[7]) / scale, w3, 2)} us>`;
    }
    if (/^\s+Date: /.test(l))
      return l.replace(/\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d/,
        `${d.slice(0, 4)}/${d.slice(5, 7)}/${d.slice(8, 10)} ${d.slice(11, 19)}`);
    if (drive && /^\s+Test: /.test(l)) return l.replace(/\[C:/, `[${drive}`);
    if (os && /^\s+OS: /.test(l)) return l.replace(/OS: .*/, `OS: ${os}`);
    return l;
  }).join('\n');
}

/** A normal deviate (Box–Muller) from rnd, a function giving [0, 1). */
export function gauss(rnd) {
  const u = 1 - rnd(), v = rnd();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A seeded [0, 1) generator (mulberry32): the same series every run. */
export function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Imports a series of n generated files into the daemon at url, one a day
 * from `start` (a Date), each at level 1 (× 1 + step from run stepAt on)
 * with sd `noise` run to run (seeded: the same series every time); drive
 * and os as cdmFile's, os2 the OS from the step on. Returns the run ids.
 */
export async function importSeries(url, { n, stepAt = n, step = 0, noise = 0.02, seed = 1,
  start = new Date(Date.UTC(2026, 0, 1)), drive, os, os2 = os } = {}) {
  const rnd = seeded(seed), ids = [];
  for (let i = 0; i < n; i++) {
    const after = i >= stepAt;
    const body = cdmFile((after ? 1 + step : 1) * (1 + noise * gauss(rnd)),
      new Date(start.getTime() + i * 86400e3), { drive, os: after ? os2 : os });
    const r = await fetch(`${url}/api/v1/import?filename=series.txt`, { method: 'POST', body,
      headers: { 'Content-Type': 'application/octet-stream' } });
    if (r.status !== 201) throw new Error(`import ${i}: ${r.status} ${await r.text()}`);
    ids.push((await r.json()).id);
  }
  return ids;
}
