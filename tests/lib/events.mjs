// The daemon's event stream (GET /api/v1/events, text/event-stream) read
// as it arrives, for tests that watch a job while it runs.
import http from 'node:http';

/** Opens the event stream; events arrive in .events as {id, name, data, t}. */
export function stream(url, headers = {}) {
  const s = { events: [], comments: [], status: 0, headers: null, req: null };
  s.opened = new Promise((resolve, reject) => {
    s.req = http.get(`${url}/api/v1/events`, { headers }, (res) => {
      s.status = res.statusCode;
      s.headers = res.headers;
      resolve();
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const ev = { t: Date.now() };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) s.comments.push(line);
            else if (line.startsWith('id: ')) ev.id = Number(line.slice(4));
            else if (line.startsWith('event: ')) ev.name = line.slice(7);
            else if (line.startsWith('data: ')) ev.data = JSON.parse(line.slice(6));
          }
          if (ev.name) s.events.push(ev);
        }
      });
      // close() aborts the response: nothing to report
      res.on('error', () => {});
    });
    s.req.on('error', reject);
  });
  s.close = () => s.req.destroy();
  return s;
}
