// Real filesystems side by side: loop-mounted volumes (tests/lib/loopfs.mjs),
// a preset on each through the API, labelled for comparison. Used by
// scripts/demo-filesystems and tests/browser/compare.test.mjs.
import fs from 'node:fs';
import { api, waitJob } from './daemon.mjs';
import { loopFs } from './loopfs.mjs';

/**
 * Makes the volumes, runs `profile` on each (one after another, in the
 * daemon's queue), removes the volumes. Returns [{fs, cluster, label, run_id,
 * state, error}] and the volumes it had to skip, with why.
 */
export async function runDemo({ url, dir, profile = 'cdm-default', size = '256MiB', iterations = 3,
  duration = 2, filesystems = ['ext4', 'xfs', 'btrfs', 'ntfs'], ntfsClusters = [4096, 65536],
  volume = '2G', extraLabels = [], log = () => {} }) {
  const vols = [];
  const skipped = [];
  for (const type of filesystems) {
    for (const cluster of type === 'ntfs' ? ntfsClusters : [null]) {
      const v = loopFs(dir, type, volume, { cluster: cluster ?? undefined, directIo: true });
      if (v.skip) skipped.push({ fs: type, cluster, why: v.skip });
      else vols.push({ type, cluster, ...v });
    }
  }
  const out = [];
  try {
    const jobs = [];
    for (const v of vols) {
      const clusterBytes = v.cluster ?? fs.statfsSync(v.mnt).bsize;
      const labels = [v.type, `cluster-${clusterBytes}`, 'demo-fs', ...extraLabels];
      const body = { target: v.mnt, profile, size, iterations, duration_s: duration, interval_s: 0, labels };
      const r = await api(url, 'POST', '/api/v1/jobs', body);
      if (r.status !== 202) throw new Error(`${v.type}: ${r.text}`);
      log(`queued job ${r.json.id}: ${profile} on ${v.type}${v.cluster ? ` (cluster ${v.cluster} B)` : ''}`);
      jobs.push({ v, id: r.json.id, labels });
    }
    for (const j of jobs) {
      const job = await waitJob(url, j.id, 3600000);
      out.push({ fs: j.v.type, cluster: j.v.cluster, labels: j.labels, run_id: job.run_id,
        state: job.state, error: job.error });
      log(`job ${j.id} on ${j.v.type}: ${job.state}${job.error ? ` (${job.error})` : ''}, run ${job.run_id}`);
    }
  } finally {
    for (const v of vols) v.cleanup();
  }
  return { runs: out, skipped };
}

