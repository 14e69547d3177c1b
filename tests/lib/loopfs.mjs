// Real filesystems on loop devices for tests: a sparse image file, a loop
// device, mkfs, a mount. Needs root and loop devices; loopFs() returns
// {skip: reason} when it cannot have them, so a test can say why it skips.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const MKFS = {
  ext4: ['mkfs.ext4', '-q', '-F'],
  xfs: ['mkfs.xfs', '-q', '-f'], // reflink is on by default (xfsprogs ≥ 5.1)
  btrfs: ['mkfs.btrfs', '-q', '-f'],
  ntfs: ['mkfs.ntfs', '-q', '-F', '-Q'], // quick format; ntfs-3g mounts it
};

// The cluster (allocation unit) size option of each mkfs, bytes.
const CLUSTER = {
  ext4: (b) => ['-b', String(b)],
  xfs: (b) => ['-b', `size=${b}`],
  btrfs: (b) => ['-s', String(b)],
  ntfs: (b) => ['-c', String(b)],
};

const run = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();

/**
 * Makes a `type` filesystem (ext4, xfs, btrfs, ntfs) of `size` (e.g. '4G')
 * in dir and mounts it; `cluster` sets the allocation unit in bytes;
 * `directIo` makes the loop device bypass the page cache of its image file
 * (losetup --direct-io=on), so the numbers are the disk's, not memory's.
 * @returns {{mnt: string, dev: string, cleanup: () => void} | {skip: string}}
 */
export function loopFs(dir, type, size = '4G', { cluster, directIo = false } = {}) {
  if (process.getuid?.() !== 0) return { skip: 'needs root (losetup, mount)' };
  const name = cluster ? `${type}-${cluster}` : type;
  const img = path.join(dir, `${name}.img`);
  const mnt = path.join(dir, `${name}-mnt`);
  let dev = null;
  try {
    run('truncate', ['-s', size, img]);
    dev = run('losetup', ['--find', '--show', ...(directIo ? ['--direct-io=on'] : []), img]);
  } catch (e) {
    fs.rmSync(img, { force: true });
    return { skip: `no loop device (${String(e.stderr ?? e.message).trim()})` };
  }
  const cleanup = () => {
    try { run('umount', [mnt]); } catch { /* not mounted */ }
    try { run('losetup', ['-d', dev]); } catch { /* gone */ }
    fs.rmSync(mnt, { recursive: true, force: true });
    fs.rmSync(img, { force: true });
  };
  try {
    run(MKFS[type][0], [...MKFS[type].slice(1), ...(cluster ? CLUSTER[type](cluster) : []), dev]);
    fs.mkdirSync(mnt, { recursive: true });
    run('mount', type === 'ntfs' ? ['-t', 'ntfs-3g', dev, mnt] : [dev, mnt]);
  } catch (e) {
    cleanup();
    return { skip: `cannot make ${type} (${String(e.stderr ?? e.message).trim()})` };
  }
  return { mnt, dev, cleanup };
}
