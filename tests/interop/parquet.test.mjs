// Interop with DuckDB, both directions:
//   - files tarn writes are read by DuckDB with identical values and sensible DuckDB types;
//   - files DuckDB writes (every codec, PARQUET_VERSION V1 and V2, field ids, lists, every
//     scalar type) are read by tarn with identical values;
//   - nested columns (STRUCT, MAP, lists of structs, structs of lists, maps of lists of structs,
//     nulls at every level) both ways, field ids at every level included.
// Scalar values are compared inside DuckDB, typed, row by row; nested ones as JSON against
// DuckDB's own rendering of them (duckdb_compare.mjs).
import { test, describe as suite } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parquetMetadata, parquetReadObjects, readColumnIndex, readOffsetIndex } from 'hyparquet';
import {
  canonicalJson, compareNestedWithDuckDb, compareWithJson, describe, duckDbRows, query, quote, scratch, tarn,
} from './duckdb_compare.mjs';

const CODECS = ['zstd', 'snappy', 'gzip', 'lz4_raw', 'brotli', 'none'];

// The DuckDB type of each column of `tarn parquet write-sample`.
const SAMPLE_TYPES = {
  id: 'BIGINT', city: 'VARCHAR', amount: 'DECIMAL(10,2)', price: 'DOUBLE', ratio: 'FLOAT',
  qty: 'INTEGER', level: 'SMALLINT', grade: 'TINYINT', port: 'USMALLINT', flags8: 'UTINYINT',
  count32: 'UINTEGER', big: 'UBIGINT', active: 'BOOLEAN', day: 'DATE', at: 'TIME',
  created: 'TIMESTAMP', created_s: 'TIMESTAMP', updated: 'TIMESTAMP WITH TIME ZONE',
  precise: 'TIMESTAMP WITH TIME ZONE', uid: 'UUID', ip: 'UINTEGER', payload: 'JSON',
  raw: 'BLOB', wide: 'DECIMAL(38,6)', tags: 'VARCHAR[]',
};

function assertNoMismatch(result, what) {
  assert.deepEqual(result.mismatches, [], `${what}: values differ (first mismatches shown)`);
}

suite('DuckDB reads what tarn writes', () => {
  const dir = scratch('tarn-writes');
  const variants = [];
  for (const codec of CODECS) variants.push({ name: codec, args: ['--compression', codec] });
  variants.push({ name: 'small-row-groups', args: ['--row-group-rows', '700'] });
  variants.push({ name: 'no-dictionary', args: ['--no-dictionary'] });
  variants.push({ name: 'small-pages', args: ['--page-bytes', '4096'] });
  // The page index is written by default (every variant above has one); and without it.
  variants.push({ name: 'small-pages-by-rows', args: ['--page-rows', '300'] });
  variants.push({ name: 'no-page-index', args: ['--no-page-index'] });
  for (const v of variants) {
    test(v.name, async () => {
      const file = path.join(dir, `${v.name}.parquet`);
      const expected = path.join(dir, `${v.name}.ndjson`);
      tarn(['parquet', 'write-sample', file, '--rows', '5000', ...v.args]);
      fs.writeFileSync(expected, tarn(['parquet', 'cat', file, '--json']));
      assert.deepEqual(await describe(file), SAMPLE_TYPES);
      const r = await compareWithJson(file, expected, { ...SAMPLE_TYPES, ip: 'IPV4' });
      assert.equal(r.rows, 5000);
      assertNoMismatch(r, v.name);
    });
  }

  test('TIME[ns] is TIME(NANOS), read by DuckDB as TIME_NS to the nanosecond', async () => {
    const csv = path.join(dir, 'times.csv');
    const file = path.join(dir, 'times.parquet');
    const expected = path.join(dir, 'times.ndjson');
    const values = ['23:59:59.999999999', '00:00:00.000000001', '', '12:34:56.5', '00:00:00'];
    fs.writeFileSync(csv, ['t,tu', ...values.map((v) => `${v},${v ? '01:02:03.000004' : ''}`)]
      .join('\n') + '\n');
    tarn(['convert', csv, file, '--type', 't=TIME[ns]', '--type', 'tu=TIME']);
    assert.deepEqual(await describe(file), { t: 'TIME_NS', tu: 'TIME' });
    const [el] = await query(`SELECT logical_type, converted_type FROM parquet_schema(${quote(file)})
                              WHERE name = 't'`);
    assert.match(el.logical_type, /NANOS=NanoSeconds/);
    assert.equal(el.converted_type, null);
    const cat = tarn(['parquet', 'cat', file, '--json']);
    assert.equal(JSON.parse(cat.split('\n')[0]).t, '23:59:59.999999999');
    fs.writeFileSync(expected, cat);
    const r = await compareWithJson(file, expected, { t: 'TIME_NS', tu: 'TIME' });
    assert.equal(r.rows, values.length);
    assertNoMismatch(r, 'TIME[ns]');
    const [s] = await query(`SELECT stats_min_value AS mn, stats_max_value AS mx
                             FROM parquet_metadata(${quote(file)}) WHERE path_in_schema = 't'`);
    assert.deepEqual([s.mn, s.mx], ['00:00:00', '23:59:59.999999999']);
  });

  test('field ids and statistics are what DuckDB sees', async () => {
    const file = path.join(dir, 'stats.parquet');
    tarn(['parquet', 'write-sample', file, '--rows', '3000']);
    const schema = await query(`SELECT name, field_id FROM parquet_schema(${quote(file)})
                                WHERE name IN ('id', 'city', 'tags', 'element')`);
    const ids = Object.fromEntries(schema.map((r) => [r.name, Number(r.field_id)]));
    assert.deepEqual(ids, { id: 1, city: 2, tags: 25, element: 26 });
    // min/max statistics of every plainly comparable column match DuckDB's own aggregates.
    for (const [col, t] of Object.entries({ id: 'BIGINT', qty: 'INTEGER', price: 'DOUBLE',
      day: 'DATE', city: 'VARCHAR', amount: 'DECIMAL(10,2)', big: 'UBIGINT', created: 'TIMESTAMP' })) {
      const [s] = await query(`SELECT min(stats_min_value) AS mn, max(stats_max_value) AS mx,
          sum(stats_null_count) AS nulls FROM parquet_metadata(${quote(file)})
          WHERE path_in_schema = ${quote(col)}`);
      const [a] = await query(`SELECT min("${col}")::VARCHAR AS mn, max("${col}")::VARCHAR AS mx,
          count(*) - count("${col}") AS nulls FROM read_parquet(${quote(file)})`);
      assert.equal(Number(s.nulls), Number(a.nulls), `${col} null_count`);
      if (t === 'VARCHAR' || t === 'BIGINT' || t === 'INTEGER' || t === 'DATE' || t === 'UBIGINT') {
        // Single row group: the chunk's stats are the column's.
        assert.equal(s.mn, a.mn, `${col} min`);
        assert.equal(s.mx, a.mx, `${col} max`);
      }
    }
  });
});

