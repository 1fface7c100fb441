// DuckDB as the independent judge of tarn's Parquet: helpers shared by the interop tests.
//
// compareWithJson(parquetFile, ndjsonFile, columns) checks, value by value and in row order, that
// what DuckDB reads from a Parquet file equals the values in an NDJSON file rendered in tarn's
// `parquet cat --json` form (written by tarn, or expected by a test). `columns` maps each column
// name to the DuckDB type the values must have ('IPV4': a UINTEGER rendered by tarn as a dotted quad).
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

let instance;
export async function connect() {
  if (!instance) instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  return instance.connect();
}

export async function query(sql) {
  const c = await connect();
  const r = await c.runAndReadAll(sql);
  return r.getRowObjectsJson();
}

export function quote(s) {
  return "'" + String(s).replaceAll("'", "''") + "'";
}

export function ident(s) {
  return '"' + String(s).replaceAll('"', '""') + '"';
}

// The SQL expression turning a JSON value `j` (tarn's rendering) into a value of DuckDB type t.
function fromTarnJson(j, t) {
  const text = `json_extract_string(${j}, '$')`;
  if (t.endsWith('[]')) return `CAST(${j} AS ${t})`;
  if (t === 'BLOB') return `from_base64(${text})`;
  if (t === 'JSON') return `json(${text})`;
  if (t === 'IPV4') {
    // tarn renders IPV4 as a dotted quad; Parquet (and so DuckDB) holds it as UINTEGER.
    const part = (k) => `split_part(${text}, '.', ${k})::UBIGINT`;
    return `(${part(1)} * 16777216 + ${part(2)} * 65536 + ${part(3)} * 256 + ${part(4)})::UINTEGER`;
  }
  return `CAST(${text} AS ${t})`;
}

// DuckDB's value normalised for comparison (JSON text re-serialised so spacing does not count).
function fromParquet(col, t) {
  if (t === 'JSON') return `json(${col}::VARCHAR)`;
  return col;
}

// Returns {rows, mismatches: [{column, row, parquet, json}]}, at most `limit` mismatches.
export async function compareWithJson(parquetFile, ndjsonFile, columns, limit = 20) {
  const names = Object.keys(columns);
  const jsonCols = names.map((n) => `${quote(n)}: 'JSON'`).join(', ');
  const p = `(SELECT row_number() OVER () AS rn, * FROM read_parquet(${quote(parquetFile)}))`;
  const j = `(SELECT row_number() OVER () AS rn, * FROM read_json(${quote(ndjsonFile)},
              format='newline_delimited', columns={${jsonCols}}))`;
  const counts = await query(`SELECT (SELECT count(*) FROM ${p}) AS p, (SELECT count(*) FROM ${j}) AS j`);
  const mismatches = [];
  if (counts[0].p !== counts[0].j) {
    mismatches.push({ column: '*', row: null, parquet: `${counts[0].p} rows`, json: `${counts[0].j} rows` });
    return { rows: Number(counts[0].p), mismatches };
  }
  for (const n of names) {
    const t = columns[n];
    const a = fromParquet(`p.${ident(n)}`, t);
    const b = fromTarnJson(`j.${ident(n)}`, t);
    const rows = await query(`SELECT p.rn AS row, CAST(${a} AS VARCHAR) AS parquet,
        CAST(j.${ident(n)} AS VARCHAR) AS json
      FROM ${p} p JOIN ${j} j USING (rn)
      WHERE (${a}) IS DISTINCT FROM (${b}) ORDER BY p.rn LIMIT ${limit}`);
    for (const r of rows) mismatches.push({ column: n, ...r });
  }
  return { rows: Number(counts[0].p), mismatches };
}

// A value of tarn's `parquet cat --json` or of DuckDB's JSON rendering (getRowObjectsJson, which
// gives STRUCT as an object and MAP as an array of {key, value} like tarn) in one form: scalars
// as their text (DuckDB gives BIGINT and DECIMAL as strings, tarn integers as numbers) and
// timestamps with a space before the time (tarn writes a 'T').
export function canonicalJson(v) {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(canonicalJson);
  if (typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonicalJson(x)]));
  }
  if (typeof v === 'string' && /^-?\d{4,}-\d\d-\d\dT\d\d:/.test(v)) return v.replace('T', ' ');
  return String(v);
}

// Rows of a Parquet file as DuckDB reads them, in file order, in canonicalJson form.
export async function duckDbRows(parquetFile, orderBy = '') {
  const rows = await query(`SELECT * FROM read_parquet(${quote(parquetFile)})
                            ${orderBy ? `ORDER BY ${orderBy}` : ''}`);
  return rows.map(canonicalJson);
}

// Compares tarn's `parquet cat --json` of a file with DuckDB's read of it, value by value and
// in row order (nested values included): {rows, mismatches: [{row, column, tarn, duckdb}]}.
export async function compareNestedWithDuckDb(parquetFile, limit = 20) {
  const duck = await duckDbRows(parquetFile);
  const mine = tarn(['parquet', 'cat', parquetFile, '--json']).split('\n').filter(Boolean)
    .map((l) => canonicalJson(JSON.parse(l)));
  const mismatches = [];
  if (duck.length !== mine.length) {
    mismatches.push({ row: null, column: '*', tarn: `${mine.length} rows`, duckdb: `${duck.length} rows` });
  }
  for (let r = 0; r < Math.min(duck.length, mine.length) && mismatches.length < limit; ++r) {
    for (const col of new Set([...Object.keys(duck[r]), ...Object.keys(mine[r])])) {
      const a = JSON.stringify(mine[r][col]);
      const b = JSON.stringify(duck[r][col]);
      if (a !== b) mismatches.push({ row: r, column: col, tarn: a, duckdb: b });
    }
  }
  return { rows: duck.length, mismatches };
}

// DuckDB's view of a Parquet file's columns: {name: type}.
export async function describe(parquetFile) {
  const rows = await query(`DESCRIBE SELECT * FROM read_parquet(${quote(parquetFile)})`);
  return Object.fromEntries(rows.map((r) => [r.column_name, r.column_type]));
}

// Runs the tarn executable; returns stdout. Throws with stderr on a non-zero exit.
export function tarn(args, opts = {}) {
  const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
  return execFileSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...opts });
}

export function scratch(name) {
  const base = process.env.TARN_TEST_TMP || fs.mkdtempSync('/tmp/tarn-interop-');
  const dir = path.join(base, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
