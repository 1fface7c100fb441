// Files from writers other than tarn and DuckDB, generated at test time (no third-party data
// files are committed): arrow-rs compiled to WebAssembly (parquet-wasm, tables built with
// apache-arrow) and hyparquet-writer (JavaScript). tarn must read each value for value the way
// DuckDB reads the same file (duckdb_compare.mjs), including what these writers do differently:
//   - arrow-rs writes Arrow's Null type as INT32 annotated with logical type UNKNOWN; a
//     non-nullable one as a REQUIRED column of zeros. Every value is null (tarn read 0).
//   - a row group without rows whose column chunks sit at offset 0 (tarn refused the file).
//   - optional footer fields tarn does not use with another wire type than parquet.thrift's
//     (bloom_filter_length as an i64; tarn refused the footer).
//   - TIME(NANOS) (Arrow's Time64<NANOSECOND>): read as TIME[ns] (tarn cut it to microseconds).
//   - nested columns: Arrow's Struct, List<Struct>, Struct<List> and Map (its key_value group is
//     named "entries", its list elements "item"), nulls at every level.
//   - arrow-rs writes a page index by default: tarn reads through it (`parquet cat --where`
//     skips pages) and returns DuckDB's rows.
// INT96 timestamps past TIMESTAMP[ns] are covered by src/parquet/reader_test.cc (neither writer
// writes INT96).
import { test, describe as suite } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import * as parquetWasm from 'parquet-wasm';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import {
  compareNestedWithDuckDb, compareWithJson, describe, query, quote, scratch, tarn,
} from './duckdb_compare.mjs';

const ROWS = 2500;

function assertNoMismatch(result, what) {
  assert.deepEqual(result.mismatches, [], `${what}: values differ (first mismatches shown)`);
}

function tarnSchema(file) {
  const schema = JSON.parse(tarn(['parquet', 'schema', file, '--json']));
  return Object.fromEntries(schema.columns.map((c) => [c.name, c.type]));
}

// Reads `file` with tarn (`parquet cat --json`) and compares every value with DuckDB's read.
async function sameAsDuckDb(file, duckTypes, rows, what) {
  const got = file.replace(/\.parquet$/, '.ndjson');
  fs.writeFileSync(got, tarn(['parquet', 'cat', file, '--json']));
  const r = await compareWithJson(file, got, duckTypes);
  assert.equal(r.rows, rows, `${what}: rows`);
  assertNoMismatch(r, what);
}

// ---- arrow-rs (parquet-wasm) ----------------------------------------------------------------

