// Regenerates the seed corpora in fuzz/corpus/ with DuckDB (the npm package installed in
// tests/interop by scripts/bootstrap.sh): small valid Parquet files covering the types, encodings,
// page versions and codecs the reader handles, and the footers and page headers cut out of them.
// Run: node fuzz/make_corpus.mjs   (the output is committed; CI does not run this)
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tests', 'interop', 'package.json'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const readerDir = join(here, 'corpus', 'parquet_reader');
const footerDir = join(here, 'corpus', 'parquet_footer');
for (const d of [readerDir, footerDir]) {
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true });
}

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run('SET threads=1');

// 20 rows of most scalar types, with a null every 7th row.
const scalars = `
  SELECT
    CASE WHEN i % 7 = 3 THEN NULL ELSE i::INTEGER - 5 END AS c_int,
    i * 1000000007 - 3 AS c_bigint,
    CASE WHEN i % 7 = 4 THEN NULL ELSE i / 4.0 END::DOUBLE AS c_double,
    (i * 1.5)::FLOAT AS c_float,
    CASE WHEN i % 7 = 5 THEN NULL ELSE 'str-' || i::VARCHAR END AS c_varchar,
    i % 3 = 0 AS c_bool,
    DATE '2024-02-27' + i::INTEGER AS c_date,
    TIMESTAMP '2024-01-01 00:00:00' + to_microseconds(i * 1000003) AS c_ts,
    ((i * 12345 - 50000)::DECIMAL(12,0) * 0.01)::DECIMAL(10,2) AS c_dec,
    (i * 98765432109876 - 7)::DECIMAL(30,5) AS c_dec_wide,
    ('0000000' || (i % 10)::VARCHAR || '-0000-4000-8000-00000000000' || (i % 10)::VARCHAR)::UUID AS c_uuid,
    ('\\x0' || (i % 10)::VARCHAR)::BLOB AS c_blob,
    (i::INTEGER % 100)::TINYINT AS c_tinyint,
    TIME '12:00:00' + to_seconds(i) AS c_time
  FROM range(20) t(i)`;
const lists = `
  SELECT
    i::INTEGER AS id,
    CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN [] ELSE [i, NULL, i * 2] END AS l_int,
    CASE WHEN i % 4 = 0 THEN NULL ELSE ['a' || i::VARCHAR, NULL, 'b'] END AS l_str
  FROM range(20) t(i)`;
const dict = `
  SELECT (['red', 'green', 'blue', NULL])[(i % 4) + 1] AS color, (i % 3)::BIGINT AS k
  FROM range(40) t(i)`;
// DuckDB cuts row groups at multiples of 2048 rows: 3 row groups of small dictionary pages.
const rowgroups = `SELECT (i % 5)::INTEGER AS k FROM range(5000) t(i)`;
const tiny = `SELECT i::BIGINT AS a, 'v' || (i % 3)::VARCHAR AS b FROM range(16) t(i)`;
// STRUCT, MAP, a list of structs and a map of lists, with nulls and empty containers.
const nested = `
  SELECT
    CASE WHEN i % 5 = 1 THEN NULL ELSE {'a': CASE WHEN i % 3 = 0 THEN NULL ELSE i::INTEGER END,
                                        'tags': CASE WHEN i % 4 = 0 THEN [] ELSE ['t', NULL] END} END AS s,
    CASE WHEN i % 6 = 1 THEN NULL ELSE MAP(['k' || i::VARCHAR], [[i::BIGINT, NULL]]) END AS m,
    CASE WHEN i % 7 = 1 THEN NULL ELSE [{'x': i, 'y': NULL}, NULL] END AS ls
  FROM range(20) t(i)`;

const files = [
  ['scalars_v1_plain', scalars, 'COMPRESSION uncompressed, PARQUET_VERSION V1'],
  ['scalars_v2_plain', scalars, 'COMPRESSION uncompressed, PARQUET_VERSION V2'],
  ['rowgroups_v1', rowgroups, 'COMPRESSION uncompressed, ROW_GROUP_SIZE 2048'],
  ['lists_v1', lists, 'COMPRESSION uncompressed, PARQUET_VERSION V1'],
  ['lists_v2', lists, 'COMPRESSION uncompressed, PARQUET_VERSION V2'],
  ['dict_v1', dict, 'COMPRESSION uncompressed'],
  ['dict_v2_fieldids', dict, "COMPRESSION uncompressed, PARQUET_VERSION V2, FIELD_IDS {color: 1, k: 2}"],
  ['tiny_snappy', tiny, 'COMPRESSION snappy'],
  ['tiny_zstd', tiny, 'COMPRESSION zstd'],
  ['tiny_gzip', tiny, 'COMPRESSION gzip'],
  ['tiny_lz4_raw', tiny, 'COMPRESSION lz4_raw'],
  ['tiny_brotli', tiny, 'COMPRESSION brotli'],
  ['nested_v1', nested, "COMPRESSION uncompressed, PARQUET_VERSION V1, FIELD_IDS 'auto'"],
  ['nested_v2', nested, 'COMPRESSION uncompressed, PARQUET_VERSION V2'],
];

for (const [name, query, options] of files) {
  const path = join(readerDir, `${name}.parquet`);
  await c.run(`COPY (${query}) TO '${path}' (FORMAT parquet, ${options})`);
  const bytes = readFileSync(path);
  const footerLen = bytes.readUInt32LE(bytes.length - 8);
  writeFileSync(join(footerDir, `footer_${name}`),
                bytes.subarray(bytes.length - 8 - footerLen, bytes.length - 8));
  const reader = await c.runAndReadAll(
      `SELECT DISTINCT coalesce(dictionary_page_offset, data_page_offset) AS off
       FROM parquet_metadata('${path}') ORDER BY off LIMIT 3`);
  for (const [off] of reader.getRows()) {
    const at = Number(off);
    writeFileSync(join(footerDir, `page_${name}_${at}`), bytes.subarray(at, Math.min(at + 48, bytes.length)));
  }
}

for (const d of [readerDir, footerDir]) {
  const names = readdirSync(d);
  const total = names.reduce((n, f) => n + readFileSync(join(d, f)).length, 0);
  console.log(`${d}: ${names.length} files, ${total} bytes`);
}
