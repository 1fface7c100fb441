// The hostile-client suite, HTTP transport part (issue 14, defects 2, 3 and 8): slow clients
// cannot lock anyone out, request heads and bodies have whole-request deadlines, connections
// past the limit are refused at once, and framing is strict enough that a proxy and tarn can
// never disagree on where a request ends. Against a real `tarn serve` on loopback, with raw
// sockets (fetch would normalise what is sent). Bounded: about 40 s in all.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import fs from 'node:fs';
import { scratch } from './duckdb_compare.mjs';
import { startServe } from './tarn_process.mjs';
import { slowHeaders, slowBodies, probe, summarize, timedGet } from './slowloris.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('hostile_http');
const OWNER_ID = 'tarn_hostilehttpowner000';
const OWNER_SECRET = 'hostile-http-owner-secret-0123456789';
let serve;
let port;
let token;

before(async () => {
  serve = await startServe({
    bin,
    catalog: path.join(dir, 'catalog'),
    logPath: path.join(dir, 'serve.log'),
    ownerId: OWNER_ID,
    ownerSecret: OWNER_SECRET,
    // Short deadlines keep the suite fast; the defaults are 10 s each.
    args: ['--header-timeout', '3', '--body-grace', '2', '--body-min-rate', '1KiB', '--max-connections', '1200'],
  });
  port = serve.port;
  const r = await fetch(`${serve.url}/v1/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials&client_id=${OWNER_ID}&client_secret=${OWNER_SECRET}`,
  });
  token = (await r.json()).access_token;
  assert.ok(token);
});
after(async () => {
  if (serve) await serve.stop();
});

// Sends `bytes` on a fresh connection and collects what comes back until the server closes or
// `ms` pass: { text, closed } (closed: the server ended the connection).
function raw(bytes, ms = 3000) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    let text = '';
    let closed = false;
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ text, closed });
    }, ms);
    s.on('connect', () => s.write(bytes));
    s.on('data', (d) => (text += d.toString('latin1')));
    s.on('error', () => {});
    s.on('end', () => (closed = true));
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

const statuses = (text) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
const codeOf = (text) => (/"code":"([a-z_]+)"/.exec(text) || [])[1];

test('1,000 connections trickling their heads do not keep a normal client from its answers', async () => {
  const attack = slowHeaders({ port, connections: 1000, byteEveryMs: 500 });
  await attack.opened();
  await new Promise((r) => setTimeout(r, 300));
  assert.ok(attack.open() >= 990, `only ${attack.open()} slow connections stayed open`);
  const samples = await probe({ port, paths: ['/livez', '/v1/whoami'], token, seconds: 2.5, everyMs: 100, timeoutMs: 3000 });
  const stats = attack.stop();
  const s = summarize(samples);
  assert.equal(s.answered, s.requests, JSON.stringify(samples.filter((x) => x.status !== 200).slice(0, 5)));
  assert.ok(s.max_ms < 1000, `a normal client waited ${s.max_ms} ms (p50 ${s.p50_ms})`);
  assert.ok(stats.opened >= 1000);
});

test('a trickled head is cut off by the head deadline, however slowly it arrives', async () => {
  const started = Date.now();
  const attack = slowHeaders({ port, connections: 20, byteEveryMs: 200 });
  await attack.opened();
  while (attack.open() > 0 && Date.now() - started < 8000) await new Promise((r) => setTimeout(r, 100));
  const secs = (Date.now() - started) / 1000;
  const stats = attack.stop();
  assert.equal(stats.closedByServer, 20, 'the server closed every trickling connection');
  assert.ok(secs >= 2.5 && secs < 6, `closed after ${secs} s with a 3 s head deadline`);
});