function arrowTable(n) {
  const pick = (f) => Array.from({ length: n }, (_, i) => f(i));
  const col = (values, type) => arrow.vectorFromArray(values, type);
  const nullable = (f) => pick((i) => (i % 7 === 3 ? null : f(i)));
  const columns = {
    i8: col(nullable((i) => (i % 256) - 128), new arrow.Int8()),
    i16: col(pick((i) => ((i * 37) % 65536) - 32768), new arrow.Int16()),
    i32: col(nullable((i) => i * 7919 - 1000000), new arrow.Int32()),
    i64: col(pick((i) => BigInt(i) * 1000000007n * (i % 2 ? -1n : 1n)), new arrow.Int64()),
    u8: col(pick((i) => i % 256), new arrow.Uint8()),
    u16: col(pick((i) => (i * 13) % 65536), new arrow.Uint16()),
    u32: col(pick((i) => (i * 2654435761) % 4294967296), new arrow.Uint32()),
    u64: col(pick((i) => 18446744073709551615n - BigInt(i)), new arrow.Uint64()),
    f32: col(nullable((i) => i / 8), new arrow.Float32()),
    f64: col(pick((i) => i / 3), new arrow.Float64()),
    b: col(nullable((i) => i % 3 === 0), new arrow.Bool()),
    s: col(nullable((i) => `väl${i}${'x'.repeat(i % 5)}`), new arrow.Utf8()),
    bin: col(pick((i) => Uint8Array.from([0xaa, 0, 0xff, i % 256])), new arrow.Binary()),
    d: col(pick((i) => new Date(Date.UTC(1969, 11, 25) + i * 3 * 86400000)), new arrow.DateDay()),
    ts_ms: col(pick((i) => Date.UTC(1999, 11, 31) + i * 123456789), new arrow.TimestampMillisecond()),
    // apache-arrow takes timestamps as epoch milliseconds (fractions for finer units).
    ts_us: col(pick((i) => Date.UTC(2001, 1, 3) + i * 1000.003), new arrow.TimestampMicrosecond()),
    ts_tz: col(pick((i) => Date.UTC(2024, 2, 10) + i * 999.999),
      new arrow.TimestampMicrosecond('UTC')),
    // TIME(NANOS): every digit counts (tarn cut it to microseconds).
    t_ns: col(nullable((i) => (i === 0 ? 86399999999999n
      : (BigInt(i) * 34559999999917n) % 86400000000000n)), new arrow.TimeNanosecond()),
    li: col(pick((i) => (i % 5 === 1 ? null : i % 5 === 0 ? [] : [i, i % 3 ? null : i + 1, i * 2])),
      new arrow.List(new arrow.Field('item', new arrow.Int32(), true))),
  };
  const fields = Object.entries(columns).map(([name, v]) => new arrow.Field(name, v.type, true));
  const data = Object.fromEntries(Object.entries(columns).map(([name, v]) => [name, v.data[0]]));
  // Arrow's Null type, nullable and not: arrow-rs writes both as INT32 with logical type UNKNOWN.
  fields.push(new arrow.Field('nothing', new arrow.Null(), true));
  data.nothing = arrow.makeData({ type: new arrow.Null(), length: n });
  fields.push(new arrow.Field('nothing_required', new arrow.Null(), false));
  data.nothing_required = arrow.makeData({ type: new arrow.Null(), length: n });
  return new arrow.Table(new arrow.Schema(fields), data);
}

const ARROW_DUCK_TYPES = {
  i8: 'TINYINT', i16: 'SMALLINT', i32: 'INTEGER', i64: 'BIGINT', u8: 'UTINYINT',
  u16: 'USMALLINT', u32: 'UINTEGER', u64: 'UBIGINT', f32: 'FLOAT', f64: 'DOUBLE', b: 'BOOLEAN',
  s: 'VARCHAR', bin: 'BLOB', d: 'DATE', ts_ms: 'TIMESTAMP', ts_us: 'TIMESTAMP',
  ts_tz: 'TIMESTAMP WITH TIME ZONE', t_ns: 'TIME_NS', li: 'INTEGER[]', nothing: 'INTEGER',
  nothing_required: 'INTEGER',
};

const ARROW_TARN_TYPES = {
  i8: 'INT8', i16: 'INT16', i32: 'INT32', i64: 'INT64', u8: 'UINT8', u16: 'UINT16',
  u32: 'UINT32', u64: 'UINT64', f32: 'FLOAT32', f64: 'FLOAT64', b: 'BOOLEAN', s: 'VARCHAR',
  bin: 'BLOB', d: 'DATE', ts_ms: 'TIMESTAMP[ms]', ts_us: 'TIMESTAMP[us]',
  ts_tz: 'TIMESTAMPTZ[us]', t_ns: 'TIME[ns]', li: 'ARRAY<INT32>', nothing: 'INT32',
  nothing_required: 'INT32',
};

function writeWithArrowRs(file, table, configure = (b) => b) {
  const props = configure(new parquetWasm.WriterPropertiesBuilder()).build();
  const wasmTable = parquetWasm.Table.fromIPCStream(arrow.tableToIPC(table, 'stream'));
  fs.writeFileSync(file, parquetWasm.writeParquet(wasmTable, props));
}

