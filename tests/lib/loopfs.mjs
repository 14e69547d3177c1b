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
};

const run = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();

/**
 * Makes a `type` filesystem of `size` (e.g. '4G') in dir and mounts it.
 * @returns {{mnt: string, dev: string, cleanup: () => void} | {skip: string}}
 */
export function loopFs(dir, type, size = '4G') {
  if (process.getuid?.() !== 0) return { skip: 'needs root (losetup, mount)' };
  const img = path.join(dir, `${type}.img`);
  const mnt = path.join(dir, `${type}-mnt`);
  let dev = null;
  try {
    run('truncate', ['-s', size, img]);
    dev = run('losetup', ['--find', '--show', img]);
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
    run(MKFS[type][0], [...MKFS[type].slice(1), dev]);
    fs.mkdirSync(mnt, { recursive: true });
    run('mount', [dev, mnt]);
  } catch (e) {
    cleanup();
    return { skip: `cannot make ${type} (${String(e.stderr ?? e.message).trim()})` };
  }
  return { mnt, dev, cleanup };
}
