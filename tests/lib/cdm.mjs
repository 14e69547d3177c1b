// CrystalDiskMark's layout as `storbench run` prints it, read back and held
// against the stored run (tests/integration/cli.test.mjs and
// tests/windows/wine.test.mjs: the same text from storbench and
// storbench.exe).
import assert from 'node:assert/strict';

// "  SEQ   1MiB (Q=  8, T= 1):  1930.192 MB/s [   1840.8 IOPS] <  4311.22 us>"
const LINE = /^ {2}(SEQ|RND) +(\d+)(MiB|KiB) \(Q= *(\d+), T= *(\d+)\): +([\d.]+) MB\/s \[ *([\d.]+) IOPS\] < *([\d.]+) us>$/;

// The result lines of text (CRLF or LF), in a [Read] then a [Write]
// section: [{ test: 'SEQ1M Q8T1', rw: 'read', mb_s, iops, lat_us }], each
// number as the text prints it.
export function cdmRows(text) {
  const lines = text.replace(/\r/g, '').split('\n');
  const read = lines.indexOf('[Read]'), write = lines.indexOf('[Write]');
  assert.ok(read > 0 && write > read, text);
  return lines.map((l, i) => ({ m: LINE.exec(l), rw: i > write ? 'write' : 'read' })).filter((x) => x.m)
    .map(({ m, rw }) => ({ test: `${m[1]}${m[2]}${m[3] === 'MiB' ? 'M' : 'K'} Q${m[4]}T${m[5]}`, rw,
      mb_s: m[6], iops: m[7], lat_us: m[8] }));
}

// Every row is a test of run (GET /api/v1/runs/{id}) with its best
// iteration's MB/s, IOPS and mean latency at the printed precision; the
// run's tests, in the order of the rows.
export function assertRowsAreRun(rows, run) {
  return rows.map((row) => {
    const t = run.tests.find((x) => x.test === row.test && x.rw === row.rw);
    assert.ok(t, `${row.test} ${row.rw} in the run`);
    assert.equal(Number(row.mb_s).toFixed(3), t.best.mb_s.toFixed(3), `${row.test} ${row.rw} MB/s`);
    assert.equal(Number(row.iops).toFixed(1), t.best.iops.toFixed(1), `${row.test} ${row.rw} IOPS`);
    assert.equal(Number(row.lat_us).toFixed(2), t.best.lat_mean_us.toFixed(2), `${row.test} ${row.rw} latency`);
    return t;
  });
}
