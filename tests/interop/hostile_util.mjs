// Shared helpers of the hostile-client suite (tests/interop/hostile_*.test.mjs, issue 14): a real
// `tarn serve` over an embedded catalog directory on loopback, raw HTTP over node:net where fetch
// would normalise the request, and a catalog with two workspaces and a token of each role in each.
//
//   rawHttp(port, bytes, { timeoutMs = 5000, count = 1, endAfterWrite = false })
//       Writes `bytes` (string or Buffer) as is on a new connection to 127.0.0.1:port and reads
//       until `count` complete responses arrived, the server closed, or timeoutMs passed. Resolves
//       (never rejects) to { outcome, responses, closed, rest, bytes, error }: outcome 'response'
//       when at least one complete response came ('closed' when the server closed before any,
//       'timeout' when none came in time); responses are { status, reason, headers, body, raw,
//       json } (header names lower-case, repeated headers joined with ', '; body the UTF-8 text
//       and raw the Buffer of the body, chunked bodies decoded; json the parsed body or
//       undefined; a response to HEAD is not recognised); closed: the server closed the
//       connection; rest: bytes after the last complete response. endAfterWrite half-closes
//       the socket after writing.
//   rawRequest(port, { method, path, headers, body, token, timeoutMs })
//       One request built from parts (Host and Connection: close added, Content-Length when a
//       body is given and no Content-Length/Transfer-Encoding header is); resolves to the first
//       response (as above, plus `closed`) or { outcome: 'closed'|'timeout' }.
//   api(url, token, method, path, body, { headers })
//       A normal request with fetch: body an object (sent as JSON) or a string/Buffer; resolves to
//       { status, headers, text, json } (json undefined when the body is not JSON).
//   mintToken(url, clientId, clientSecret) -> access token string (POST /v1/token; throws if not
//       200). exchange(url, form) -> the raw api() result of POST /v1/token with a form object.
//   createClient(url, ownerAccess, { workspace, role, pattern }) -> { client_id, client_secret,
//       access } (POST /v1/tokens, then minted).
//   tarnCli(h, args) -> { code, out, err }: `tarn ARGS --catalog h.url` as the bootstrap owner.
//   startHostileCatalog({ bin, name, args }) -> h: a scratch catalog directory (tests/interop
//       scratch()), `tarn serve ...args` over it, and in each of workspaces 'wsa' and 'wsb' a
//       collection 'c' with datasets 'd1' and 'e1' (schema `id INT64, name VARCHAR`, 3 rows each
//       from one CSV append). h = { url, port, dir, catalog, bin, serve, ownerId, ownerSecret,
//       owner (access token of the bootstrap owner of '*'), tokens, ds(ws, name), logText(),
//       stop() }, tokens = { wsa: { owner, writer, reader, pattern }, wsb: { ... } } where each
//       is { client_id, client_secret, access } and `pattern` is a writer of the workspace with
//       pattern 'c.d*'. ds(ws, name) is the path of dataset ws.c.name ('/v1/workspaces/...').
//   catalogState(h, { consumers = ['k1'] }) -> a plain object of everything a refused mutation
//       must leave alone: every workspace, collection and dataset (info, snapshots, tags, the
//       offsets of `consumers`), every access token (last use aside) and the warehouse's file
//       names. Compare two with assert.deepEqual.
//   serverErrors(h) -> the log lines of `tarn serve` with "status":500.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { runTarn, startServe, tarnEnv } from './tarn_process.mjs';

export const OWNER_ID = 'tarn_hostiletestowner000';
export const OWNER_SECRET = 'hostile-test-owner-secret-0123456789abcd';
export const WORKSPACES = ['wsa', 'wsb'];
export const DATASETS = ['d1', 'e1'];

