// Runs Windows programs under Debian's wine64 (package wine64: no wine
// wrapper, the loader is /usr/lib/wine/wine64) in a private prefix: no
// display, no Mono or Gecko installers, no debug channels. Wine maps the
// Linux tree to drive Z:, so a Linux path p is Z:\p on the Windows side.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const WINE = '/usr/lib/wine/wine64';
export const WINESERVER = '/usr/lib/wine/wineserver64';

// Why wine cannot run here, or null.
export function wineMissing() {
  if (!fs.existsSync(WINE)) return `${WINE} is missing (scripts/bootstrap --test installs wine64)`;
  return null;
}

// Why the storbench.exe tests cannot run here (wine missing, exe not built),
// or null; printed as "skip storbench.exe WHAT: why".
export function exeMissing(exe, what = 'tests') {
  const why = wineMissing() ??
    (!exe || !fs.existsSync(exe)
      ? `${exe} was not built (scripts/build-windows needs x86_64-w64-mingw32-gcc-posix: scripts/bootstrap --test)`
      : null);
  if (why) console.log(`skip storbench.exe ${what}: ${why}`);
  return why;
}

// The Windows name of Linux path p: Z:\… with backslashes.
export const winPath = (p) => `Z:${path.resolve(p).replace(/\//g, '\\')}`;

export function wineEnv(prefix) {
  const env = { ...process.env, WINEPREFIX: prefix, WINEARCH: 'win64',
    WINEDLLOVERRIDES: 'mscoree,mshtml=', WINEDEBUG: '-all',
    // wine reads the command line's bytes in the locale's character set
    LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8',
    // no display, even merged into another environment
    DISPLAY: '', WAYLAND_DISPLAY: '' };
  return env;
}

// Makes the prefix: a copy of a booted template kept in STORBENCH_OUT
// (wineboot takes about 20 s, a copy about 2), made the first time and again
// when wine's version changes; without STORBENCH_OUT, wineboot in place.
// Waits for the prefix's wineserver to settle.
export function wineBoot(prefix) {
  const out = process.env.STORBENCH_OUT;
  const boot = (dir) => {
    fs.mkdirSync(dir, { recursive: true });
    const r = spawnSync(WINE, ['wineboot', '-i'], { env: wineEnv(dir), encoding: 'utf8', timeout: 180000 });
    spawnSync(WINESERVER, ['-w'], { env: wineEnv(dir), timeout: 180000 });
    return r;
  };
  if (!out) return keepUp(prefix, boot(prefix));
  const template = path.join(path.resolve(out), 'wine-template');
  const marker = path.join(template, '.storbench-booted');
  const version = spawnSync(WINE, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!fs.existsSync(marker) || fs.readFileSync(marker, 'utf8') !== version) {
    fs.rmSync(template, { recursive: true, force: true });
    const r = boot(template);
    if (r.status !== 0) return r;
    fs.writeFileSync(marker, version);
  }
  fs.rmSync(prefix, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(prefix), { recursive: true });
  return keepUp(prefix, spawnSync('cp', ['-a', template, prefix], { encoding: 'utf8', timeout: 120000 }));
}

// A booted prefix's wineserver and services started once, detached from
// every pipe, and kept until wineKill: a program started later joins them.
// Otherwise the first program's wineserver and services inherit its stdout
// and stderr, and a spawnSync waits for them: the server's 3 s linger after
// every program (about 2.5 s a run instead of 0.3). r: the boot's result,
// passed through.
function keepUp(prefix, r) {
  if (r.status !== 0) return r;
  const env = wineEnv(prefix);
  spawnSync(WINESERVER, ['-p'], { env, stdio: 'ignore', timeout: 60000 });
  spawnSync(WINE, ['wineboot'], { env, stdio: 'ignore', timeout: 180000 });
  return r;
}

// A test file's prefix: booted before its tests (unless why says they are
// skipped), killed with everything in it and removed with root after them.
export function bootPrefix(prefix, why) {
  if (why) return;
  const r = wineBoot(prefix);
  if (r.status !== 0) throw new Error(`wineboot: ${r.stderr}`);
}
export function dropPrefix(prefix, root, why) {
  if (!why) wineKill(prefix);
  fs.rmSync(root, { recursive: true, force: true });
}

// Runs exe with args and waits: { status, stdout, stderr }.
export function wineRun(prefix, exe, args, opts = {}) {
  return spawnSync(WINE, [exe, ...args], { env: wineEnv(prefix), encoding: 'utf8', timeout: 300000, ...opts });
}

// Starts exe with args in the background (a ChildProcess).
export function wineSpawn(prefix, exe, args, opts = {}) {
  return spawn(WINE, [exe, ...args], { env: wineEnv(prefix), ...opts });
}

// Stops the prefix's wineserver and every program in it.
export function wineKill(prefix) {
  spawnSync(WINESERVER, ['-k'], { env: wineEnv(prefix), timeout: 60000 });
}
