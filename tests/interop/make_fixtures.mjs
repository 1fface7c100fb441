// Generates the DuckDB-written Parquet fixtures the reader's tests decode, and DuckDB's own
// rendering of their rows as JSON: {"types": {column: duckdb type}, "columns": {column: [...]}}.
// Fixtures written from the same query (the codec and version matrix) share one expectation
// file, <group>.json; the script reads every fixture back and checks that DuckDB renders it
// exactly as the group's expectation. Run once from tests/interop: `node make_fixtures.mjs`.
// The outputs are committed; tests never need node. Every value is deterministic.
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdirSync, writeFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, '..', 'data', 'parquet');
mkdirSync(outDir, { recursive: true });

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run("SET TimeZone = 'UTC'");

// Every DuckDB scalar type tarn maps, with nulls, extremes and special floats.
const typesQuery = `
SELECT
  i AS id,
  CASE WHEN i % 13 = 1 THEN NULL ELSE i % 3 = 0 END AS c_boolean,
  CASE WHEN i = 0 THEN -128 WHEN i = 1 THEN 127 WHEN i % 13 = 2 THEN NULL
       ELSE (i * 37) % 256 - 128 END::TINYINT AS c_tinyint,
  CASE WHEN i = 0 THEN -32768 WHEN i = 4 THEN 32767 WHEN i % 13 = 3 THEN NULL
       ELSE (i * 7919) % 65536 - 32768 END::SMALLINT AS c_smallint,
  CASE WHEN i = 0 THEN -2147483648 WHEN i = 5 THEN 2147483647 WHEN i % 13 = 4 THEN NULL
       ELSE i * 1000003 - 50000000 END::INTEGER AS c_integer,
  CASE WHEN i = 0 THEN -9223372036854775807 - 1
       WHEN i = 6 THEN 9223372036854775807
       WHEN i % 13 = 5 THEN NULL ELSE i * 1234567890123 - 4000000000000000 END::BIGINT
    AS c_bigint,
  CASE WHEN i = 7 THEN 255 WHEN i % 13 = 6 THEN NULL ELSE i % 256 END::UTINYINT AS c_utinyint,
  CASE WHEN i = 8 THEN 65535 WHEN i % 13 = 7 THEN NULL ELSE (i * 997) % 65536 END::USMALLINT
    AS c_usmallint,
  CASE WHEN i = 9 THEN 4294967295 WHEN i % 13 = 8 THEN NULL ELSE (i * 43000000) % 4294967296 END
    ::UINTEGER AS c_uinteger,
  CASE WHEN i = 10 THEN 18446744073709551615 WHEN i % 13 = 9 THEN NULL
       ELSE 18446744073709551615 - i * 100000000000007 END::UBIGINT AS c_ubigint,
  CASE WHEN i = 11 THEN 'nan'::FLOAT WHEN i = 12 THEN 'inf'::FLOAT
       WHEN i = 13 THEN '-inf'::FLOAT
       WHEN i % 13 = 10 THEN NULL ELSE (i * 0.37 - 10)::FLOAT END AS c_float,
  CASE WHEN i = 14 THEN 'nan'::DOUBLE WHEN i = 15 THEN '-inf'::DOUBLE
       WHEN i = 16 THEN 1e300 WHEN i = 17 THEN -2.5e-300
       WHEN i % 13 = 11 THEN NULL ELSE i * 1.1 - 50 END::DOUBLE AS c_double,
  CASE WHEN i = 18 THEN '-999.9'::DECIMAL(4,1)
       WHEN i = 19 THEN '999.9'::DECIMAL(4,1) WHEN i % 13 = 12 THEN NULL
       ELSE (((i * 77) % 19999 - 9999)::DECIMAL(5,0) * 0.1)::DECIMAL(4,1) END AS c_decimal_4_1,
  CASE WHEN i = 20 THEN '-99999999.99'::DECIMAL(10,2)
       WHEN i = 21 THEN '99999999.99'::DECIMAL(10,2) WHEN i % 13 = 0 THEN NULL
       ELSE ((i * 123456789 % 10000000000 - 5000000000)::DECIMAL(11,0) * 0.01)::DECIMAL(10,2) END
    AS c_decimal_10_2,
  CASE WHEN i = 22 THEN '-999999999999999.999'::DECIMAL(18,3) WHEN i % 11 = 1 THEN NULL
       ELSE ((i * 987654321987 - 12345678901234)::DECIMAL(18,0) * 0.001)::DECIMAL(18,3) END
    AS c_decimal_18_3,
  CASE WHEN i = 23 THEN '-999999999999999999999999999999999.99999'::DECIMAL(38,5)
       WHEN i = 24 THEN '12345678901234567890123456789012.34567'::DECIMAL(38,5)
       WHEN i % 11 = 2 THEN NULL
       ELSE ((i::HUGEINT * 98765432109876543210 - 7)::DECIMAL(38,0) * 0.00001)::DECIMAL(38,5) END
    AS c_decimal_38_5,
  CASE WHEN i = 25 THEN '' WHEN i = 26 THEN 'héllo wörld ✓ 😀' WHEN i % 11 = 3 THEN NULL
       ELSE 'row ' || i || repeat('x', i % 7) END AS c_varchar,
  CASE WHEN i = 27 THEN ''::BLOB WHEN i % 11 = 4 THEN NULL
       ELSE unhex(md5(i::VARCHAR)) END AS c_blob,
  CASE WHEN i = 28 THEN DATE '1900-01-01' WHEN i = 29 THEN DATE '2262-04-11'
       WHEN i % 11 = 5 THEN NULL
       ELSE DATE '1970-01-01' + (i * 373 - 20000)::INTEGER END AS c_date,
  CASE WHEN i = 30 THEN TIME '23:59:59.999999' WHEN i % 11 = 6 THEN NULL
       ELSE TIME '00:00:00' + INTERVAL (i * 864000013) MICROSECOND END AS c_time,
  CASE WHEN i = 31 THEN TIMESTAMP '2024-02-29 12:34:56.789012' WHEN i % 11 = 7 THEN NULL
       ELSE TIMESTAMP '1960-01-01' + INTERVAL (i * 31536000123457) MICROSECOND END AS c_timestamp,
  CASE WHEN i % 11 = 8 THEN NULL
       ELSE (TIMESTAMP '1960-01-01' + INTERVAL (i * 31536001) SECOND)::TIMESTAMP_S END
    AS c_timestamp_s,
  CASE WHEN i % 11 = 9 THEN NULL
       ELSE (TIMESTAMP '1960-01-01' + INTERVAL (i * 31536000123) MILLISECOND)::TIMESTAMP_MS END
    AS c_timestamp_ms,
  CASE WHEN i = 32 THEN '2024-02-29 12:34:56.123456789'::TIMESTAMP_NS WHEN i % 11 = 10 THEN NULL
       ELSE ('1960-01-01'::TIMESTAMP_NS + INTERVAL (i * 31536000123457) MICROSECOND)
         ::TIMESTAMP_NS END
    AS c_timestamp_ns,
  CASE WHEN i = 33 THEN TIMESTAMPTZ '2024-02-29 12:34:56.789012+00' WHEN i % 11 = 0 THEN NULL
       ELSE TIMESTAMPTZ '1965-06-01 00:00:00+00' + INTERVAL (i * 25536000654321) MICROSECOND END
    AS c_timestamptz,
  CASE WHEN i = 34 THEN '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'::UUID WHEN i % 7 = 1 THEN NULL
       ELSE md5(i::VARCHAR)::UUID END AS c_uuid,
  CASE WHEN i % 7 = 2 THEN NULL ELSE ('{"i":' || i || ',"s":"v' || i || '"}')::JSON END AS c_json
FROM range(120) t(i)`;