// Parses as many complete HTTP/1.1 responses as `buf` holds; `closed` lets a response without
// Content-Length or chunking end at the end of the buffer.
function parseResponses(buf, closed) {
  const responses = [];
  let pos = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', pos);
    if (end < 0) break;
    const head = buf.subarray(pos, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(head[0]);
    if (!m) break;
    const headers = {};
    for (const line of head.slice(1)) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      const k = line.slice(0, i).trim().toLowerCase();
      const v = line.slice(i + 1).trim();
      headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
    }
    const status = Number(m[1]);
    let p = end + 4;
    let body;
    if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
      body = Buffer.alloc(0);
    } else if (/chunked/i.test(headers['transfer-encoding'] || '')) {
      const parts = [];
      let done = false;
      for (;;) {
        const le = buf.indexOf('\r\n', p);
        if (le < 0) break;
        const size = parseInt(buf.subarray(p, le).toString('latin1'), 16);
        if (Number.isNaN(size)) break;
        if (size === 0) {
          const te = buf.indexOf('\r\n\r\n', le);
          if (te >= 0) {
            p = te + 4;
            done = true;
          } else if (buf.subarray(le, le + 4).toString() === '\r\n\r\n') {
            p = le + 4;
            done = true;
          }
          break;
        }
        if (buf.length < le + 2 + size + 2) break;
        parts.push(buf.subarray(le + 2, le + 2 + size));
        p = le + 2 + size + 2;
      }
      if (!done) break;
      body = Buffer.concat(parts);
    } else if (headers['content-length'] !== undefined) {
      const n = Number(headers['content-length']);
      if (buf.length < p + n) break;
      body = buf.subarray(p, p + n);
      p += n;
    } else {
      if (!closed) break;
      body = buf.subarray(p);
      p = buf.length;
    }
    const text = body.toString('utf8');
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    responses.push({ status, reason: m[2], headers, body: text, raw: body, json });
    pos = p;
  }
  return { responses, rest: buf.subarray(pos) };
}

export function rawHttp(port, bytes, { timeoutMs = 5000, count = 1, endAfterWrite = false } = {}) {
  return new Promise((resolve) => {
    const chunks = [];
    let settled = false;
    let closed = false;
    let error;
    const sock = net.connect({ host: '127.0.0.1', port });
    const finish = (why) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const buf = Buffer.concat(chunks);
      const { responses, rest } = parseResponses(buf, closed);
      sock.destroy();
      const outcome = responses.length > 0 ? 'response' : why;
      resolve({
        outcome,
        responses,
        closed,
        rest: rest.toString('latin1'),
        bytes: buf.length,
        error,
      });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    sock.on('connect', () => {
      sock.write(bytes, () => {
        if (endAfterWrite) sock.end();
      });
    });
    sock.on('data', (d) => {
      chunks.push(d);
      const { responses } = parseResponses(Buffer.concat(chunks), false);
      if (responses.length >= count) finish('response');
    });
    sock.on('error', (e) => {
      error = e.code || String(e);
    });
    sock.on('close', () => {
      closed = true;
      finish('closed');
    });
  });
}

export async function rawRequest(
  port,
  { method = 'GET', path: target = '/', headers = {}, body, token, timeoutMs = 5000 } = {},
) {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
  const names = Object.keys(headers).map((k) => k.toLowerCase());
  if (token !== undefined) lines.push(`Authorization: Bearer ${token}`);
  let payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  if (body !== undefined && !names.includes('content-length') &&
      !names.includes('transfer-encoding')) {
    lines.push(`Content-Length: ${payload.length}`);
  }
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  const bytes = Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), payload]);
  const r = await rawHttp(port, bytes, { timeoutMs });
  if (r.outcome !== 'response') return { outcome: r.outcome, error: r.error };
  return { outcome: 'response', closed: r.closed, ...r.responses[0] };
}