test('a body trickled one byte every 5 s is cut off with 408 and holds no worker', async () => {
  const started = Date.now();
  const attack = slowBodies({
    port,
    connections: 80, // more than the 64 workers: none of them may be held
    path: '/v1/workspaces',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    length: 5000,
    byteEveryMs: 5000,
  });
  // Meanwhile the server answers others.
  const during = await probe({ port, paths: ['/v1/whoami'], token, seconds: 1, everyMs: 100, timeoutMs: 2000 });
  assert.equal(summarize(during).answered, summarize(during).requests);
  while (attack.open() > 0 && Date.now() - started < 10000) await new Promise((r) => setTimeout(r, 100));
  attack.stop();
  assert.equal(attack.outcomes.length, 80);
  for (const o of attack.outcomes) {
    assert.ok(o.seconds < 8, `a slow body lasted ${o.seconds} s`);
    assert.deepEqual(statuses(o.reply), [408], o.reply.slice(0, 200));
    assert.equal(codeOf(o.reply), 'request_timeout');
  }
});

test('a large body (read by a worker) trickled after its head is cut off with 408 too', async () => {
  const started = Date.now();
  const attack = slowBodies({
    port,
    connections: 10,
    path: '/v1/workspaces',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    length: 2_000_000, // past what the I/O threads read whole: a worker streams it
    byteEveryMs: 5000,
  });
  while (attack.open() > 0 && Date.now() - started < 10000) await new Promise((r) => setTimeout(r, 100));
  attack.stop();
  assert.equal(attack.outcomes.length, 10);
  for (const o of attack.outcomes) {
    assert.ok(o.seconds < 6, `a slow body lasted ${o.seconds} s`);
    assert.deepEqual(statuses(o.reply), [408], o.reply.slice(0, 200));
  }
});

test('Expect: 100-continue gets its 100 before the body, and a refusal without it', async () => {
  const body = '{"name":"continued_ws"}';
  const ok = await raw(
    `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  );
  assert.deepEqual(statuses(ok.text), [100, 200], ok.text);
  const refused = await raw(
    `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 5000000\r\n\r\n`,
  );
  assert.deepEqual(statuses(refused.text), [401], refused.text);
  assert.ok(refused.closed);
});

test('past the connection limit a connection is answered 503 at once, without a request', async () => {
  // Hold 1,200 (the limit) idle connections, then one more says 503 before sending anything.
  const held = slowHeaders({ port, connections: 1200, byteEveryMs: 1000 });
  await held.opened();
  await new Promise((r) => setTimeout(r, 200));
  const reply = await new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    let text = '';
    const timer = setTimeout(() => {
      s.destroy();
      resolve(text);
    }, 2000);
    s.on('data', (d) => (text += d.toString('latin1')));
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
  held.stop();
  assert.match(reply, /^HTTP\/1\.1 503 /);
  assert.match(reply, /Retry-After: 1/);
  assert.equal(codeOf(reply), 'overloaded');
  // And the server is itself again once they are gone.
  let ok = 0;
  for (let i = 0; i < 50 && ok !== 200; i++) {
    ok = (await timedGet({ port, path: '/livez', timeoutMs: 1000 })).status;
    if (ok !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(ok, 200);
});

const post = (headers, body = '') =>
  `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${headers}\r\n${body}`;

test('framing: ambiguous lengths are 400 and the connection closes', async () => {
  const cases = {
    'two different Content-Length': post('Content-Length: 2\r\nContent-Length: 40\r\n', '{}'),
    'two equal Content-Length': post('Content-Length: 2\r\nContent-Length: 2\r\n', '{}'),
    'a non-numeric Content-Length': post('Content-Length: 2x\r\n', '{}'),
    'a negative Content-Length': post('Content-Length: -2\r\n', '{}'),
    'Content-Length with chunked': post('Content-Length: 4\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n'),
    'chunked with Content-Length after it': post('Transfer-Encoding: chunked\r\nContent-Length: 4\r\n', '0\r\n\r\n'),
    'a Transfer-Encoding other than chunked': post('Transfer-Encoding: gzip\r\n', '{}'),
    'chunked twice': post('Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n'),
    'a bad chunk size': post('Transfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n'),
    'a GET with a body': `GET /livez HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello`,
    'a GET with a chunked body': `GET /livez HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
  };
  for (const [name, bytes] of Object.entries(cases)) {
    const r = await raw(bytes);
    assert.deepEqual(statuses(r.text), [400], `${name}: ${r.text.slice(0, 300)}`);
    assert.ok(r.closed, `${name}: the connection stayed open`);
    assert.match(r.text, /Connection: close/i, name);
  }
});