// A table with every DuckDB scalar type tarn maps, nulls everywhere, and lists.
const DUCKDB_TABLE = `
  SELECT
    i::BIGINT AS id,
    CASE WHEN i % 11 = 1 THEN NULL ELSE i % 2 = 0 END AS b,
    CASE WHEN i % 11 = 2 THEN NULL ELSE (i % 256 - 128)::TINYINT END AS i8,
    (i * 37 % 65536 - 32768)::SMALLINT AS i16,
    CASE WHEN i % 11 = 3 THEN NULL ELSE (i * 7919 - 1000000)::INTEGER END AS i32,
    CASE WHEN i = 0 THEN -9223372036854775808 WHEN i = 1 THEN 9223372036854775807
         ELSE (i * 1000003) * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) END::BIGINT AS i64,
    (i % 256)::UTINYINT AS u8, (i * 13 % 65536)::USMALLINT AS u16,
    (i * 2654435761 % 4294967296)::UINTEGER AS u32,
    (18446744073709551615 - i)::UBIGINT AS u64,
    CASE WHEN i = 5 THEN 'NaN'::FLOAT WHEN i = 6 THEN 'inf'::FLOAT ELSE (i / 7.0)::FLOAT END AS f32,
    CASE WHEN i % 11 = 4 THEN NULL WHEN i = 5 THEN 'NaN'::DOUBLE WHEN i = 7 THEN '-inf'::DOUBLE
         WHEN i = 8 THEN -0.0::DOUBLE ELSE i / 3.0 END AS f64,
    ((i % 1000) / 10)::DECIMAL(4,1) AS d4,
    (i * 1.25 - 3000)::DECIMAL(10,2) AS d10,
    (i::DECIMAL(18,3) * 1234567.891 - 99999.5)::DECIMAL(18,3) AS d18,
    (i::HUGEINT * 98765432109876543210987::HUGEINT * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END))::DECIMAL(38,5) AS d38,
    CASE WHEN i % 11 = 5 THEN NULL ELSE 'väl' || i || repeat('x', i % 5) END AS s,
    CASE WHEN i % 11 = 6 THEN NULL ELSE ('\\xAA\\x00\\xFF' || i::VARCHAR)::BLOB END AS bl,
    DATE '1969-12-25' + (i * 3)::INTEGER AS dt,
    TIME '00:00:00' + INTERVAL (i * 7919) SECOND + INTERVAL (i * 13) MICROSECOND AS tm,
    CASE WHEN i = 0 THEN '23:59:59.999999999'::TIME_NS WHEN i % 11 = 9 THEN NULL
         ELSE printf('%02d:%02d:%02d.%09d', i * 7 % 24, i * 13 % 60, i % 60,
                     i * 987654321 % 1000000000)::TIME_NS END AS tm_ns,
    TIMESTAMP '1999-12-31 23:59:59' + INTERVAL (i * 123456789) MICROSECOND AS ts,
    (TIMESTAMP '2001-02-03 04:05:06' + INTERVAL (i) DAY)::TIMESTAMP_S AS ts_s,
    (TIMESTAMP '1950-02-03 04:05:06.789' + INTERVAL (i) HOUR)::TIMESTAMP_MS AS ts_ms,
    ('2030-01-01 00:00:00'::TIMESTAMP_NS + INTERVAL (i * 1001) MICROSECOND) AS ts_ns,
    (TIMESTAMPTZ '2024-03-10 01:59:59+00' + INTERVAL (i * 1000003) MICROSECOND) AS tstz,
    ('00000000-0000-4000-8000-' || lpad(printf('%x', i * 2654435761), 12, '0'))::UUID AS u,
    CASE WHEN i % 11 = 7 THEN NULL ELSE json_object('k', i, 'tags', ['a', 'b'], 'q', 'x"y') END AS js,
    CASE WHEN i % 11 = 8 THEN NULL ELSE [i, i + 1, i * 2]::INTEGER[] END AS li,
    CASE WHEN i % 5 = 0 THEN []::VARCHAR[] WHEN i % 5 = 1 THEN NULL
         ELSE ['x' || i, NULL, 'z'] END AS ls,
    CASE WHEN i % 4 = 0 THEN NULL ELSE [[i], [], NULL, [i, NULL]]::BIGINT[][] END AS lli,
    [(i / 4.0)::DECIMAL(9,2)] AS ldec
  FROM range(N) t(i)`;

const DUCKDB_TYPES = {
  id: 'BIGINT', b: 'BOOLEAN', i8: 'TINYINT', i16: 'SMALLINT', i32: 'INTEGER', i64: 'BIGINT',
  u8: 'UTINYINT', u16: 'USMALLINT', u32: 'UINTEGER', u64: 'UBIGINT', f32: 'FLOAT', f64: 'DOUBLE',
  d4: 'DECIMAL(4,1)', d10: 'DECIMAL(10,2)', d18: 'DECIMAL(18,3)', d38: 'DECIMAL(38,5)',
  s: 'VARCHAR', bl: 'BLOB', dt: 'DATE', tm: 'TIME', tm_ns: 'TIME_NS', ts: 'TIMESTAMP',
  ts_s: 'TIMESTAMP', ts_ms: 'TIMESTAMP', ts_ns: 'TIMESTAMP', tstz: 'TIMESTAMP WITH TIME ZONE', u: 'UUID',
  js: 'JSON', li: 'INTEGER[]', ls: 'VARCHAR[]', lli: 'BIGINT[][]', ldec: 'DECIMAL(9,2)[]',
};

