// Shared helpers for tests that drive the real storbench daemon.
// Used by tests/browser/dashboard.test.mjs and the integration tests.
// Node >= 20 only (built-in fetch); no dependencies.

import { spawn } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Ask the kernel for a free TCP port on 127.0.0.1 (bind port 0, read it, close). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Start `bin serve --listen 127.0.0.1:PORT --data DIR` and wait until
 * GET /healthz answers 200.
 *
 * @param {object} o
 * @param {string} o.bin          path to the storbench binary
 * @param {string} o.dataDir      data directory (must exist or be creatable by the daemon)
 * @param {number} [o.port]       port; a free one is picked when omitted
 * @param {string} [o.host='127.0.0.1'] the IPv4 address it listens on (another of
 *                                127.0.0.0/8: a daemon that is not on 127.0.0.1)
 * @param {string[]} [o.allow]    directories or smb:// shares jobs may use (one --allow each;
 *                                DATA/scratch is always allowed)
 * @param {string[]} [o.args]     extra arguments appended after the standard ones
 * @param {object} [o.env]        extra environment variables
 * @param {number} [o.startTimeoutMs=15000]
 * @param {boolean} [o.quiet=false] do not echo the daemon's stdout/stderr
 * @param {string[]} [o.wrap]     a program and its arguments that run bin (wine64 for
 *                                storbench.exe), or none
 * @param {string} [o.stopSignal='SIGTERM'] what stop() sends (wine turns SIGINT, not
 *                                SIGTERM, into the console event storbench.exe waits for)
 * @returns {Promise<{url: string, port: number, proc: import('node:child_process').ChildProcess,
 *                    output: () => string, stop: (timeoutMs?: number) => Promise<{code: number|null, signal: string|null}>}>}
 */
export async function startDaemon({ bin, dataDir, port, host = '127.0.0.1', allow = [], args = [], env = {}, startTimeoutMs = 15000,
  quiet = false, wrap = [], stopSignal = 'SIGTERM' } = {}) {
  if (!bin) throw new Error('startDaemon: bin is required');
  if (!dataDir) throw new Error('startDaemon: dataDir is required');
  if (!port) port = await freePort();
  const url = `http://${host}:${port}`;
  const argv = ['serve', '--listen', `${host}:${port}`, '--data', dataDir,
    ...allow.flatMap((a) => ['--allow', a]), ...args];

  const [cmd, ...pre] = wrap.length ? [...wrap, bin] : [bin];
  const proc = spawn(cmd, [...pre, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  const keep = (chunk) => {
    const s = chunk.toString();
    out += s;
    if (out.length > 1 << 20) out = out.slice(-(1 << 19));
    if (!quiet) process.stderr.write(`[storbench] ${s.replace(/\n(?=.)/g, '\n[storbench] ')}`);
  };
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);

  let exited = null;
  const exitPromise = new Promise((resolve) => {
    proc.once('exit', (code, signal) => { exited = { code, signal }; resolve(exited); });
  });
  let spawnError = null;
  proc.once('error', (e) => { spawnError = e; });

  const stop = async (timeoutMs = 10000) => {
    if (exited) return exited;
    proc.kill(stopSignal);
    const t = sleep(timeoutMs).then(() => 'timeout');
    const r = await Promise.race([exitPromise, t]);
    if (r === 'timeout') {
      proc.kill('SIGKILL');
      await exitPromise;
      throw new Error(`storbench did not exit within ${timeoutMs} ms of ${stopSignal} (killed)`);
    }
    return r;
  };

  const deadline = Date.now() + startTimeoutMs;
  let lastErr = null;
  while (Date.now() < deadline) {
    if (spawnError) throw new Error(`cannot start ${bin}: ${spawnError.message}`);
    if (exited) {
      throw new Error(`storbench exited before answering /healthz (code ${exited.code}, signal ${exited.signal})\n${out}`);
    }
    try {
      const r = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      await r.arrayBuffer();
      if (r.status === 200) return { url, port, proc, output: () => out, stop };
      lastErr = new Error(`/healthz answered ${r.status}`);
    } catch (e) {
      lastErr = e;
    }
    await sleep(100);
  }
  await stop(3000).catch(() => {});
  throw new Error(`storbench did not answer ${url}/healthz within ${startTimeoutMs} ms: ${lastErr?.message}\n${out}`);
}

/**
 * Runs a command to its end without blocking the event loop, as spawnSync
 * would: a test blocked longer than the daemon's idle timeout (10 s) misses
 * the daemon closing fetch's pooled keep-alive connection, and its next
 * fetch is sent on the closed socket ("other side closed").
 * @returns {Promise<{status: number|null, signal: string|null, stdout: string, stderr: string}>}
 */
export function runCommand(cmd, args, { env, cwd, timeoutMs = 120000 } = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, env: env ? { ...process.env, ...env } : process.env });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (s) => { stdout += s; });
    p.stderr.setEncoding('utf8').on('data', (s) => { stderr += s; });
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('error', (e) => { clearTimeout(timer); reject(e); });
    p.on('close', (status, signal) => { clearTimeout(timer); resolve({ status, signal, stdout, stderr }); });
  });
}

/**
 * One HTTP request to the daemon.
 * body: an object/array is sent as JSON; a string or a Buffer is sent as is (for malformed-JSON
 * tests, a file to import: pass its Content-Type); undefined sends no body.
 * @returns {Promise<{status: number, headers: Headers, json: any, text: string}>}
 * json is null when the body is empty or not JSON.
 */
export async function api(url, method, path, body, { headers = {}, timeoutMs = 10000 } = {}) {
  const init = { method, headers: { ...headers }, signal: AbortSignal.timeout(timeoutMs) };
  if (body !== undefined) {
    init.body = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    if (!Object.keys(init.headers).some((h) => h.toLowerCase() === 'content-type')) {
      init.headers['Content-Type'] = 'application/json';
    }
  }
  const r = await fetch(url + path, init);
  const text = await r.text();
  let json = null;
  if (text.length) {
    try { json = JSON.parse(text); } catch { json = null; }
  }
  return { status: r.status, headers: r.headers, json, text };
}

/**
 * Poll GET /api/v1/jobs/{id} until its state is neither queued nor running.
 * @returns {Promise<object>} the final job object
 */
export async function waitJob(url, id, timeoutMs = 120000, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let job = null;
  while (Date.now() < deadline) {
    const r = await api(url, 'GET', `/api/v1/jobs/${id}`);
    if (r.status !== 200) throw new Error(`GET /api/v1/jobs/${id} answered ${r.status}: ${r.text}`);
    job = r.json;
    if (job && job.state !== 'queued' && job.state !== 'running') return job;
    await sleep(intervalMs);
  }
  throw new Error(`job ${id} still ${job?.state} after ${timeoutMs} ms (progress ${JSON.stringify(job?.progress)})`);
}

/**
 * GET /api/v1/runs/{id}?format=csv, a row an object keyed by the header's
 * columns (values as the CSV writes them: '' for null). For runs whose
 * fields hold no comma or quote (test names as storbench and the importers
 * make them).
 * @returns {Promise<object[]>}
 */
export async function runCsv(url, id) {
  const r = await api(url, 'GET', `/api/v1/runs/${id}?format=csv`);
  if (r.status !== 200) throw new Error(`GET /api/v1/runs/${id}?format=csv answered ${r.status}: ${r.text}`);
  const [head, ...rows] = r.text.split(/\r?\n/).filter((l) => l.length);
  const cols = head.split(',');
  return rows.map((l) => Object.fromEntries(l.split(',').map((v, k) => [cols[k], v])));
}