export async function api(url, token, method, route, body, { headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  let payload;
  if (body !== undefined) {
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      payload = body;
    } else {
      payload = JSON.stringify(body);
      h['Content-Type'] = h['Content-Type'] || 'application/json';
    }
  }
  // Let the event loop read what is pending first: after a stretch of spawnSync calls it has
  // not run, so a keep-alive socket the server closed meanwhile (idle timeout) still sits in
  // fetch's pool and the request would go out on it ("other side closed").
  await new Promise((resolve) => setImmediate(resolve));
  const res = await fetch(url + route, { method, headers: h, body: payload });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export async function exchange(url, form) {
  return api(url, null, 'POST', '/v1/token', new URLSearchParams(form).toString(), {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
}

export async function mintToken(url, clientId, clientSecret) {
  const r = await exchange(url, {
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
  });
  assert.equal(r.status, 200, `POST /v1/token for ${clientId}: ${r.text}`);
  return r.json.access_token;
}

export async function createClient(url, ownerAccess, { workspace, role, pattern }) {
  const body = { workspace, role, description: `hostile ${workspace} ${role}` };
  if (pattern) body.pattern = pattern;
  const r = await api(url, ownerAccess, 'POST', '/v1/tokens', body);
  assert.equal(r.status, 200, `POST /v1/tokens ${JSON.stringify(body)}: ${r.text}`);
  const { client_id, client_secret } = r.json;
  return { client_id, client_secret, access: await mintToken(url, client_id, client_secret) };
}

export function tarnCli(h, args) {
  return runTarn(h.bin, h.url, args, tarnEnv(h.ownerId, h.ownerSecret));
}

function cliOk(h, args) {
  const r = tarnCli(h, args);
  assert.equal(r.code, 0, `tarn ${args.join(' ')}: ${r.err}`);
  return r;
}

export async function startHostileCatalog({ bin, name, args = [] }) {
  const dir = scratch(name);
  const catalog = path.join(dir, 'catalog');
  const logPath = path.join(dir, 'serve.log');
  const serve = await startServe({
    bin,
    catalog,
    logPath,
    ownerId: OWNER_ID,
    ownerSecret: OWNER_SECRET,
    args,
  });
  const h = {
    url: serve.url,
    port: serve.port,
    dir,
    catalog,
    bin,
    serve,
    ownerId: OWNER_ID,
    ownerSecret: OWNER_SECRET,
    logText: () => (fs.existsSync(logPath) ? fs.readFileSync(logPath, 'utf8') : ''),
    stop: () => serve.stop(),
    ds: (ws, ds) => `/v1/workspaces/${ws}/collections/c/datasets/${ds}`,
  };
  try {
    h.owner = await mintToken(h.url, OWNER_ID, OWNER_SECRET);
    const csv = path.join(dir, 'rows.csv');
    fs.writeFileSync(csv, 'id,name\n1,one\n2,two\n3,three\n');
    h.tokens = {};
    for (const ws of WORKSPACES) {
      cliOk(h, ['workspace', 'create', ws]);
      cliOk(h, ['collection', 'create', `${ws}.c`]);
      for (const ds of DATASETS) {
        cliOk(h, ['dataset', 'create', `${ws}.c.${ds}`, '--schema', 'id INT64, name VARCHAR']);
        cliOk(h, ['append', `${ws}.c.${ds}`, csv, '-m', 'seed']);
      }
      h.tokens[ws] = {};
      for (const role of ['owner', 'writer', 'reader']) {
        h.tokens[ws][role] = await createClient(h.url, h.owner, { workspace: ws, role });
      }
      h.tokens[ws].pattern = await createClient(h.url, h.owner, {
        workspace: ws,
        role: 'writer',
        pattern: 'c.d*',
      });
    }
  } catch (e) {
    await serve.stop();
    throw e;
  }
  return h;
}

function listFiles(root) {
  const out = [];
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

export async function catalogState(h, { consumers = ['k1'] } = {}) {
  const get = async (route) => {
    const r = await api(h.url, h.owner, 'GET', route);
    assert.equal(r.status, 200, `GET ${route}: ${r.text}`);
    return r.json;
  };
  const state = { workspaces: {}, tokens: [], files: [] };
  for (const w of (await get('/v1/workspaces')).workspaces) {
    const wsPath = `/v1/workspaces/${w.name}`;
    const ws = { info: w, collections: {} };
    for (const c of (await get(`${wsPath}/collections`)).collections) {
      const collPath = `${wsPath}/collections/${c.name}`;
      const coll = { info: c, datasets: {} };
      for (const d of (await get(`${collPath}/datasets`)).datasets) {
        const short = String(d.name).split('.').pop();
        const dsPath = `${collPath}/datasets/${short}`;
        const offsets = {};
        for (const k of consumers) offsets[k] = await get(`${dsPath}/offsets/${k}`);
        coll.datasets[short] = {
          info: await get(dsPath),
          snapshots: await get(`${dsPath}/snapshots`),
          tags: await get(`${dsPath}/tags`),
          offsets,
        };
      }
      ws.collections[c.name] = coll;
    }
    state.workspaces[w.name] = ws;
  }
  state.tokens = (await get('/v1/tokens')).tokens
    .map(({ last_used_at_us, ...t }) => t)
    .sort((a, b) => a.client_id.localeCompare(b.client_id));
  // The warehouse's objects (the metastore's own files change on every read).
  state.files = listFiles(path.join(h.catalog, 'warehouse'));
  return state;
}

export function serverErrors(h) {
  return h.logText().split('\n').filter((l) => l.includes('"status":500'));
}
