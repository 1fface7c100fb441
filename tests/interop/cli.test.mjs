// The `tarn parquet` commands as a script sees them: exit codes (0 ok, 2 usage, 3 refused),
// typed JSON errors on stderr, and the shapes of --json output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('cli');

function run(args) {
  const r = spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const sample = path.join(dir, 'sample.parquet');

test('write-sample, schema, meta and cat agree', () => {
  assert.equal(run(['parquet', 'write-sample', sample, '--rows', '2500', '--row-group-rows', '1000']).code, 0);
  const schema = JSON.parse(run(['parquet', 'schema', sample, '--json']).out);
  assert.equal(schema.num_rows, 2500);
  assert.equal(schema.columns.length, 25);
  const id = schema.columns.find((c) => c.name === 'id');
  assert.deepEqual([id.type, id.physical, id.field_id, id.nullable], ['INT64', 'INT64', 1, false]);
  const tags = schema.columns.find((c) => c.name === 'tags');
  assert.equal(tags.type, 'ARRAY<VARCHAR>');
  assert.equal(tags.path, 'tags.list.element');

  const meta = JSON.parse(run(['parquet', 'meta', sample, '--json']).out);
  assert.equal(meta.num_row_groups, 3);
  assert.deepEqual(meta.row_groups.map((g) => g.num_rows), [1000, 1000, 500]);
  const idChunk = meta.row_groups[1].columns.find((c) => c.path === 'id');
  assert.equal(idChunk.codec, 'ZSTD');
  assert.deepEqual([idChunk.statistics.min, idChunk.statistics.max], ['1001', '2000']);
  assert.equal(idChunk.statistics.null_count, 0);
  assert.ok('tarn.schema' in meta.key_value_metadata);

  const lines = run(['parquet', 'cat', sample, '--json']).out.trim().split('\n');
  assert.equal(lines.length, 2500);
  const first = JSON.parse(lines[0]);
  assert.equal(first.id, 1);
  assert.match(first.amount, /^-?\d+\.\d{2}$/);
  assert.match(first.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/);
  assert.match(first.updated, /Z$/);
  assert.match(first.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(first.ip, /^10\.\d+\.\d+\.\d+$/);
  // Row 6 (id 6) is the sample's null row: every nullable column is null.
  const nullRow = JSON.parse(lines[5]);
  assert.equal(nullRow.city, null);
  assert.equal(nullRow.tags, null);
  // The UINT64 maximum keeps every digit.
  assert.match(lines[1], /"big":18446744073709551615[,}]/);
});

test('cat --limit stops early and --columns projects in the given order', () => {
  const out = run(['parquet', 'cat', sample, '--json', '--limit', '1500', '--columns', 'tags,id']).out;
  const rows = out.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(rows.length, 1500);
  assert.deepEqual(Object.keys(rows[0]), ['tags', 'id']);
  assert.equal(rows[1499].id, 1500);
  const table = run(['parquet', 'cat', sample, '--limit', '2', '--columns', 'id,city']);
  assert.equal(table.code, 0);
  assert.match(table.out.split('\n')[0], /^id\s+city$/);
});

test('usage errors exit 2', () => {
  for (const args of [['parquet', 'cat', sample, '--limit', '-1'], ['parquet', 'bogus'],
    ['parquet', 'cat', sample, '--columns', 'nope'], ['parquet', 'cat'], []]) {
    assert.equal(run(args).code, 2, args.join(' '));
  }
  const r = run(['parquet', 'write-sample', path.join(dir, 'x.parquet'), '--compression', 'lzo']);
  assert.equal(r.code, 2);
  assert.match(r.err, /unknown compression codec 'lzo'/);
  assert.ok(!fs.existsSync(path.join(dir, 'x.parquet')));
});

test('missing, truncated and corrupt files exit 3 with a typed error', () => {
  const missing = run(['parquet', 'schema', path.join(dir, 'nope.parquet'), '--json']);
  assert.equal(missing.code, 3);
  assert.equal(JSON.parse(missing.err).error.code, 'not_found');

  const bytes = fs.readFileSync(sample);
  const truncated = path.join(dir, 'truncated.parquet');
  fs.writeFileSync(truncated, bytes.subarray(0, bytes.length - 10));
  const t = run(['parquet', 'meta', truncated, '--json']);
  assert.equal(t.code, 3);
  assert.equal(JSON.parse(t.err).error.code, 'corruption');

  const corrupt = path.join(dir, 'corrupt.parquet');
  const c = Buffer.from(bytes);
  for (let i = 4; i < 40; ++i) c[i] ^= 0x55;  // the first page header
  fs.writeFileSync(corrupt, c);
  const r = run(['parquet', 'cat', corrupt]);
  assert.equal(r.code, 3);
  assert.match(r.err, /error\[corruption\]: .*corrupt\.parquet: row group 0, column 'id': page 0/);
});