test('framing: a smuggled request after an ambiguous one is never answered', async () => {
  const smuggled = `GET /v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
  const r = await raw(post('Content-Length: 0\r\nTransfer-Encoding: chunked\r\n', `0\r\n\r\n${smuggled}`));
  assert.deepEqual(statuses(r.text), [400], r.text);
  assert.doesNotMatch(r.text, /client_id/);
});

test('pipelined requests are answered in order on one connection', async () => {
  const reqs = [
    'GET /livez HTTP/1.1\r\nHost: x\r\n\r\n',
    `GET /v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n',
    `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 19\r\n\r\n{"name":"piped_ws"}`,
    'GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  ];
  const r = await raw(reqs.join(''));
  assert.deepEqual(statuses(r.text), [200, 200, 404, 200, 200], r.text.slice(0, 2000));
  const order = [...r.text.matchAll(/"(client_id|route_not_found|piped_ws)"/g)].map((m) => m[1]);
  assert.deepEqual(order, ['client_id', 'route_not_found', 'piped_ws']);
  assert.ok(r.closed);
});

// After a response a worker watches its connection for a moment and takes the next request
// itself when its head is there whole (server.cc, Session::NextInline); a head or body that
// arrives in pieces within that moment goes back to the I/O thread, which must carry on from
// the bytes already read.
test('a kept-alive connection whose next head or body arrives in pieces is answered', async () => {
  const sock = net.connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => sock.once('connect', resolve).once('error', reject));
  let text = '';
  let closed = false;
  sock.on('data', (d) => { text += d.toString('latin1'); });
  sock.on('close', () => { closed = true; });
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  const answered = async (n) => {
    for (let i = 0; i < 300 && statuses(text).length < n; i++) await pause(10);
    assert.equal(statuses(text).length, n, text.slice(0, 2000));
  };
  // Each piece follows a complete request in the same write, so it is already read when the
  // worker that answered looks for the next head.
  sock.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\nGET /livez HTTP/1.1\r\nHo');
  await answered(1);
  await pause(30);
  sock.write('st: x\r\n\r\n');
  await answered(2);
  const body = '{"name":"split_ws"}';
  sock.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\n' +
             `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
             `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 8)}`);
  await answered(3);
  await pause(30);
  sock.write(body.slice(8));
  await answered(4);
  sock.write(`GET /v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n` +
             'GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await answered(6);
  for (let i = 0; i < 300 && !closed; i++) await pause(10);
  assert.deepEqual(statuses(text), [200, 200, 200, 200, 200, 200], text.slice(0, 2000));
  assert.match(text, /"split_ws"/);
  assert.ok(closed);
});

test('limits of the head: a long header line is 431, a long request line 414', async () => {
  const long = await raw(`GET /livez HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(9000)}\r\n\r\n`);
  assert.deepEqual(statuses(long.text), [431], long.text.slice(0, 300));
  assert.equal(codeOf(long.text), 'header_too_large');
  const many = await raw(`GET /livez HTTP/1.1\r\n${'X-A: b\r\n'.repeat(2000)}\r\n`);
  assert.deepEqual(statuses(many.text), [431]);
  const line = await raw(`GET /${'a'.repeat(9000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.deepEqual(statuses(line.text), [414], line.text.slice(0, 300));
  const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
  assert.deepEqual(statuses(garbage.text), [400]);
  const http2 = await raw('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  assert.deepEqual(statuses(http2.text), [400]);
});

test('after all of it the server is alive, answers, and logged no 500', async () => {
  const r = await timedGet({ port, path: '/v1/whoami', token, timeoutMs: 2000 });
  assert.equal(r.status, 200);
  const log = fs.readFileSync(path.join(dir, 'serve.log'), 'utf8');
  assert.doesNotMatch(log, /"status":500/);
});
