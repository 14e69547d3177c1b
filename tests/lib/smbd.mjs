// A real Samba server for tests and benchmarks: Debian's smbd on 127.0.0.1,
// a high port, a configuration and passdb in a fresh folder, a share that
// needs a user and a password (no guest). Used by tests/integration/smb.test.mjs
// and bench/vs-smbclient.mjs.
//
//   const s = await startSmbd({ root: '/tmp/x' });   // s.port, s.share('bench')
//   ...; await s.stop();                              // or s.kill() mid-run

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './daemon.mjs';

export const SMB_USER = 'root';
export const SMB_PASSWORD = 'sb-test-pass-7Q';

/** Why smbd cannot run here, or null when it can. */
export function smbdUnavailable() {
  if (process.getuid?.() !== 0) return 'smbd and its passdb need root';
  if (!fs.existsSync('/usr/sbin/smbd')) return 'smbd is not installed (apt-get install samba)';
  return null;
}

function portOpen(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

/**
 * Starts smbd with shares (name → extra smb.conf lines) under root.
 * Returns { port, dir, share(name), conf, stop(), kill(), status() }.
 */
export async function startSmbd({ root, port, shares = { bench: '' }, global = '' }) {
  const dir = fs.mkdtempSync(path.join(root, 'smbd-'));
  if (!port) port = await freePort();
  for (const d of ['private', 'lock', 'state', 'cache', 'run']) fs.mkdirSync(path.join(dir, d));
  let conf = `[global]
  server role = standalone server
  smb ports = ${port}
  interfaces = 127.0.0.1
  bind interfaces only = yes
  disable netbios = yes
  private dir = ${dir}/private
  lock directory = ${dir}/lock
  state directory = ${dir}/state
  cache directory = ${dir}/cache
  pid directory = ${dir}/run
  passdb backend = tdbsam:${dir}/private/passdb.tdb
  log file = ${dir}/smbd.log
  map to guest = never
  server min protocol = SMB2_02
${global}`;
  for (const [name, extra] of Object.entries(shares)) {
    fs.mkdirSync(path.join(dir, name));
    conf += `[${name}]\n  path = ${dir}/${name}\n  read only = no\n  guest ok = no\n${extra}\n`;
  }
  const confPath = path.join(dir, 'smb.conf');
  fs.writeFileSync(confPath, conf);
  execFileSync('smbpasswd', ['-c', confPath, '-s', '-a', SMB_USER],
    { input: `${SMB_PASSWORD}\n${SMB_PASSWORD}\n`, stdio: ['pipe', 'ignore', 'inherit'] });
  // its own session and process group: smbd signals its group when it
  // stops, and kill() must take its per-connection children too
  let proc, exited;
  const launch = async () => {
    proc = spawn('/usr/sbin/smbd', ['--foreground', '--no-process-group', '--configfile', confPath],
      { detached: true, stdio: 'ignore' });
    exited = new Promise((resolve) => proc.once('exit', resolve));
    let up = false;
    for (let i = 0; i < 100 && !(up = await portOpen(port)); i++) await sleep(100);
    if (!up) throw new Error(`smbd did not listen on 127.0.0.1:${port}; see ${dir}/smbd.log`);
  };
  await launch();
  const signalAll = (sig) => { try { process.kill(-proc.pid, sig); } catch { /* gone */ } };
  return {
    /** Starts the same server again (same port, shares and users) after kill(). */
    restart: launch,
    port,
    dir,
    conf: confPath,
    share: (name, sub = '') => `smb://127.0.0.1:${port}/${name}${sub ? '/' + sub : ''}`,
    /** The server dies at once, connections and all (a crash, a pulled cable). */
    kill: async () => { signalAll('SIGKILL'); await exited; },
    stop: async () => {
      signalAll('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      signalAll('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
    /** smbstatus --json of this server: sessions and tree connects as it sees them. */
    status: () => JSON.parse(execFileSync('smbstatus', ['-s', confPath, '--json'], { encoding: 'utf8' })),
  };
}