suite('tarn reads what arrow-rs (parquet-wasm) writes', () => {
  const dir = scratch('arrow-rs-writes');
  const table = arrowTable(ROWS);
  const C = parquetWasm.Compression;
  const variants = [
    { name: 'v1-snappy', configure: (b) => b.setCompression(C.SNAPPY) },
    { name: 'v2-zstd', configure: (b) => b.setCompression(C.ZSTD).setWriterVersion(parquetWasm.WriterVersion.V2) },
    { name: 'v1-uncompressed-small-row-groups',
      configure: (b) => b.setCompression(C.UNCOMPRESSED).setMaxRowGroupSize(700).setDictionaryEnabled(false) },
    { name: 'v2-lz4-raw-small-pages',
      configure: (b) => b.setCompression(C.LZ4_RAW).setWriterVersion(parquetWasm.WriterVersion.V2)
        .setDataPageSizeLimit(1024) },
    { name: 'gzip', configure: (b) => b.setCompression(C.GZIP) },
    { name: 'brotli', configure: (b) => b.setCompression(C.BROTLI) },
  ];
  for (const v of variants) {
    test(v.name, async () => {
      const file = path.join(dir, `${v.name}.parquet`);
      writeWithArrowRs(file, table, v.configure);
      assert.deepEqual(await describe(file), ARROW_DUCK_TYPES);
      assert.deepEqual(tarnSchema(file), ARROW_TARN_TYPES);
      await sameAsDuckDb(file, ARROW_DUCK_TYPES, ROWS, v.name);
    });
  }

  test('TIME(NANOS) reads as TIME[ns], to the nanosecond', () => {
    const file = path.join(dir, 'v1-snappy.parquet');
    const first = JSON.parse(tarn(['parquet', 'cat', file, '--json', '--columns', 't_ns', '--limit', '1']));
    assert.deepEqual(first, { t_ns: '23:59:59.999999999' });
    assert.match(tarn(['parquet', 'cat', file, '--columns', 't_ns', '--limit', '1']), /23:59:59\.999999999/);
  });

  test("Arrow's Null type reads as nulls (logical type UNKNOWN)", async () => {
    const file = path.join(dir, 'v1-snappy.parquet');
    const schema = JSON.parse(tarn(['parquet', 'schema', file, '--json']));
    const cols = Object.fromEntries(schema.columns.map((c) => [c.name, c]));
    for (const name of ['nothing', 'nothing_required']) {
      assert.equal(cols[name].logical, 'UNKNOWN', name);
      assert.equal(cols[name].physical, 'INT32', name);
      assert.equal(cols[name].nullable, true, name);
    }
    const rows = tarn(['parquet', 'cat', file, '--json', '--columns', 'nothing,nothing_required'])
      .trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(rows.length, ROWS);
    for (const r of rows) assert.deepEqual(r, { nothing: null, nothing_required: null });
    // DuckDB reads both as NULL too (the variants above compare every value); only its
    // count() of the REQUIRED one trusts the repetition and counts every row.
    const duck = await query(`SELECT DISTINCT nothing, nothing_required FROM read_parquet(${quote(file)})`);
    assert.deepEqual(duck, [{ nothing: null, nothing_required: null }]);
  });

  test('nested columns: structs, lists of structs, maps, nulls at every level', async () => {
    const n = ROWS;
    const pick = (f) => Array.from({ length: n }, (_, i) => f(i));
    const F = (name, type, nullable = true) => new arrow.Field(name, type, nullable);
    const point = new arrow.Struct([F('a', new arrow.Int32()), F('b', new arrow.Utf8()),
      F('tags', new arrow.List(F('item', new arrow.Utf8())))]);
    const entries = new arrow.Struct([F('key', new arrow.Utf8(), false),
      F('value', new arrow.List(F('item', new arrow.Int64())))]);
    const columns = {
      s: arrow.vectorFromArray(pick((i) => (i % 4 === 1 ? null
        : { a: i % 3 ? i : null, b: `v${i}`, tags: i % 5 === 0 ? null : i % 5 === 1 ? [] : ['x', null] })),
      point),
      ls: arrow.vectorFromArray(pick((i) => (i % 5 === 1 ? null : i % 5 === 2 ? []
        : [{ a: i, b: null, tags: [`t${i}`] }, null])), new arrow.List(F('item', point))),
      m: arrow.vectorFromArray(pick((i) => (i % 3 === 1 ? null : i % 3 === 2 ? new Map()
        : new Map([[`k${i}`, [BigInt(i), null]], ['z', null]]))),
      new arrow.Map_(F('entries', entries, false))),
    };
    const table = new arrow.Table(columns);
    for (const [name, configure] of [
      ['nested-v1', (b) => b.setCompression(C.SNAPPY)],
      ['nested-v2-small-pages', (b) => b.setCompression(C.ZSTD)
        .setWriterVersion(parquetWasm.WriterVersion.V2).setDataPageSizeLimit(1024)
        .setMaxRowGroupSize(900)],
    ]) {
      const file = path.join(dir, `${name}.parquet`);
      writeWithArrowRs(file, table, configure);
      assert.deepEqual(tarnSchema(file), {
        s: 'STRUCT<a: INT32, b: VARCHAR, tags: ARRAY<VARCHAR>>',
        ls: 'ARRAY<STRUCT<a: INT32, b: VARCHAR, tags: ARRAY<VARCHAR>>>',
        m: 'MAP<VARCHAR, ARRAY<INT64>>',
      });
      const r = await compareNestedWithDuckDb(file);
      assert.equal(r.rows, n, name);
      assert.deepEqual(r.mismatches, [], `${name}: values differ (first mismatches shown)`);
    }
  });

  // arrow-rs writes an empty dictionary page for a Null column; gzip-compressed, its empty
  // output once met zlib's refusal of a null buffer (read as malformed, depending on memory).
  test('Null columns alone, every codec (empty compressed pages)', async () => {
    const nulls = new arrow.Table(
      new arrow.Schema([new arrow.Field('nothing', new arrow.Null(), true)]),
      { nothing: arrow.makeData({ type: new arrow.Null(), length: 100 }) });
    for (const codec of ['GZIP', 'SNAPPY', 'ZSTD', 'BROTLI', 'LZ4_RAW', 'UNCOMPRESSED']) {
      const file = path.join(dir, `nulls-${codec}.parquet`);
      writeWithArrowRs(file, nulls, (b) => b.setCompression(C[codec]));
      const rows = tarn(['parquet', 'cat', file, '--json']).trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(rows.length, 100, codec);
      for (const r of rows) assert.deepEqual(r, { nothing: null }, codec);
    }
  });
});

