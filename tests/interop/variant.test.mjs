// VARIANT end to end through the real binary and against DuckDB (1.5, which has a VARIANT type
// and reads and writes Parquet's VARIANT): a dataset with a VARIANT column created from the CLI,
// NDJSON appended, `tarn scan --json` and `tarn parquet cat --json`; DuckDB reads the files tarn
// writes value for value; the files DuckDB writes are shredded (`typed_value`: DuckDB 1.5.6
// always shreds and cannot be told not to), which tarn refuses by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { query, quote, scratch } from './duckdb_compare.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('variant');
const catalog = path.join(dir, 'catalog');
const D = 'acme.semi.events';

function run(args) {
  const r = spawnSync(bin, [...args, '--catalog', catalog], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, NO_COLOR: '1', TARN_CATALOG: '', TARN_AUTHOR: 'tester' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function ok(args) {
  const r = run([...args, '--json']);
  assert.equal(r.code, 0, `tarn ${args.join(' ')} failed: ${r.err}`);
  return r.out;
}

// Sorted keys at every level: VARIANT objects list their keys in byte order.
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  }
  return v;
}

// One value of every JSON kind, nested ones, and numbers at each integer width.
const VALUES = [
  { a: 1, b: [true, null, 2.5, 'x'], c: { d: -129, e: {} } },
  'plain text',
  42,
  -70000,
  5000000000,
  1.25,
  true,
  false,
  [],
  [[1, [2, [3]]], { k: 'v' }],
  { 'ünï': 'côdé', z: null },
  'x'.repeat(100),
];

