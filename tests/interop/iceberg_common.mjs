// What the Iceberg interop tests share: a dataset with every type the Iceberg mapping shows,
// partitions, deletes and every kind of schema change, built through the CLI; icebird (the
// independent npm Iceberg reader) reading a table; and both sides' rows in one comparable form.
import fs from 'node:fs';
import path from 'node:path';
import { icebergRead } from 'icebird';

export const D = 'acme.sales.orders';

// icebird reads through fetch, which cannot open file:// URLs: this fetch serves them (GET, HEAD
// and the Range requests hyparquet reads Parquet with) and passes everything else on, adding
// `headers` (a reader's token) to requests of URLs starting with `authPrefix`. icebird 0.3.1
// fetches manifests without the caller's request options, so a token must be added here.
export function installFetch({ authPrefix = null, headers = {} } = {}) {
  const real = globalThis.__realFetch ?? globalThis.fetch;
  globalThis.__realFetch = real;
  globalThis.fetch = async (url, init = {}) => {
    const u = String(url);
    const range = new Headers(init.headers ?? {}).get('range');
    if (!u.startsWith('file://')) {
      if (authPrefix && u.startsWith(authPrefix)) {
        const h = new Headers(init.headers ?? {});
        for (const [k, v] of Object.entries(headers)) h.set(k, v);
        return real(url, { ...init, headers: h });
      }
      return real(url, init);
    }
    const p = decodeURIComponent(new URL(u).pathname);
    if (!fs.existsSync(p)) return new Response('not found', { status: 404 });
    const buf = fs.readFileSync(p);
    if ((init.method ?? 'GET') === 'HEAD') {
      return new Response(null, { status: 200, headers: { 'content-length': String(buf.length) } });
    }
    if (range) {
      const m = /^bytes=(\d+)-(\d*)$/.exec(range);
      const a = Number(m[1]);
      const b = m[2] ? Math.min(Number(m[2]), buf.length - 1) : buf.length - 1;
      return new Response(buf.subarray(a, b + 1), {
        status: 206, headers: { 'content-length': String(b - a + 1) },
      });
    }
    return new Response(buf, { status: 200, headers: { 'content-length': String(buf.length) } });
  };
}

// The rows of the inputs: ids from..to, every type, some nulls; ms-precision timestamps (icebird
// gives JavaScript Dates).
export function rows(from, to, extra = {}) {
  const out = [];
  for (let id = from; id <= to; ++id) {
    const empty = id % 7 === 0;
    out.push({
      id,
      region: empty ? null : ['eu', 'us', 'ap'][id % 3],
      amount: empty ? null : `${id * 3}.${String(id % 100).padStart(2, '0')}`,
      ts: empty ? null : `2026-0${1 + (id % 3)}-${String(1 + (id % 27)).padStart(2, '0')}T10:${String(id % 60).padStart(2, '0')}:00.${String(id % 1000).padStart(3, '0')}`,
      tz: empty ? null : `2026-02-0${1 + (id % 9)}T0${id % 10}:00:00Z`,
      d: empty ? null : `2025-12-${String(1 + (id % 28)).padStart(2, '0')}`,
      ok: empty ? null : id % 2 === 0,
      score: empty ? null : id / 4,
      f: empty ? null : id / 2,
      small: empty ? null : -id * 1000,
      u: empty ? null : `0b1f6c3e-8a34-4d6e-9d2a-${String(id).padStart(12, '0')}`,
      n: empty ? null : 4000000000 + id,
      b: empty ? null : Buffer.from(`bytes-${id}`).toString('base64'),
      t: empty ? null : `0${id % 10}:${String(id % 60).padStart(2, '0')}:07.25`,
      j: empty ? null : { k: id, tags: ['a', String(id)] },
      i16: empty ? null : -id,
      u16: empty ? null : 60000 + id,
      st: empty ? null : { a: id * 2, b: `s${id}` },
      li: empty ? null : [id, id + 1],
      m: empty ? null : { [`k${id}`]: id, z: 0 },
      ...extra,
    });
  }
  return out;
}

export const SCHEMA = 'id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2), ts TIMESTAMP[us], ' +
  'tz TIMESTAMPTZ[us], d DATE, ok BOOLEAN, score FLOAT64, f FLOAT32, small INT32, u UUID, n UINT32, ' +
  'b BLOB, t TIME[us], j JSON, i16 INT16, u16 UINT16, st STRUCT<a: INT32, b: VARCHAR>, ' +
  'li ARRAY<INT64>, m MAP<VARCHAR, INT64>';
export const PARTITION = 'region, day(ts), bucket(4, id)';

