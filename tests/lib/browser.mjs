// Headless Chromium for the browser tests: Debian's chromium driven by
// playwright-core (installed in tests/browser by scripts/bootstrap --test).

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Is u a loopback (or data:/blob:/about:) URL? The dashboard loads nothing else. */
export function isLoopback(u) {
  let url;
  try { url = new URL(u); } catch { return false; }
  if (['data:', 'blob:', 'about:'].includes(url.protocol)) return true;
  return ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(url.hostname) || /^127\./.test(url.hostname);
}

/** Does the canvas matching selector hold drawn (non-transparent) pixels? */
export async function canvasDrawn(page, selector) {
  return page.$eval(selector, (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
    return n;
  });
}
