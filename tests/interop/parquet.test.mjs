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
import fs from 'node:fs';
import path from 'node:path';
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