const codecQuery = `
SELECT
  i::BIGINT AS id,
  CASE WHEN i % 9 = 4 THEN NULL ELSE 'name-' || (i % 37) END AS name,
  CASE WHEN i % 10 = 3 THEN NULL ELSE i * 0.5 - 7.25 END::DOUBLE AS score,
  CASE WHEN i % 8 = 5 THEN NULL ELSE i % 2 = 1 END AS flag,
  CASE WHEN i % 12 = 7 THEN NULL
       ELSE ((i * 1234567 % 100000000)::DECIMAL(10,0) * 0.01)::DECIMAL(10,2) END AS amount,
  CASE WHEN i % 11 = 2 THEN NULL WHEN i % 11 = 3 THEN []::VARCHAR[]
       ELSE [('t' || (i % 5)), NULL, ('u' || i)][1:(i % 3) + 1] END AS tags,
  TIMESTAMP '2020-01-01' + INTERVAL (i * 3600000001) MICROSECOND AS ts
FROM range(300) t(i)`;

const listsQuery = `
SELECT
  i AS id,
  CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN []::INTEGER[] WHEN 2 THEN [NULL]::INTEGER[]
       WHEN 3 THEN [i, NULL, -i] ELSE range(i % 5)::INTEGER[] END AS ints,
  CASE i % 5 WHEN 0 THEN ['a', 'bb'] WHEN 1 THEN NULL WHEN 2 THEN []::VARCHAR[]
       WHEN 3 THEN [NULL, '', 'ccc' || i] ELSE ['x' || i] END AS strs,
  CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN []::BIGINT[][] WHEN 2 THEN [NULL]::BIGINT[][]
       WHEN 3 THEN [[]]::BIGINT[][] WHEN 4 THEN [[NULL]]::BIGINT[][]
       WHEN 5 THEN [[i, i + 1], NULL, [], [i * 2]] ELSE [[i], [NULL, i]] END AS nested,
  CASE WHEN i % 4 = 0 THEN NULL ELSE [i * 1.5, i * -0.25]::DOUBLE[] END AS dbls,
  [(i::DECIMAL(18,0) * 0.125)::DECIMAL(18,3), NULL] AS decs
FROM range(60) t(i)`;