// ---- hyparquet-writer -----------------------------------------------------------------------

function hyparquetColumns(n) {
  const pick = (f) => Array.from({ length: n }, (_, i) => f(i));
  return [
    { name: 'id', data: pick((i) => BigInt(i) * 3n - 5000n), type: 'INT64', nullable: false },
    { name: 'n32', data: pick((i) => (i % 9 === 2 ? null : i * 17 - 20000)), type: 'INT32' },
    { name: 'x', data: pick((i) => (i % 11 === 4 ? null : i / 4)), type: 'DOUBLE' },
    { name: 'f', data: pick((i) => i / 2), type: 'FLOAT' },
    { name: 'ok', data: pick((i) => (i % 5 === 0 ? null : i % 2 === 0)), type: 'BOOLEAN' },
    { name: 'name', data: pick((i) => (i % 6 === 1 ? null : `n-${i % 97}-ü`)), type: 'STRING' },
    { name: 'at', data: pick((i) => new Date(Date.UTC(2020, 0, 1) + i * 3600123)), type: 'TIMESTAMP' },
    { name: 'doc', data: pick((i) => ({ k: i, tags: ['a', i % 2 ? 'b' : 'c'] })), type: 'JSON' },
  ];
}

const HYPARQUET_DUCK_TYPES = {
  id: 'BIGINT', n32: 'INTEGER', x: 'DOUBLE', f: 'FLOAT', ok: 'BOOLEAN', name: 'VARCHAR',
  at: 'TIMESTAMP', doc: 'JSON',
};

// Writes with hyparquet-writer's ParquetWriter; `tamper(writer)` may change its row groups
// before the footer is written.
function writeWithHyparquet(file, columns, { rowGroupSize = 1000, tamper = () => {}, ...opts } = {}) {
  const byteWriter = new ByteWriter();
  const pw = new ParquetWriter({ writer: byteWriter, schema: schemaOf(columns), ...opts });
  pw.write({ columnData: columns, rowGroupSize });
  tamper(pw);
  pw.finish();
  fs.writeFileSync(file, new Uint8Array(byteWriter.getBuffer()));
}