test('a VARIANT dataset from the CLI: NDJSON in, JSON out, files DuckDB reads value for value', async () => {
  assert.equal(run(['workspace', 'create', 'acme']).code, 0);
  assert.equal(run(['collection', 'create', 'acme.semi']).code, 0);
  JSON.parse(ok(['dataset', 'create', D, '--schema', 'id INT64, v VARIANT']));
  const ndjson = path.join(dir, 'events.ndjson');
  const lines = VALUES.map((v, i) => JSON.stringify({ id: i, v }));
  lines.push(JSON.stringify({ id: VALUES.length, v: null }));
  lines.push(JSON.stringify({ id: VALUES.length + 1 }));
  fs.writeFileSync(ndjson, lines.join('\n') + '\n');
  const appended = JSON.parse(ok(['append', D, ndjson]));
  assert.equal(appended.added_records, VALUES.length + 2);

  const scanned = ok(['scan', D]).split('\n').filter((l) => l).map((l) => JSON.parse(l));
  scanned.sort((a, b) => a.id - b.id);
  const want = VALUES.map((v, i) => ({ id: i, v: sortKeys(v) }));
  want.push({ id: VALUES.length, v: null }, { id: VALUES.length + 1, v: null });
  assert.deepEqual(scanned, want);

  // The table shows each value as its JSON text.
  const table = run(['scan', D]);
  assert.equal(table.code, 0, table.err);
  assert.match(table.out, /plain text/);

  // A predicate other than IS NULL is refused; IS NULL works.
  const nulls = ok(['scan', D, '--where', 'v IS NULL']).split('\n').filter((l) => l);
  assert.equal(nulls.length, 2);
  const refused = run(['scan', D, '--where', 'v = 1', '--json']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.err, /only IS NULL \/ IS NOT NULL/);

  // DuckDB reads tarn's files as VARIANT, value for value.
  const files = JSON.parse(ok(['files', D]));
  assert.ok(files.length >= 1);
  const local = files.map((f) => path.join(catalog, 'warehouse', f.path));
  for (const f of files) {
    // Counts, no bounds.
    assert.equal(f.columns.v.values, f.records);
    assert.equal(f.columns.v.lower, undefined);
    assert.equal(f.columns.v.upper, undefined);
  }
  for (const file of local) {
    const types = await query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${quote(file)}))`);
    assert.deepEqual(types.map((t) => [t.column_name, t.column_type]), [['id', 'BIGINT'], ['v', 'VARIANT']]);
    const rows = await query(`SELECT id::BIGINT AS id, v::JSON::VARCHAR AS v FROM read_parquet(${quote(file)}) ORDER BY id`);
    for (const r of rows) {
      const id = Number(r.id);
      const expected = want.find((w) => w.id === id).v;
      assert.deepEqual(r.v === null ? null : sortKeys(JSON.parse(r.v)), expected, `row ${id}`);
    }
  }

  // `parquet cat --json` of the same file agrees.
  const cat = ok(['parquet', 'cat', local[0]]).split('\n').filter((l) => l).map((l) => JSON.parse(l));
  for (const row of cat) assert.deepEqual(row.v, want.find((w) => w.id === row.id).v);

  // Not a partition source or sort key.
  const part = run(['dataset', 'create', 'acme.semi.p', '--schema', 'id INT64, v VARIANT', '--partition', 'bucket(4, v)', '--json']);
  assert.notEqual(part.code, 0);
  assert.match(part.err, /VARIANT column cannot be a partition source/);
  const sort = run(['dataset', 'create', 'acme.semi.s', '--schema', 'id INT64, v VARIANT', '--sort', 'v', '--json']);
  assert.notEqual(sort.code, 0);
  assert.match(sort.err, /cannot sort by VARIANT column v/);
});

test("add-files: a VARIANT file tarn wrote is registered, DuckDB's shredded one refused by name", async () => {
  const E = 'acme.semi.ext';
  JSON.parse(ok(['dataset', 'create', E, '--schema', 'id INT64, v VARIANT']));
  const ext = path.join(catalog, 'warehouse', 'ext');
  fs.mkdirSync(ext, { recursive: true });
  JSON.parse(ok(['dataset', 'location', 'grant', E, 'ext']));

  // A file tarn's writer made (`tarn convert` of NDJSON with the dataset's schema), registered.
  const ndjson = path.join(dir, 'ext.ndjson');
  fs.writeFileSync(ndjson, '{"id": 1, "v": {"k": [1, 2]}}\n{"id": 2, "v": "s"}\n');
  const mine = path.join(ext, 'tarn.parquet');
  ok(['convert', ndjson, mine, '--schema', 'id INT64, v VARIANT']);
  const added = JSON.parse(ok(['add-files', E, mine]));
  assert.equal(added.added_records, 2);
  const rows = ok(['scan', E]).split('\n').filter((l) => l).map((l) => JSON.parse(l));
  assert.deepEqual(rows.sort((a, b) => a.id - b.id), [{ id: 1, v: { k: [1, 2] } }, { id: 2, v: 's' }]);

  // DuckDB 1.5.6 shreds every VARIANT column it writes (typed_value); its SHREDDING option
  // cannot turn that off in this version, so tarn never gets an unshredded DuckDB file.
  const duck = path.join(ext, 'duck.parquet');
  await query(`COPY (SELECT 1::BIGINT AS id, '{"a": [1, 2.5]}'::JSON::VARIANT AS v
                     UNION ALL SELECT 2, 'x'::VARIANT) TO ${quote(duck)} (FORMAT PARQUET)`);
  const names = (await query(`SELECT name FROM parquet_schema(${quote(duck)})`)).map((s) => s.name);
  assert.ok(names.includes('typed_value'), 'DuckDB wrote an unshredded VARIANT: test tarn reading it');
  const schema = JSON.parse(ok(['parquet', 'schema', duck]));
  const v = schema.columns.filter((c) => c.name === 'v');
  assert.ok(v.length > 0);
  for (const c of v) assert.equal(c.unsupported, "VARIANT 'v' is shredded (typed_value), which is not supported");
  const refused = run(['add-files', E, duck, '--json']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.err, /column 'v' cannot be read from the file: VARIANT 'v' is shredded/);
});