export function writeRows(dir, name, list) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, list.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

// Builds D through `ok(args)` (a CLI runner that throws on failure): snapshots 1 and 2 append,
// 3 deletes, then the schema changes (rename, add, drop, promote) and snapshot 4 appends.
// Returns the snapshot ids.
export function buildDataset(ok, dir) {
  ok(['workspace', 'create', 'acme']);
  ok(['collection', 'create', 'acme.sales']);
  ok(['dataset', 'create', D, '--schema', SCHEMA, '--partition', PARTITION]);
  ok(['append', D, writeRows(dir, 'a.ndjson', rows(1, 12))]);
  ok(['append', D, writeRows(dir, 'b.ndjson', rows(13, 24))]);
  ok(['delete', D, '--where', 'id IN (2, 3, 14, 20)']);
  ok(['dataset', 'alter', D, 'rename score TO rating', 'add note VARCHAR', 'drop f',
    'promote small INT64']);
  const later = rows(25, 30).map(({ f, score, ...r }) => ({ ...r, rating: score, note: `n${r.id}` }));
  ok(['append', D, writeRows(dir, 'c.ndjson', later)]);
  return { appended: 1, second: 2, deleted: 3, evolved: 4 };
}

const uuidText = (bytes) => {
  const h = Buffer.from(bytes).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

// Microseconds of a time of day, from tarn's text ("10:11:12.5").
function timeMicros(text) {
  const [h, m, s] = text.split(':');
  const [whole, frac = ''] = s.split('.');
  return String(((Number(h) * 60 + Number(m)) * 60 + Number(whole)) * 1e6 + Number(frac.padEnd(6, '0')));
}

// One value as text (nested ones as plain JSON of such texts), by the Iceberg type of its
// column, from either side: icebird's JavaScript values (BigInt, Date, Uint8Array, numbers,
// objects) or `tarn scan --json`'s.
function canonical(type, v, side) {
  if (v === null || v === undefined) return null;
  if (typeof type !== 'string') {
    if (type.type === 'struct') {
      return Object.fromEntries(type.fields.map((f) => [f.name, canonical(f.type, v[f.name], side)]));
    }
    if (type.type === 'list') return [...v].map((e) => canonical(type.element, e, side));
    if (type.type === 'map') {
      // tarn scan: [{key, value}]; icebird: an object (or a Map) of key -> value.
      const entries = Array.isArray(v) ? v.map((e) => [e.key, e.value])
        : v instanceof Map ? [...v.entries()] : Object.entries(v);
      return entries.map(([k, x]) => [canonical(type.key, k, side), canonical(type.value, x, side)])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    }
    return JSON.stringify(v);
  }
  // tarn scan: base64; icebird: bytes, or the text they spell.
  if (type === 'binary') return side === 'tarn' ? v : Buffer.from(v).toString('base64');
  if (type === 'time') return typeof v === 'bigint' || typeof v === 'number' ? String(v) : timeMicros(v);
  if (type === 'string' && typeof v === 'object') return JSON.stringify(v);  // JSON, parsed
  if (type === 'long' || type === 'int') return String(v);
  if (type.startsWith('decimal')) {
    const scale = Number(/,\s*(\d+)\)/.exec(type)[1]);
    return Number(v).toFixed(scale);
  }
  if (type === 'timestamp' || type === 'timestamptz') {
    if (v instanceof Date) return v.toISOString();
    return new Date(Date.parse(type === 'timestamp' && !/[Z+]/.test(v) ? `${v}Z` : v)).toISOString();
  }
  if (type === 'date') return v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
  if (type === 'uuid') return typeof v === 'string' ? v : uuidText(v);
  if (type === 'float' || type === 'double') return String(Number(v));
  return String(v);
}

// Rows as {column: text}, by the columns of an Iceberg schema, sorted by id; `side` says whose
// values they are ('tarn' or 'icebird').
export function comparable(list, schema, side) {
  return list
    .map((r) => Object.fromEntries(schema.fields.map((f) => [f.name, canonical(f.type, r[f.name], side)])))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

// The rows icebird reads from a table metadata object, as it gives them.
export function icebirdRaw(metadata) {
  return icebergRead({ tableUrl: metadata.location, metadata });
}

// The rows icebird reads from a table metadata object, comparable.
export async function icebirdRows(metadata) {
  const schema = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
  return comparable(await icebirdRaw(metadata), schema, 'icebird');
}

// `tarn scan --json` lines, comparable by the same schema.
export function scanRows(out, metadata) {
  const schema = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
  const list = out.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  return comparable(list, schema, 'tarn');
}
