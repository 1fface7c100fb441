// Slow clients against a server on loopback, and how a normal client fares meanwhile. Used by
// tests/interop/hostile_http.test.mjs (bounded: seconds, loopback only) and by
// bench/http_run.sh (the slowloris figure of bench/README.md).
//
//   const attack = slowHeaders({ port, connections: 1000, byteEveryMs: 1000 });
//   await attack.opened();              // every connection is open (or refused)
//   ... measure a normal client ...
//   const stats = attack.stop();        // { opened, closedByServer, bytesSent }
//
// As a command: node slowloris.mjs PORT [CONNECTIONS] [SECONDS] [TOKEN] prints one JSON line
// with the normal client's latencies (GET /livez, and GET /v1/whoami with TOKEN) measured every
// 200 ms while CONNECTIONS connections trickle a request head at one byte a second.
import net from 'node:net';
import { pathToFileURL } from 'node:url';

// Opens `connections` sockets that send a request line and then one header byte every
// `byteEveryMs`, never finishing the head. A socket the server closes is counted, not reopened.
export function slowHeaders({ port, connections, byteEveryMs = 1000, host = '127.0.0.1' }) {
  const sockets = new Set();
  let opened = 0;
  let closedByServer = 0;
  let bytesSent = 0;
  let stopping = false;
  const pending = [];
  for (let i = 0; i < connections; i++) {
    pending.push(
      new Promise((resolve) => {
        const s = net.connect({ port, host });
        s.setNoDelay(true);
        s.on('connect', () => {
          opened++;
          s.write('GET /livez HTTP/1.1\r\nHost: x\r\nX-Slow: ');
          resolve();
        });
        s.on('data', () => {}); // a 408 or a 503: read and drop
        s.on('error', () => resolve());
        s.on('close', () => {
          sockets.delete(s);
          if (!stopping) closedByServer++;
          resolve();
        });
        sockets.add(s);
      }),
    );
  }
  const timer = setInterval(() => {
    for (const s of sockets) {
      if (s.writable) {
        s.write('a');
        bytesSent++;
      }
    }
  }, byteEveryMs);
  return {
    opened: () => Promise.all(pending),
    open: () => sockets.size,
    stop: () => {
      stopping = true;
      clearInterval(timer);
      for (const s of sockets) s.destroy();
      return { opened, closedByServer, bytesSent };
    },
  };
}

// Opens `connections` sockets that send a whole request head announcing a body of `length`
// bytes, then one body byte every `byteEveryMs`.
export function slowBodies({ port, connections, path, headers = {}, length = 1000, byteEveryMs = 5000 }) {
  const sockets = new Set();
  const outcomes = [];
  let stopping = false;
  for (let i = 0; i < connections; i++) {
    const s = net.connect({ port, host: '127.0.0.1' });
    const started = Date.now();
    let reply = '';
    s.on('connect', () => {
      const extra = Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\n${extra}Content-Length: ${length}\r\n\r\n`);
    });
    s.on('data', (d) => (reply += d.toString('latin1')));
    s.on('error', () => {});
    s.on('close', () => {
      sockets.delete(s);
      if (!stopping) outcomes.push({ seconds: (Date.now() - started) / 1000, reply });
    });
    sockets.add(s);
  }
  const timer = setInterval(() => {
    for (const s of sockets) if (s.writable) s.write('{');
  }, byteEveryMs);
  return {
    outcomes,
    open: () => sockets.size,
    stop: () => {
      stopping = true;
      clearInterval(timer);
      for (const s of sockets) s.destroy();
    },
  };
}

// One GET on a fresh connection; resolves to { status, ms } (status 0 when there was no answer
// within `timeoutMs`).
export function timedGet({ port, path, token, timeoutMs = 5000 }) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const s = net.connect({ port, host: '127.0.0.1' });
    let data = '';
    const done = (status) => {
      clearTimeout(timer);
      s.destroy();
      resolve({ status, ms: Number(process.hrtime.bigint() - started) / 1e6 });
    };
    const timer = setTimeout(() => done(0), timeoutMs);
    s.on('connect', () => {
      const auth = token ? `Authorization: Bearer ${token}\r\n` : '';
      s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`);
    });
    s.on('data', (d) => {
      data += d.toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (m && data.includes('\r\n\r\n')) done(Number(m[1]));
    });
    s.on('error', () => done(0));
    s.on('close', () => done(0));
  });
}

// Every `everyMs` for `seconds`, a normal client's GET of each path; resolves to the samples.
export async function probe({ port, paths, token, seconds, everyMs = 200, timeoutMs = 5000 }) {
  const samples = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const round = await Promise.all(
      paths.map((path) => timedGet({ port, path, token: path === '/livez' ? '' : token, timeoutMs })),
    );
    round.forEach((r, i) => samples.push({ path: paths[i], ...r }));
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return samples;
}

export function summarize(samples) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const q = (p) => (ms.length ? ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] : null);
  return {
    requests: samples.length,
    answered: samples.filter((s) => s.status === 200).length,
    p50_ms: q(0.5),
    p99_ms: q(0.99),
    max_ms: ms.length ? ms[ms.length - 1] : null,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.argv[2]);
  const connections = Number(process.argv[3] ?? 1000);
  const seconds = Number(process.argv[4] ?? 10);
  const token = process.argv[5] ?? '';
  const attack = slowHeaders({ port, connections });
  await attack.opened();
  await new Promise((r) => setTimeout(r, 500));
  const paths = token ? ['/livez', '/v1/whoami'] : ['/livez'];
  const samples = await probe({ port, paths, token, seconds, timeoutMs: 10000 });
  const open = attack.open();
  const stats = attack.stop();
  console.log(JSON.stringify({ connections, open_at_end: open, ...stats, ...summarize(samples) }));
  process.exit(0);
}