function schemaOf(columns) {
  const types = {
    INT64: { type: 'INT64' }, INT32: { type: 'INT32' }, DOUBLE: { type: 'DOUBLE' },
    FLOAT: { type: 'FLOAT' }, BOOLEAN: { type: 'BOOLEAN' },
    STRING: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
    TIMESTAMP: { type: 'INT64', converted_type: 'TIMESTAMP_MILLIS' },
    JSON: { type: 'BYTE_ARRAY', converted_type: 'JSON' },
  };
  return [{ name: 'root', num_children: columns.length },
    ...columns.map((c) => ({ name: c.name, ...types[c.type],
      repetition_type: c.nullable === false ? 'REQUIRED' : 'OPTIONAL' }))];
}

// A row group of no rows whose column chunks have no pages and offsets 0, as some writers
// emit it (i64 fields as BigInt: hyparquet-writer picks the Thrift type from the JS type).
function appendEmptyRowGroup(pw) {
  const columns = pw.row_groups[0].columns.map((c) => ({
    file_offset: 0n,
    meta_data: {
      type: c.meta_data.type, encodings: ['PLAIN', 'RLE'], path_in_schema: c.meta_data.path_in_schema,
      codec: 'UNCOMPRESSED', num_values: 0n, total_uncompressed_size: 0n,
      total_compressed_size: 0n, data_page_offset: 0n,
    },
  }));
  pw.row_groups.push({ columns, total_byte_size: 0n, num_rows: 0n });
}

// Makes the bloom_filter_length (and offset_index_length) that finish() writes an i64 instead
// of parquet.thrift's i32: a BigInt is written as an i64.
function widenIndexLengths(pw) {
  const asBigInt = (obj, key) => {
    let v;
    Object.defineProperty(obj, key, {
      enumerable: true, configurable: true,
      get: () => v,
      set: (x) => { v = x === undefined ? undefined : BigInt(x); },
    });
  };
  for (const rg of pw.row_groups) {
    for (const c of rg.columns) {
      asBigInt(c.meta_data, 'bloom_filter_length');
      asBigInt(c, 'offset_index_length');
    }
  }
}

suite('tarn reads what hyparquet-writer writes', () => {
  const dir = scratch('hyparquet-writes');
  const columns = hyparquetColumns(ROWS);

  for (const codec of ['SNAPPY', 'UNCOMPRESSED']) {
    test(`plain file (${codec})`, async () => {
      const file = path.join(dir, `plain-${codec}.parquet`);
      writeWithHyparquet(file, columns, { codec, rowGroupSize: [1000, 700] });
      assert.deepEqual(await describe(file), HYPARQUET_DUCK_TYPES);
      await sameAsDuckDb(file, HYPARQUET_DUCK_TYPES, ROWS, codec);
    });
  }

  test('a row group without rows at offset 0 (schema, meta and cat)', async () => {
    const file = path.join(dir, 'empty-row-group.parquet');
    writeWithHyparquet(file, columns, { rowGroupSize: ROWS, tamper: appendEmptyRowGroup });
    // DuckDB sees the empty row group, its chunks at offset 0, and reads the file.
    const rgs = await query(`SELECT DISTINCT row_group_id::INTEGER AS rg,
                               row_group_num_rows::INTEGER AS n, data_page_offset::INTEGER AS at
                             FROM parquet_metadata(${quote(file)}) WHERE row_group_id = 1`);
    assert.deepEqual(rgs, [{ rg: 1, n: 0, at: 0 }]);
    assert.deepEqual(Object.keys(tarnSchema(file)), columns.map((c) => c.name));
    const meta = JSON.parse(tarn(['parquet', 'meta', file, '--json']));
    assert.equal(meta.num_row_groups, 2);
    assert.equal(meta.row_groups[1].num_rows, 0);
    assert.equal(meta.row_groups[1].columns[0].data_page_offset, 0);
    await sameAsDuckDb(file, HYPARQUET_DUCK_TYPES, ROWS, 'empty row group');
  });

  test('footer fields tarn does not use, with another wire type', async () => {
    const file = path.join(dir, 'i64-lengths.parquet');
    const withBloom = columns.map((c) => (c.name === 'n32' || c.name === 'name' ? { ...c, bloomFilter: true } : c));
    writeWithHyparquet(file, withBloom, { rowGroupSize: [1000, 700], tamper: widenIndexLengths });
    // DuckDB, too, skips the mistyped length (and reads the file).
    const [blooms] = await query(`SELECT count(bloom_filter_offset) AS offsets,
                                    count(bloom_filter_length) AS lengths
                                  FROM parquet_metadata(${quote(file)})`);
    assert.ok(Number(blooms.offsets) > 0, 'the file has bloom filters');
    assert.equal(Number(blooms.lengths), 0);
    const meta = JSON.parse(tarn(['parquet', 'meta', file, '--json']));
    assert.equal(meta.num_rows, ROWS);
    await sameAsDuckDb(file, HYPARQUET_DUCK_TYPES, ROWS, 'i64 lengths');
  });
});

