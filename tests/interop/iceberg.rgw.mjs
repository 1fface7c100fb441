// Iceberg interoperability on an S3 warehouse (run by tests/run_with_rgw.sh against a real Ceph
// RGW): `tarn serve` over PostgreSQL-free SQLite and an s3:// warehouse; the facade's loadTable
// names s3:// objects and tells the client how to reach the store (config); icebird reads them
// with the test's own S3 credentials (its fetch rewrites s3:// to AWS hosts, which this test's
// fetch sends to the gateway, signed with SigV4), and every row equals `tarn scan`, for the
// current snapshot and an older one.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { startServe, tarnCli } from './tarn_process.mjs';
import { D, buildDataset, icebirdRows, scanRows } from './iceberg_common.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const bucket = process.env.TARN_S3_TEST_BUCKET;
const endpoint = process.env.AWS_ENDPOINT_URL;
const region = process.env.AWS_REGION || 'us-east-1';
const dir = scratch('iceberg-s3');
const OWNER_ID = 'tarn_icebergs3owner00001';
const OWNER_SECRET = 'iceberg-s3-owner-secret-0123456789abcdef';
const { ok, json } = tarnCli(bin, OWNER_ID, OWNER_SECRET);

let serve = null;
after(async () => (serve ? serve.stop() : null));

const hmac = (key, data) => crypto.createHmac('sha256', key).update(data).digest();
const sha256 = (data) => crypto.createHash('sha256').update(data).digest('hex');
// RFC 3986 encoding of a path segment, as SigV4's canonical URI wants it.
const encodeSegment = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

// A GET (or HEAD) of s3://bucket/key on the gateway, path-style, signed with SigV4.
function signedS3Request(bucketName, key, init) {
  const url = new URL(endpoint);
  const canonicalUri = `/${encodeSegment(bucketName)}/${key.split('/').map((s) => encodeSegment(decodeURIComponent(s))).join('/')}`;
  const now = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = now.slice(0, 8);
  const headers = new Headers(init.headers ?? {});
  headers.set('x-amz-date', now);
  headers.set('x-amz-content-sha256', 'UNSIGNED-PAYLOAD');
  const signed = ['host', 'x-amz-content-sha256', 'x-amz-date'];
  const canonicalHeaders = `host:${url.host}\nx-amz-content-sha256:UNSIGNED-PAYLOAD\nx-amz-date:${now}\n`;
  const method = init.method ?? 'GET';
  const canonical = [method, canonicalUri, '', canonicalHeaders, signed.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', now, scope, sha256(canonical)].join('\n');
  let key2 = hmac(`AWS4${process.env.AWS_SECRET_ACCESS_KEY}`, day);
  for (const part of [region, 's3', 'aws4_request']) key2 = hmac(key2, part);
  const signature = crypto.createHmac('sha256', key2).update(toSign).digest('hex');
  headers.set('authorization', `AWS4-HMAC-SHA256 Credential=${process.env.AWS_ACCESS_KEY_ID}/${scope}, ` +
    `SignedHeaders=${signed.join(';')}, Signature=${signature}`);
  return globalThis.__realFetch(`${endpoint}${canonicalUri}`, { ...init, headers });
}

// icebird turns s3://bucket/key into https://bucket.s3.amazonaws.com/key: send those to the
// gateway instead (nothing may leave 127.0.0.1), and refuse any other host.
function installS3Fetch() {
  globalThis.__realFetch = globalThis.__realFetch ?? globalThis.fetch;
  globalThis.fetch = async (url, init = {}) => {
    const u = new URL(String(url));
    const m = /^([^.]+)\.s3\.amazonaws\.com$/.exec(u.hostname);
    if (m) return signedS3Request(m[1], u.pathname.slice(1), init);
    if (u.hostname !== '127.0.0.1') throw new Error(`refusing to fetch ${url}`);
    return globalThis.__realFetch(url, init);
  };
}

test('the gateway is there', () => {
  assert.ok(bucket, 'TARN_S3_TEST_BUCKET is not set: run under tests/run_with_rgw.sh');
  assert.match(endpoint ?? '', /^http:\/\/127\.0\.0\.1:/);
});

test('icebird reads a dataset of an S3 warehouse through the facade\'s metadata', async () => {
  serve = await startServe({ bin, catalog: null, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID,
    ownerSecret: OWNER_SECRET, args: ['--metastore', path.join(dir, 'catalog.db'),
      '--warehouse', `s3://${bucket}/iceberg-wh`] });
  const cli = (args) => ok(serve.url, args);
  const snaps = buildDataset(cli, dir);
  const reader = json(serve.url, ['token', 'create', '--workspace', 'acme', '--role', 'reader']);
  const tokenRes = await fetch(`${serve.url}/iceberg/v1/oauth/tokens`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: reader.client_id,
      client_secret: reader.client_secret }).toString(),
  });
  assert.equal(tokenRes.status, 200);
  const { access_token: token } = await tokenRes.json();
  const load = async (query = '') => {
    const r = await fetch(`${serve.url}/iceberg/v1/tarn/namespaces/acme%1Fsales/tables/orders${query}`,
      { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(r.status, 200, await r.clone().text());
    return r.json();
  };
  const loaded = await load();
  assert.match(loaded['metadata-location'], new RegExp(`^s3://${bucket}/iceberg-wh/datasets/`));
  assert.equal(loaded.config['s3.endpoint'], endpoint);
  assert.equal(loaded.config['s3.path-style-access'], 'true');
  for (const s of loaded.metadata.snapshots) assert.match(s['manifest-list'], /^s3:\/\//);

  installS3Fetch();
  const got = await icebirdRows(loaded.metadata);
  assert.deepEqual(got, scanRows(cli(['scan', D, '--json']), loaded.metadata));
  assert.equal(got.length, 26);

  // An older snapshot, produced on request through the native route, reads as tarn scan at it.
  const old = json(serve.url, ['dataset', 'iceberg', D, '--at', String(snaps.second)]);
  assert.match(old.metadata_location, /^s3:\/\//);
  const gotOld = await icebirdRows(old.metadata);
  assert.deepEqual(gotOld, scanRows(cli(['scan', D, '--at', String(snaps.second), '--json']), old.metadata));
  // And the current metadata lists it now.
  const again = await load();
  assert.ok(again.metadata.snapshots.some((s) => s['snapshot-id'] === snaps.second));
});
