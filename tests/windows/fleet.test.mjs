// A mixed Linux/Windows set of hosts: storbench on Linux coordinates a
// multi-host job whose other host is storbench.exe serve under wine. Each
// host measures on its own scratch folder (no target given: each host's
// default), with its own back-end (io_uring here, iocp there); the
// aggregate is the hosts' sum over the common window, its histogram the
// bucket-wise sum of the two hosts'. Wine checks logic: its clock is this
// machine's, and its I/O is not Windows' (docs/windows.md).
//
//   STORBENCH_BIN=build/storbench STORBENCH_EXE=build/win/exe/storbench.exe \
//   STORBENCH_OUT=build/test-out node --test fleet.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, api, waitJob } from '../lib/daemon.mjs';
import { WINE, exeMissing, bootPrefix, dropPrefix, winPath, wineEnv } from '../lib/wine.mjs';
import { decodeHist, mergeHists, histPercentile } from '../lib/fleet.mjs';

const bin = process.env.STORBENCH_BIN;
const exe = process.env.STORBENCH_EXE;
const out = process.env.STORBENCH_OUT;
assert.ok(bin && fs.existsSync(bin), 'STORBENCH_BIN must name the storbench binary');
assert.ok(out, 'STORBENCH_OUT must name an output folder');
const why = exeMissing(exe, 'the mixed multi-host test');
const opts = { skip: why ?? false };

const root = fs.mkdtempSync(path.join(path.resolve(out), 'wine-fleet-'));
const prefix = path.join(root, 'prefix');
before(() => bootPrefix(prefix, why));
after(() => dropPrefix(prefix, root, why));

test('a Linux coordinator and storbench.exe under wine run one job together', opts, async () => {
  const lin = await startDaemon({ bin, dataDir: path.join(root, 'lin'), quiet: true });
  const win = await startDaemon({ bin: exe, wrap: [WINE], env: wineEnv(prefix), dataDir: winPath(path.join(root, 'win')),
    stopSignal: 'SIGINT', startTimeoutMs: 90000, quiet: true });
  try {
    let r = await api(lin.url, 'POST', '/api/v1/peers', { name: 'win1', url: win.url });
    assert.equal(r.status, 201, r.text);
    // wine answers a round trip in several ms (the bound's uncertainty is
    // half of it): a bound of 50 ms, not the default 5, for this set
    r = await api(lin.url, 'POST', '/api/v1/jobs', { hosts: ['self', 'win1'], clock_bound_ms: 50, profile: 'custom', size: '16MiB',
      iterations: 2, duration_s: 1, interval_s: 0, tests: [{ name: 'RND4K Q4T1', block_size: '4KiB', queue_depth: 4 }] });
    assert.equal(r.status, 202, r.text);
    const job = await waitJob(lin.url, r.json.id, 180000);
    assert.equal(job.state, 'done', job.error);
    const agg = (await api(lin.url, 'GET', `/api/v1/runs/${job.run_id}`)).json;
    const hosts = agg.probe.fleet.hosts;
    assert.deepEqual(hosts.map((h) => [h.name, h.os]), [['self', 'linux'], ['win1', 'windows']]);
    const docs = await Promise.all(hosts.map(async (h) => (await api(lin.url, 'GET', `/api/v1/runs/${h.run_id}?format=storbench`)).json));
    assert.deepEqual(docs.map((d) => d.engine.target), ['io_uring', 'iocp']);
    const aggDoc = (await api(lin.url, 'GET', `/api/v1/runs/${job.run_id}?format=storbench`)).json;
    for (const it of aggDoc.tests[0].iterations) {
      const mine = docs.map((d) => d.tests[0].iterations.find((x) => x.iteration === it.iteration));
      const merged = mergeHists(mine.map((m) => decodeHist(m.raw.histogram)));
      assert.equal(decodeHist(it.raw.histogram).count, merged.count);
      const p99 = histPercentile(merged, 99) / 1e3;
      assert.ok(Math.abs(it.latency_us.p99 - p99) <= 1e-9 * p99, `${it.latency_us.p99} vs ${p99}`);
      const sum = mine.reduce((a, m) => a + m.iops, 0);
      assert.ok(Math.abs(it.iops - sum) / sum < 0.1, `aggregate ${it.iops} vs the hosts' ${sum}`);
    }
    // the Windows host's test file is gone from its scratch folder
    const scratch = path.join(root, 'win', 'scratch');
    assert.deepEqual(fs.existsSync(scratch) ? fs.readdirSync(scratch).filter((f) => f.startsWith('storbench-')) : [], []);
  } finally {
    await win.stop(30000).catch(() => {});
    await lin.stop().catch(() => {});
  }
});