// The tarn type each DuckDB column must be read as.
const TARN_TYPES = {
  id: 'INT64', b: 'BOOLEAN', i8: 'INT8', i16: 'INT16', i32: 'INT32', i64: 'INT64', u8: 'UINT8',
  u16: 'UINT16', u32: 'UINT32', u64: 'UINT64', f32: 'FLOAT32', f64: 'FLOAT64',
  d4: 'DECIMAL(4,1)', d10: 'DECIMAL(10,2)', d18: 'DECIMAL(18,3)', d38: 'DECIMAL(38,5)',
  s: 'VARCHAR', bl: 'BLOB', dt: 'DATE', tm: 'TIME', tm_ns: 'TIME[ns]', ts: 'TIMESTAMP[us]',
  ts_s: 'TIMESTAMP[us]',
  ts_ms: 'TIMESTAMP[ms]', ts_ns: 'TIMESTAMP[us]', tstz: 'TIMESTAMPTZ[us]', u: 'UUID',
  js: 'JSON', li: 'ARRAY<INT32>', ls: 'ARRAY<VARCHAR>', lli: 'ARRAY<ARRAY<INT64>>',
  ldec: 'ARRAY<DECIMAL(9,2)>',
};

suite('tarn reads what DuckDB writes', () => {
  const dir = scratch('duckdb-writes');
  const cases = [];
  for (const version of ['V1', 'V2']) {
    for (const codec of ['zstd', 'snappy', 'gzip', 'lz4_raw', 'brotli', 'uncompressed']) {
      cases.push({ name: `${version}-${codec}`, opts: `COMPRESSION ${codec}, PARQUET_VERSION ${version}` });
    }
  }
  cases.push({ name: 'row-groups', opts: 'COMPRESSION zstd, ROW_GROUP_SIZE 2048', rows: 10000 });
  cases.push({ name: 'field-ids', opts: "COMPRESSION snappy, FIELD_IDS 'auto'" });

  for (const c of cases) {
    test(c.name, async () => {
      const rows = c.rows ?? 3000;
      const file = path.join(dir, `${c.name}.parquet`);
      const got = path.join(dir, `${c.name}.ndjson`);
      await query(`COPY (${DUCKDB_TABLE.replace('range(N)', `range(${rows})`)}) TO ${quote(file)}
                   (FORMAT parquet, ${c.opts})`);
      assert.deepEqual(await describe(file), DUCKDB_TYPES);
      const schema = JSON.parse(tarn(['parquet', 'schema', file, '--json']));
      const types = {};
      for (const col of schema.columns) types[col.name] = col.type;
      assert.deepEqual(types, TARN_TYPES);
      if (c.name === 'field-ids') {
        const ids = await query(`SELECT name, field_id FROM parquet_schema(${quote(file)})
                                 WHERE field_id IS NOT NULL`);
        const want = Object.fromEntries(ids.filter((r) => r.name in TARN_TYPES)
          .map((r) => [r.name, Number(r.field_id)]));
        const have = Object.fromEntries(schema.columns.filter((col) => col.name in want)
          .map((col) => [col.name, col.field_id]));
        assert.deepEqual(have, want);
        assert.equal(Object.keys(want).length, Object.keys(TARN_TYPES).length);
      }
      fs.writeFileSync(got, tarn(['parquet', 'cat', file, '--json']));
      const r = await compareWithJson(file, got, DUCKDB_TYPES);
      assert.equal(r.rows, rows);
      assertNoMismatch(r, c.name);
    });
  }

  test('projection and limit', async () => {
    const file = path.join(dir, 'V2-zstd.parquet');
    const out = tarn(['parquet', 'cat', file, '--json', '--columns', 'u64,s,ls', '--limit', '3']);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 3);
    assert.deepEqual(Object.keys(lines[0]), ['u64', 's', 'ls']);
  });
});

// Nested columns of every shape, with nulls and empty containers at every level.
const NESTED_TABLE = `
  SELECT
    i::BIGINT AS id,
    CASE WHEN i % 7 = 1 THEN NULL
         ELSE {'a': CASE WHEN i % 5 = 2 THEN NULL ELSE i::INTEGER END, 'b': 'v' || i,
               'inner': CASE WHEN i % 9 = 3 THEN NULL
                             ELSE {'d': DATE '2024-01-01' + i::INTEGER,
                                   'w': (i / 4)::DECIMAL(10,2)} END} END AS s,
    CASE WHEN i % 6 = 1 THEN NULL WHEN i % 6 = 2 THEN MAP {}::MAP(VARCHAR, INTEGER)
         ELSE MAP(['k' || i, 'z'], [i::INTEGER, CASE WHEN i % 4 = 0 THEN NULL ELSE 7 END]) END
      AS m,
    CASE WHEN i % 5 = 1 THEN NULL WHEN i % 5 = 2 THEN []
         ELSE [{'x': i, 'y': 'p' || i}, NULL, {'x': NULL, 'y': NULL}] END AS ls,
    CASE WHEN i % 4 = 1 THEN NULL
         ELSE {'tags': CASE WHEN i % 3 = 0 THEN NULL WHEN i % 3 = 1 THEN []
                            ELSE ['t' || i, NULL] END, 'n': i::INTEGER} END AS sl,
    CASE WHEN i % 8 = 1 THEN NULL
         ELSE MAP(['a', 'b'], [{'p': i * 0.5, 'q': [i::INTEGER, NULL]}, NULL]) END AS ms,
    CASE WHEN i % 10 = 1 THEN NULL
         ELSE MAP([i::INTEGER, i::INTEGER + 100000],
                  [[{'k': i, 'v': ['x', NULL]}], []]) END AS deep,
    [MAP(['u'], [i::BIGINT]), NULL] AS lm,
    TIMESTAMP '2024-01-01 10:00:00' + INTERVAL (i) SECOND AS ts
  FROM range(N) t(i)`;

