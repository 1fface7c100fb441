// `tarn parquet` with warehouse URIs against a real Ceph RGW (run by tests/run_with_rgw.sh,
// which exports AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and
// TARN_S3_TEST_BUCKET): every file argument takes an s3:// URI with credentials from the
// standard AWS environment, and S3 failures map to the CLI's exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const bucket = process.env.TARN_S3_TEST_BUCKET;
const dir = scratch('cli-s3');

function run(args, env = {}) {
  const r = spawnSync(bin, args, {
    encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('the gateway is there', () => {
  assert.ok(bucket, 'TARN_S3_TEST_BUCKET is not set: run under tests/run_with_rgw.sh');
  assert.match(process.env.AWS_ENDPOINT_URL ?? '', /^http:\/\/127\.0\.0\.1:/);
});

test('write-sample, schema, meta and cat through s3:// equal the local file', () => {
  const uri = `s3://${bucket}/cli test/sample ü.parquet`;
  const local = path.join(dir, 'sample.parquet');
  for (const target of [uri, local]) {
    const w = run(['parquet', 'write-sample', target, '--rows', '20000', '--row-group-rows', '5000']);
    assert.equal(w.code, 0, w.err);
  }
  for (const cmd of [['schema'], ['meta'], ['cat']]) {
    const remote = run(['parquet', ...cmd, uri, '--json']);
    assert.equal(remote.code, 0, remote.err);
    const mine = run(['parquet', ...cmd, local, '--json']);
    const strip = (s) => s.replaceAll(uri, 'F').replaceAll(local, 'F');
    assert.equal(strip(remote.out), strip(mine.out), cmd[0]);
  }
  const lines = run(['parquet', 'cat', uri, '--json', '--limit', '7']).out.trim().split('\n');
  assert.equal(lines.length, 7);
  assert.equal(fs.statSync(local).size, JSON.parse(run(['parquet', 'meta', uri, '--json']).out).size_bytes);
});

test('a missing object exits 3, a wrong secret exits 5 without retrying', () => {
  const missing = run(['parquet', 'schema', `s3://${bucket}/no/such.parquet`, '--json']);
  assert.equal(missing.code, 3, missing.err);
  assert.equal(JSON.parse(missing.err).error.code, 'not_found');

  const started = Date.now();
  const denied = run(['parquet', 'schema', `s3://${bucket}/cli test/sample ü.parquet`, '--json'],
    { AWS_SECRET_ACCESS_KEY: 'wrong-secret' });
  assert.equal(denied.code, 5, denied.err);
  assert.equal(JSON.parse(denied.err).error.code, 'permission_denied');
  assert.ok(Date.now() - started < 5000, 'a refused signature must not be retried with backoff');
});

test('an unreachable endpoint exits 6 (unavailable)', () => {
  const r = run(['parquet', 'schema', `s3://${bucket}/x.parquet`, '--json'],
    { AWS_ENDPOINT_URL: 'http://127.0.0.1:9' });
  assert.equal(r.code, 6, r.err);
  assert.equal(JSON.parse(r.err).error.code, 'unavailable');
});