// ---- arrow-rs's page index ----------------------------------------------------------------

suite("tarn reads through arrow-rs's page index", () => {
  const dir = scratch('arrow-rs-page-index');
  const n = 60000;
  const pick = (f) => Array.from({ length: n }, (_, i) => f(i));
  const table = new arrow.Table({
    id: arrow.vectorFromArray(pick((i) => BigInt(i)), new arrow.Int64()),
    s: arrow.vectorFromArray(pick((i) => (i % 9 === 0 ? null : `s${String(i).padStart(6, '0')}`)),
      new arrow.Utf8()),
    // null for the first 25,000 rows: whole pages of nulls
    n: arrow.vectorFromArray(pick((i) => (i < 25000 ? null : i % 50)), new arrow.Int32()),
    f: arrow.vectorFromArray(pick((i) => i / 4), new arrow.Float64()),
    u: arrow.vectorFromArray(pick((i) => 18446744073709551615n - BigInt(i)), new arrow.Uint64()),
  });
  const types = { id: 'BIGINT', s: 'VARCHAR', n: 'INTEGER', f: 'DOUBLE', u: 'UBIGINT' };
  const variants = [
    { name: 'v1-small-pages', configure: (b) => b.setDataPageSizeLimit(4096).setMaxRowGroupSize(25000) },
    { name: 'v2-zstd', configure: (b) => b.setCompression(parquetWasm.Compression.ZSTD)
      .setWriterVersion(parquetWasm.WriterVersion.V2).setDataPageSizeLimit(8192) },
  ];
  const lookups = [
    'id = 43210',
    "s = 's012345'",
    'n IS NULL AND id > 24000',
    'n = 7 AND id < 30000',
    'f >= 14999.5',
    'u < 18446744073709551600',
    'id IN (1, 59999)',
  ];
  for (const v of variants) {
    test(v.name, async () => {
      const file = path.join(dir, `${v.name}.parquet`);
      writeWithArrowRs(file, table, v.configure);
      const meta = JSON.parse(tarn(['parquet', 'meta', file, '--json']));
      for (const rg of meta.row_groups) {
        for (const c of rg.columns) assert.ok(c.offset_index && c.column_index, `${c.path} has a page index`);
      }
      let skipped = 0;
      for (const [k, where] of lookups.entries()) {
        const expected = path.join(dir, `${v.name}-${k}.parquet`);
        const got = path.join(dir, `${v.name}-${k}.ndjson`);
        await query(`COPY (SELECT * FROM read_parquet(${quote(file)}) WHERE ${where})
                     TO ${quote(expected)} (FORMAT parquet)`);
        const r = spawnSync(process.env.TARN_BINARY || path.resolve('../../build/tarn'),
          ['parquet', 'cat', file, '--json', '--where', where, '--stats'],
          { encoding: 'utf8', maxBuffer: 1 << 30 });
        assert.equal(r.status, 0, r.stderr);
        fs.writeFileSync(got, r.stdout);
        const cmp = await compareWithJson(expected, got, types);
        assert.ok(cmp.rows > 0, `${where}: rows`);
        assertNoMismatch(cmp, `${v.name}: ${where}`);
        const m = r.stderr.match(/data pages read (\d+), skipped (\d+)/);
        assert.ok(m, r.stderr);
        skipped += Number(m[2]);
        if (where === 'id = 43210') assert.ok(Number(m[2]) > 0, `${where}: ${r.stderr}`);
      }
      assert.ok(skipped > 0);
    });
  }
});