const fieldIdsQuery = `
SELECT i::BIGINT AS id, 'v' || i AS name, [i, i + 1] AS tags
FROM range(20) t(i)`;

// DuckDB cuts row groups at multiples of 2048 rows.
const rowGroupsQuery = `
SELECT
  i::INTEGER AS id,
  'k' || (i % 50) AS key,
  CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 END::INTEGER AS small
FROM range(4200) t(i)`;

const fixtures = [
  { group: 'types', name: 'types_v1', query: typesQuery, options: 'COMPRESSION uncompressed' },
  {
    group: 'types',
    name: 'types_v2',
    query: typesQuery,
    options: 'COMPRESSION zstd, PARQUET_VERSION V2',
  },
  { group: 'lists', name: 'lists_v1', query: listsQuery, options: 'COMPRESSION snappy' },
  {
    group: 'lists',
    name: 'lists_v2',
    query: listsQuery,
    options: 'COMPRESSION zstd, PARQUET_VERSION V2',
  },
  {
    group: 'field_ids',
    name: 'field_ids',
    query: fieldIdsQuery,
    options: 'FIELD_IDS {id: 10, name: 11, tags: {__duckdb_field_id: 12, element: 13}}',
  },
  {
    group: 'row_groups',
    name: 'row_groups_v1',
    query: rowGroupsQuery,
    options: 'ROW_GROUP_SIZE 2048',
  },
  {
    group: 'row_groups',
    name: 'row_groups_v2',
    query: rowGroupsQuery,
    options: 'ROW_GROUP_SIZE 2048, PARQUET_VERSION V2, COMPRESSION gzip',
  },
];
for (const codec of ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw', 'brotli']) {
  for (const version of ['V1', 'V2']) {
    fixtures.push({
      group: 'codec',
      name: `codec_${codec}_${version.toLowerCase()}`,
      query: codecQuery,
      options: `COMPRESSION ${codec}, PARQUET_VERSION ${version}`,
    });
  }
}

let total = 0;
const expectations = new Map();
for (const f of fixtures) {
  const path = join(outDir, `${f.name}.parquet`);
  await c.run(`COPY (${f.query} ORDER BY id) TO '${path}' (FORMAT parquet, ${f.options})`);
  const r = await c.runAndReadAll(`SELECT * FROM '${path}'`);
  const names = r.columnNames();
  const types = Object.fromEntries(names.map((n, i) => [n, r.columnTypes()[i].toString()]));
  const text = JSON.stringify({ types, columns: r.getColumnsObjectJson() }) + '\n';
  if (!expectations.has(f.group)) {
    expectations.set(f.group, text);
    writeFileSync(join(outDir, `${f.group}.json`), text);
    total += text.length;
  } else if (expectations.get(f.group) !== text) {
    throw new Error(`${f.name} renders differently from the rest of group ${f.group}`);
  }
  const size = statSync(path).size;
  total += size;
  console.log(`${f.name}.parquet ${size} bytes`);
}
console.log(`total ${total} bytes`);