const NESTED_DUCKDB_TYPES = {
  id: 'BIGINT', s: 'STRUCT(a INTEGER, b VARCHAR, "inner" STRUCT(d DATE, w DECIMAL(10,2)))',
  m: 'MAP(VARCHAR, INTEGER)', ls: 'STRUCT(x BIGINT, y VARCHAR)[]',
  sl: 'STRUCT(tags VARCHAR[], n INTEGER)', ms: 'MAP(VARCHAR, STRUCT(p DECIMAL(21,1), q INTEGER[]))',
  deep: 'MAP(INTEGER, STRUCT(k BIGINT, v VARCHAR[])[])', lm: 'MAP(VARCHAR, BIGINT)[]',
  ts: 'TIMESTAMP',
};

const NESTED_TARN_TYPES = {
  id: 'INT64', s: 'STRUCT<a: INT32, b: VARCHAR, inner: STRUCT<d: DATE, w: DECIMAL(10,2)>>',
  m: 'MAP<VARCHAR, INT32>', ls: 'ARRAY<STRUCT<x: INT64, y: VARCHAR>>',
  sl: 'STRUCT<tags: ARRAY<VARCHAR>, n: INT32>',
  ms: 'MAP<VARCHAR, STRUCT<p: DECIMAL(21,1), q: ARRAY<INT32>>>',
  deep: 'MAP<INT32, ARRAY<STRUCT<k: INT64, v: ARRAY<VARCHAR>>>>', lm: 'ARRAY<MAP<VARCHAR, INT64>>',
  ts: 'TIMESTAMP[us]',
};

// The elements of a file's Parquet schema that carry a field id, in schema order: [name, id].
async function schemaIds(file) {
  const rows = await query(`SELECT name, field_id FROM parquet_schema(${quote(file)})
                            WHERE field_id IS NOT NULL`);
  return rows.map((r) => [r.name, Number(r.field_id)]);
}

// The same from tarn's schema JSON (`dataset show --json`): each field, then its nested fields
// ("children"), depth first, as SchemaToParquet writes them.
function datasetIds(schema) {
  const out = [];
  const walk = (f) => {
    out.push([f.name, f.id]);
    for (const c of f.children ?? []) walk(c);
  };
  for (const f of schema) walk(f);
  return out;
}

suite('nested columns, both ways', () => {
  const dir = scratch('nested');
  const rows = 3000;

  for (const version of ['V1', 'V2']) {
    test(`tarn reads DuckDB's nested columns (${version})`, async () => {
      const file = path.join(dir, `duckdb-${version}.parquet`);
      await query(`COPY (${NESTED_TABLE.replace('range(N)', `range(${rows})`)}) TO ${quote(file)}
                   (FORMAT parquet, PARQUET_VERSION ${version}, FIELD_IDS 'auto',
                    ROW_GROUP_SIZE 1000)`);
      assert.deepEqual(await describe(file), NESTED_DUCKDB_TYPES);
      const schema = JSON.parse(tarn(['parquet', 'schema', file, '--json']));
      const types = {};
      for (const col of schema.columns) types[col.name] = col.type;
      assert.deepEqual(types, NESTED_TARN_TYPES);
      // Every leaf's own field id is DuckDB's (members, list elements, map keys and values).
      const ids = await query(`SELECT name, field_id, num_children FROM parquet_schema(${quote(file)})`);
      const leafIds = ids.filter((r) => r.num_children === null && r.field_id !== null)
        .map((r) => Number(r.field_id));
      const tarnLeafIds = schema.columns.map((c) => c.leaf_field_id ?? c.field_id);
      assert.deepEqual(tarnLeafIds, leafIds);
      const r = await compareNestedWithDuckDb(file);
      assert.equal(r.rows, rows);
      assert.deepEqual(r.mismatches, [], `${version}: values differ (first mismatches shown)`);
    });
  }

  test('DuckDB reads the nested columns tarn writes, with their statistics', async () => {
    const src = path.join(dir, 'duckdb-V1.parquet');
    const file = path.join(dir, 'tarn.parquet');
    tarn(['convert', src, file]);
    assert.deepEqual(await describe(file), NESTED_DUCKDB_TYPES);
    assert.deepEqual(await duckDbRows(file), await duckDbRows(src));
    const r = await compareNestedWithDuckDb(file);
    assert.equal(r.rows, rows);
    assert.deepEqual(r.mismatches, []);
    // The 3-level MAP and LIST and the plain struct groups, as DuckDB names them.
    const [m] = await query(`SELECT converted_type, logical_type FROM parquet_schema(${quote(file)})
                             WHERE name = 'm'`);
    assert.equal(m.converted_type, 'MAP');
    assert.match(m.logical_type, /Map/i);
    // Statistics per leaf: DuckDB's own aggregates over the leaf's values.
    const stats = async (leafPath) => {
      const [s] = await query(`SELECT min(stats_min_value) AS mn, max(stats_max_value) AS mx,
          sum(stats_null_count) AS nulls FROM parquet_metadata(${quote(file)})
          WHERE path_in_schema = ${quote(leafPath)}`);
      return s;
    };
    const scalarLeaf = async (leafPath, expr) => {
      const s = await stats(leafPath);
      const [a] = await query(`SELECT min(${expr})::VARCHAR AS mn, max(${expr})::VARCHAR AS mx,
          count(*) - count(${expr}) AS nulls FROM read_parquet(${quote(file)})`);
      assert.deepEqual([s.mn, s.mx, Number(s.nulls)], [a.mn, a.mx, Number(a.nulls)], leafPath);
    };
    await scalarLeaf('s, a', 's.a');
    await scalarLeaf('s, b', 's.b');
    await scalarLeaf('s, inner, d', 's.inner.d');
    await scalarLeaf('sl, n', 'sl.n');
    // A repeated leaf: min and max of every key; nulls are the entries below the leaf's max
    // definition level (null and empty maps here: keys are never null).
    const k = await stats('m, key_value, key');
    const [a] = await query(`SELECT min(k) AS mn, max(k) AS mx FROM
        (SELECT unnest(map_keys(m)) AS k FROM read_parquet(${quote(file)}))`);
    const [e] = await query(`SELECT count(*) FILTER (WHERE m IS NULL OR cardinality(m) = 0) AS n
                             FROM read_parquet(${quote(file)})`);
    assert.deepEqual([k.mn, k.mx, Number(k.nulls)], [a.mn, a.mx, Number(e.n)]);
  });

  test('a dataset with nested columns: files DuckDB reads, field ids at every level', async () => {
    const catalog = path.join(dir, 'catalog');
    const src = path.join(dir, 'duckdb-V2.parquet');
    const cli = (args) => tarn(['--catalog', catalog, ...args]);
    cli(['workspace', 'create', 'w']);
    cli(['collection', 'create', 'w.c']);
    const schemaText = Object.entries(NESTED_TARN_TYPES).map(([n, t]) => `${n} ${t}`).join(', ');
    cli(['dataset', 'create', 'w.c.events', '--schema', schemaText, '--sort', 'id DESC']);
    cli(['append', 'w.c.events', src]);
    const show = JSON.parse(cli(['dataset', 'show', 'w.c.events', '--json']));
    const files = JSON.parse(cli(['files', 'w.c.events', '--json']));
    assert.equal(files.length, 1);
    const dataFile = path.join(catalog, 'warehouse', files[0].path);
    assert.ok(fs.existsSync(dataFile), dataFile);
    assert.deepEqual(await schemaIds(dataFile), datasetIds(show.schema));
    assert.deepEqual(await duckDbRows(dataFile, 'id'), await duckDbRows(src, 'id'));
    // tarn's scan of the dataset is what DuckDB read from the source.
    const scanned = cli(['scan', 'w.c.events', '--json']).split('\n').filter(Boolean)
      .map((l) => JSON.parse(l)).sort((x, y) => x.id - y.id);
    assert.deepEqual(scanned.map(canonicalJson), await duckDbRows(src, 'id'));
  });
});

// ---- the page index ---------------------------------------------------------------------------

// The column and offset indexes of every chunk of `file`, decoded by hyparquet (an independent
// Thrift decoder): [{rg, column, offset: OffsetIndex, column: ColumnIndex | undefined}].
function pageIndexes(file) {
  const buf = fs.readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const md = parquetMetadata(ab);
  const leaves = md.schema.filter((e) => !e.num_children);
  const out = [];
  md.row_groups.forEach((rg, g) => rg.columns.forEach((ch, c) => {
    const at = (off, len) => ({ view: new DataView(ab, Number(off), len), offset: 0 });
    out.push({
      rg: g,
      rows: Number(rg.num_rows),
      path: ch.meta_data.path_in_schema.join('.'),
      offsetIndex: ch.offset_index_offset === undefined ? undefined
        : readOffsetIndex(at(ch.offset_index_offset, ch.offset_index_length)),
      columnIndex: ch.column_index_offset === undefined ? undefined
        : readColumnIndex(at(ch.column_index_offset, ch.column_index_length), leaves[c]),
    });
  }));
  return { ab, md, out };
}

// Reads `file` with `tarn parquet cat --where` and checks the rows against DuckDB's
// `SELECT * ... WHERE` (the predicate is valid in both); returns the pages tarn read and skipped.
async function sameWhereAsDuckDb(dir, file, where, types, name) {
  const expected = path.join(dir, `${name}.parquet`);
  const got = path.join(dir, `${name}.ndjson`);
  await query(`COPY (SELECT * FROM read_parquet(${quote(file)}) WHERE ${where})
               TO ${quote(expected)} (FORMAT parquet)`);
  const r = spawnSync(process.env.TARN_BINARY || path.resolve('../../build/tarn'),
    ['parquet', 'cat', file, '--json', '--where', where, '--stats'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, r.stderr);
  fs.writeFileSync(got, r.stdout);
  const cmp = await compareWithJson(expected, got, types);
  assertNoMismatch(cmp, `${name}: ${where}`);
  const m = r.stderr.match(/data pages read (\d+), skipped (\d+); row groups skipped (\d+)/);
  assert.ok(m, r.stderr);
  return { rows: cmp.rows, read: Number(m[1]), skipped: Number(m[2]), groupsSkipped: Number(m[3]) };
}

suite('the page index', () => {
  const dir = scratch('page-index');

  test("tarn's indexes decode with another reader and describe each page exactly", async () => {
    const file = path.join(dir, 'sample.parquet');
    // Snappy: hyparquet reads it without a codec plugin.
    tarn(['parquet', 'write-sample', file, '--rows', '50000', '--row-group-rows', '20000',
      '--page-rows', '3000', '--compression', 'snappy']);
    const { ab, out } = pageIndexes(file);
    const checked = { id: 0, city: 0, qty: 0, price: 0 };
    let start = 0;
    for (const chunk of out) {
      if (chunk.path === 'id' && chunk.rg > 0) start += out.find((c) => c.rg === chunk.rg - 1).rows;
      assert.ok(chunk.offsetIndex, `${chunk.path}: every chunk has an offset index`);
      if (!(chunk.path in checked)) continue;
      const ci = chunk.columnIndex;
      assert.ok(ci, `${chunk.path}: a column index`);
      const locs = chunk.offsetIndex.page_locations;
      assert.equal(ci.null_pages.length, locs.length);
      if (chunk.path === 'id') assert.equal(ci.boundary_order, 'ASCENDING');
      for (let p = 0; p < locs.length; ++p) {
        const first = start + Number(locs[p].first_row_index);
        const end = start + (p + 1 < locs.length ? Number(locs[p + 1].first_row_index) : chunk.rows);
        const col = chunk.path;
        const [d] = await query(`SELECT min(${col})::VARCHAR AS lo, max(${col})::VARCHAR AS hi,
            (count(*) - count(${col}))::BIGINT AS nulls
          FROM (SELECT ${col}, row_number() OVER () - 1 AS rn FROM read_parquet(${quote(file)}))
          WHERE rn >= ${first} AND rn < ${end}`);
        assert.equal(Number(ci.null_counts[p]), Number(d.nulls), `${col} page ${p} nulls`);
        assert.equal(ci.null_pages[p], d.lo === null, `${col} page ${p} null page`);
        if (col === 'price') {
          assert.equal(Number(ci.min_values[p]), Number(d.lo), `${col} page ${p} min`);
          assert.equal(Number(ci.max_values[p]), Number(d.hi), `${col} page ${p} max`);
        } else {
          assert.equal(String(ci.min_values[p]), d.lo, `${col} page ${p} min`);
          assert.equal(String(ci.max_values[p]), d.hi, `${col} page ${p} max`);
        }
        checked[col] += 1;
      }
    }
    for (const [col, pages] of Object.entries(checked)) assert.ok(pages >= 17, `${col}: ${pages} pages`);
    // hyparquet reads rows through the offset index alone.
    const rows = await parquetReadObjects({ file: ab, rowStart: 31234, rowEnd: 31237,
      columns: ['id', 'city'], useOffsetIndex: true });
    const duck = await query(`SELECT id, city FROM read_parquet(${quote(file)}) WHERE id BETWEEN 31235 AND 31237 ORDER BY id`);
    assert.deepEqual(rows.map((r) => [String(r.id), r.city]), duck.map((r) => [String(r.id), r.city]));
    // tarn parquet meta reports both indexes.
    const meta = JSON.parse(tarn(['parquet', 'meta', file, '--json']));
    for (const rg of meta.row_groups) {
      for (const c of rg.columns) {
        assert.ok(c.offset_index && c.offset_index.length > 0, c.path);
        assert.ok(c.column_index && c.column_index.length > 0, c.path);
      }
    }
  });

  test('all-null pages, and reads through the index equal DuckDB reads', async () => {
    // n is empty (null) for the first 45,000 rows: whole pages of nulls.
    const csv = path.join(dir, 'nulls.csv');
    const file = path.join(dir, 'nulls.parquet');
    const lines = ['id,n,s'];
    for (let i = 0; i < 70000; ++i) lines.push(`${i},${i < 45000 ? '' : i % 100},k${String(i).padStart(6, '0')}`);
    fs.writeFileSync(csv, lines.join('\n') + '\n');
    tarn(['convert', csv, file, '--type', 'id=INT64', '--type', 'n=INT32', '--type', 's=VARCHAR']);
    const { out } = pageIndexes(file);
    const n = out.find((c) => c.path === 'n');
    assert.deepEqual(n.columnIndex.null_pages.slice(0, 2), [true, true]);
    assert.equal(n.columnIndex.min_values[0].length, 0);  // empty bytes for a null page
    const types = { id: 'BIGINT', n: 'INTEGER', s: 'VARCHAR' };
    const lookups = [
      ['id = 54321', 'point'],
      ['s = \'k012345\'', 'string'],
      ['n IS NULL AND id > 44990', 'is-null'],
      ['n = 7', 'in-values'],
      ['id IN (3, 69999)', 'in'],
      ['id >= 69990 OR id < 3', 'or'],
    ];
    for (const [where, name] of lookups) {
      const r = await sameWhereAsDuckDb(dir, file, where, types, name);
      assert.ok(r.rows > 0, `${where}: rows`);
      if (name !== 'in-values') assert.ok(r.skipped > 0, `${where}: pages skipped (${JSON.stringify(r)})`);
    }
  });
});

// The unscaled integer of a decimal's text at `scale` ('14.75', 2 -> '1475').
function unscaled(text, scale) {
  const neg = text.startsWith('-');
  const [whole, frac = ''] = text.replace('-', '').split('.');
  const digits = (whole + frac.padEnd(scale, '0').slice(0, scale)).replace(/^0+(?=\d)/, '');
  return (neg && digits !== '0' ? '-' : '') + digits;
}

// What DuckDB's parquet_bloom_probe says of `values` in each row group of column `col` of
// `file`: "absent" where its bloom filter excludes a value, else "maybe"; one entry per
// (row group, value) as "rg:value:answer". DuckDB's probe casts a value to the column's
// physical type, so a DECIMAL's is given to it unscaled (`scale`); a DuckDB query filters
// DECIMAL columns by their filters right all the same.
async function duckdbProbe(file, col, values, scale = null) {
  const out = [];
  for (const v of values) {
    const asked = scale === null ? v : unscaled(v, scale);
    const rows = await query(`SELECT row_group_id, bloom_filter_excludes FROM
        parquet_bloom_probe(${quote(file)}, ${quote(col)}, ${quote(asked)}) ORDER BY row_group_id`);
    for (const r of rows) out.push(`${r.row_group_id}:${v}:${r.bloom_filter_excludes ? 'absent' : 'maybe'}`);
  }
  return out.sort();
}

// Columns whose values DuckDB's parquet_bloom_probe does not look up as its own reader and
// writer store them: it never excludes a FIXED_LEN_BYTE_ARRAY value (UUID, DECIMAL of more than
// 18 digits), and takes a TIMESTAMP of a millisecond column as microseconds. tarn's answers on
// these are checked against the data instead.
const NOT_PROBED_BY_DUCKDB = new Set(['created_s', 'updated', 'uid', 'wide', 'u']);

// The same from `tarn parquet probe`.
function tarnProbe(file, col, values) {
  const r = JSON.parse(tarn(['parquet', 'probe', file, col, ...values, '--json']));
  return r.results.map((x) => `${x.row_group}:${x.value}:${x.result}`).sort();
}

suite('bloom filters, both ways', () => {
  const dir = scratch('bloom-filters');

  test('DuckDB reads tarn files with bloom filters value for value; its probe agrees', async () => {
    // Every column tarn writes a filter for and whose value DuckDB types alike (not UINT64 past
    // 2^53 in JSON, IPV4 as text, JSON, BLOB, TIMESTAMPTZ[ns] that DuckDB reads in us).
    const cols = ['id', 'city', 'amount', 'price', 'ratio', 'qty', 'level', 'grade', 'port',
      'flags8', 'count32', 'day', 'at', 'created', 'created_s', 'updated', 'uid', 'wide'];
    const file = path.join(dir, 'tarn.parquet');
    const expected = path.join(dir, 'tarn.ndjson');
    tarn(['parquet', 'write-sample', file, '--rows', '5000', '--row-group-rows', '2000',
      ...cols.flatMap((c) => ['--bloom-filter', c]), '--bloom-filter', 'big',
      '--bloom-filter', 'ip', '--bloom-filter', 'payload', '--bloom-filter', 'raw']);
    fs.writeFileSync(expected, tarn(['parquet', 'cat', file, '--json']));
    assert.deepEqual(await describe(file), SAMPLE_TYPES);
    const r = await compareWithJson(file, expected, { ...SAMPLE_TYPES, ip: 'IPV4' });
    assert.equal(r.rows, 5000);
    assertNoMismatch(r, 'with bloom filters');

    // tarn parquet meta reports each filter; DuckDB finds the same offsets and lengths.
    const meta = JSON.parse(tarn(['parquet', 'meta', file, '--json']));
    const duckMeta = await query(`SELECT row_group_id, column_id, path_in_schema, bloom_filter_offset,
        bloom_filter_length FROM parquet_metadata(${quote(file)})`);
    let filters = 0;
    for (const d of duckMeta) {
      const c = meta.row_groups[Number(d.row_group_id)].columns[Number(d.column_id)];
      if (d.bloom_filter_offset === null) {
        assert.equal(c.bloom_filter, undefined, d.path_in_schema);
        continue;
      }
      ++filters;
      assert.equal(c.bloom_filter.offset, Number(d.bloom_filter_offset), d.path_in_schema);
      assert.equal(c.bloom_filter.length, Number(d.bloom_filter_length), d.path_in_schema);
      assert.ok(c.bloom_filter.bitset_bytes >= 32 && c.bloom_filter.length > c.bloom_filter.bitset_bytes);
    }
    assert.equal(filters, 3 * (cols.length + 4));

    // Present values (from each row group) and absent ones: DuckDB and tarn answer alike.
    const rows = fs.readFileSync(expected, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const absent = { id: '987654321', city: 'Atlantis', amount: '0.03', price: '0.123', ratio: '0.0625',
      qty: '123456', level: '-30001', grade: '-1', port: '1', flags8: '1', count32: '5', day: '1901-01-01',
      at: '00:00:00.000001', created: '1990-01-01 00:00:00', created_s: '1990-01-01 00:00:00',
      updated: '1990-01-01 00:00:00Z', uid: '00000000-0000-0000-0000-000000000001', wide: '0.5' };
    let excluded = 0;
    for (const col of cols) {
      const values = [];
      for (const i of [0, 2500, 4999]) {
        if (rows[i][col] !== null) values.push(String(rows[i][col]));
      }
      values.push(absent[col]);
      const t = tarnProbe(file, col, values);
      const scale = { amount: 2, wide: 6 }[col] ?? null;
      if (!NOT_PROBED_BY_DUCKDB.has(col)) {
        assert.deepEqual(await duckdbProbe(file, col, values, scale), t, col);
      }
      // A value is never ruled out in the row group that holds it.
      for (const [k, i] of [0, 2500, 4999].entries()) {
        if (rows[i][col] === null) continue;
        assert.ok(t.includes(`${Math.floor(i / 2000)}:${String(rows[i][col])}:maybe`), `${col} row ${i} (${k})`);
      }
      excluded += t.filter((x) => x.startsWith('0:' + absent[col] + ':absent')).length;
    }
    assert.ok(excluded >= cols.length - 2, `absent values ruled out in row group 0: ${excluded}`);
  });

  test('tarn reads the bloom filters DuckDB writes; its answers are DuckDB\'s', async () => {
    const file = path.join(dir, 'duckdb.parquet');
    await query(`COPY (SELECT i AS id, 'name' || (i % 100) AS name, (i % 50)::INTEGER AS small,
        (i % 40)::BIGINT * 1000003 AS big, DATE '2024-01-01' + (i % 30)::INTEGER AS day,
        ((i % 60) / 4)::DECIMAL(10,2) AS amount, (i % 25)::DOUBLE / 8 AS dbl,
        ('00000000-0000-4000-8000-' || lpad((i % 20)::VARCHAR, 12, '0'))::UUID AS u,
        TIMESTAMP '2024-05-01 00:00:00' + INTERVAL (i % 35) MINUTE AS ts
      FROM range(6000) t(i)) TO ${quote(file)} (FORMAT parquet, ROW_GROUP_SIZE 2000)`);
    const withFilters = await query(`SELECT DISTINCT path_in_schema FROM parquet_metadata(${quote(file)})
        WHERE bloom_filter_offset IS NOT NULL ORDER BY 1`);
    const cols = withFilters.map((r) => r.path_in_schema);
    assert.ok(cols.includes('name') && cols.includes('small'), `DuckDB wrote filters for ${cols}`);
    const meta = JSON.parse(tarn(['parquet', 'meta', file, '--json']));
    for (const rg of meta.row_groups) {
      for (const c of rg.columns) {
        assert.equal(c.bloom_filter !== undefined, cols.includes(c.path), c.path);
        if (c.bloom_filter) assert.ok(c.bloom_filter.bitset_bytes >= 32, JSON.stringify(c.bloom_filter));
      }
    }
    const values = { name: ['name7', 'name99', 'name100', 'zzz'], small: ['7', '49', '50', '-1'],
      big: ['0', '39000117', '40000120', '7'], day: ['2024-01-01', '2024-01-30', '2024-01-31'],
      amount: ['0.25', '14.75', '15.00', '0.10'], dbl: ['0.125', '3', '3.125', '0.1'],
      u: ['00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000020'],
      ts: ['2024-05-01 00:34:00', '2024-05-01 00:35:00'] };
    let absent = 0;
    for (const col of cols) {
      if (!values[col]) continue;
      const t = tarnProbe(file, col, values[col]);
      assert.ok(!t.some((x) => x.endsWith(':none')), `${col}: ${t}`);
      if (NOT_PROBED_BY_DUCKDB.has(col)) {
        // Every value of u is in every row group; '...020' in none.
        assert.deepEqual(t, [0, 1, 2].flatMap((g) => [
          `${g}:00000000-0000-4000-8000-000000000003:maybe`,
          `${g}:00000000-0000-4000-8000-000000000020:absent`]).sort(), col);
        continue;
      }
      assert.deepEqual(t, await duckdbProbe(file, col, values[col], col === 'amount' ? 2 : null), col);
      absent += t.filter((x) => x.endsWith(':absent')).length;
    }
    assert.ok(absent >= 6, `values outside the data were ruled out (${absent})`);
  });

  test('a dataset with parquet.bloom-filter-columns: its files carry them, scans skip by them', async () => {
    const cat = path.join(dir, 'catalog');
    const run = (args) => tarn([...args, '--catalog', cat]);
    run(['workspace', 'create', 'w']);
    run(['collection', 'create', 'w.c']);
    run(['dataset', 'create', 'w.c.d', '--schema', 'id INT64 NOT NULL, name VARCHAR, n INT32']);
    run(['dataset', 'set', 'w.c.d', 'parquet.bloom-filter-columns=id,name']);
    // Two files whose bounds both cover id 50 and name 'm'.
    const a = path.join(dir, 'a.csv');
    const b = path.join(dir, 'b.csv');
    fs.writeFileSync(a, 'id,name,n\n1,a,1\n100,z,2\n');
    fs.writeFileSync(b, 'id,name,n\n2,b,3\n50,m,4\n99,y,5\n');
    run(['append', 'w.c.d', a]);
    run(['append', 'w.c.d', b]);
    const files = JSON.parse(run(['files', 'w.c.d', '--json']));
    assert.equal(files.length, 2);
    // Planning asks the filters: of the two files the bounds keep, one holds 50.
    const planned = JSON.parse(run(['files', 'w.c.d', '--where', 'id = 50', '--json']));
    assert.equal(planned.length, 1);
    assert.equal(planned[0].records, 3);
    assert.equal(JSON.parse(run(['files', 'w.c.d', '--where', "id = 50 OR name = 'a'", '--json'])).length, 2);
    assert.equal(JSON.parse(run(['files', 'w.c.d', '--where', "name IN ('c', 'x')", '--json'])).length, 0);
    assert.equal(JSON.parse(run(['files', 'w.c.d', '--where', 'id > 40', '--json'])).length, 2);
    for (const f of files) {
      const p = path.join(cat, 'warehouse', f.path);
      assert.deepEqual(tarnProbe(p, 'id', ['50']).length, 1);
      const duck = await query(`SELECT path_in_schema FROM parquet_metadata(${quote(p)})
          WHERE bloom_filter_offset IS NOT NULL ORDER BY 1`);
      assert.deepEqual(duck.map((r) => r.path_in_schema), ['id', 'name']);
      assert.deepEqual(await duckdbProbe(p, 'id', ['50', '1']), tarnProbe(p, 'id', ['50', '1']));
    }
    const r = spawnSync(process.env.TARN_BINARY || path.resolve('../../build/tarn'),
      ['scan', 'w.c.d', '--where', "id = 50 OR name = 'nope'", '--stats', '--json', '--catalog', cat],
      { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l)), [{ id: 50, name: 'm', n: 4 }]);
    const stats = JSON.parse(r.stderr.trim().split('\n').pop()).scan_stats;
    assert.equal(stats.files, 2);
    assert.equal(stats.row_groups_skipped_by_bloom_filter, 1);
    assert.equal(stats.files_skipped_by_bloom_filter, 1);
    // The page index counts too: of the row group left, one data page per column read.
    assert.equal(stats.row_groups_skipped_by_statistics, 0);
    assert.equal(stats.data_pages_read, 3);
    // An upload into the dataset writes them too.
    const c = path.join(dir, 'c.csv');
    fs.writeFileSync(c, 'id,name,n\n7,q,6\n');
    run(['push', c, '--to', 'w.c.d']);
    const pushed = JSON.parse(run(['files', 'w.c.d', '--where', 'id = 7', '--json']))
      .filter((f) => !files.some((g) => g.path === f.path));
    assert.equal(pushed.length, 1);
    assert.deepEqual(tarnProbe(path.join(cat, 'warehouse', pushed[0].path), 'name', ['q', 'nope']),
      ['0:nope:absent', '0:q:maybe']);
    // A bad property value is refused by name.
    const bad = spawnSync(process.env.TARN_BINARY || path.resolve('../../build/tarn'),
      ['dataset', 'set', 'w.c.d', 'parquet.bloom-filter-columns=n,nope', '--catalog', cat, '--json'],
      { encoding: 'utf8' });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /invalid_property/);
    assert.match(bad.stderr, /no column 'nope'/);
  });

  test('STRUCT members get filters by dotted path; planning and scans ask them', async () => {
    const cat = path.join(dir, 'members');
    const run = (args) => tarn([...args, '--catalog', cat]);
    run(['workspace', 'create', 'w']);
    run(['collection', 'create', 'w.c']);
    run(['dataset', 'create', 'w.c.e', '--schema', 'id INT64 NOT NULL, p STRUCT<s: VARCHAR, k: INT64>',
      '--property', 'parquet.bloom-filter-columns=p.s']);
    const a = path.join(dir, 'ma.ndjson');
    const b = path.join(dir, 'mb.ndjson');
    fs.writeFileSync(a, '{"id":1,"p":{"s":"a","k":1}}\n{"id":2,"p":{"s":"z","k":2}}\n');
    fs.writeFileSync(b, '{"id":3,"p":{"s":"m","k":3}}\n{"id":4,"p":null}\n');
    run(['append', 'w.c.e', a]);
    run(['append', 'w.c.e', b]);
    for (const f of JSON.parse(run(['files', 'w.c.e', '--json']))) {
      const p = path.join(cat, 'warehouse', f.path);
      const duck = await query(`SELECT path_in_schema FROM parquet_metadata(${quote(p)})
          WHERE bloom_filter_offset IS NOT NULL`);
      assert.deepEqual(duck.map((r) => r.path_in_schema), ['p, s']);
    }
    const planned = JSON.parse(run(['files', 'w.c.e', '--where', "p.s = 'm'", '--json']));
    assert.equal(planned.length, 1);
    const probe = JSON.parse(run(['parquet', 'probe', path.join(cat, 'warehouse', planned[0].path),
      'p.s', 'm', 'a', '--json']));
    assert.deepEqual(probe.results.map((r) => r.result), ['maybe', 'absent']);
    assert.equal(JSON.parse(run(['files', 'w.c.e', '--where', "p.s = 'q'", '--json'])).length, 0);
    assert.equal(JSON.parse(run(['files', 'w.c.e', '--where', 'p.k = 3', '--json'])).length, 1);  // bounds
    const r = spawnSync(process.env.TARN_BINARY || path.resolve('../../build/tarn'),
      ['scan', 'w.c.e', '--where', "p.s = 'm'", '--stats', '--json', '--catalog', cat],
      { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l)), [{ id: 3, p: { s: 'm', k: 3 } }]);
    assert.equal(JSON.parse(r.stderr.trim().split('\n').pop()).scan_stats.files_skipped_by_bloom_filter, 1);
  });
});
