// DuckDB's side of the Parquet benchmarks (bench/README.md), run by bench/run.sh beside
// build/bench/parquet_bench. Prints one JSON object per line on stdout; progress on stderr.
//
//   node bench/duckdb_bench.mjs [--rows N] [--runs N] [--dir DIR] [--threads N]
//
// Builds the same 8-column table as parquet_bench.cc (same formulas, same values) in an
// in-memory DuckDB table, times `COPY t TO DIR/duckdb.parquet (FORMAT parquet, COMPRESSION zstd)`,
// then times reading every column of DIR/duckdb.parquet and, if present, DIR/tarn.parquet
// (written by parquet_bench just before), and checks that tarn's file holds exactly the table's
// rows. DuckDB comes from tests/interop's
// node_modules (installed by scripts/bootstrap.sh), whatever the working directory.
import { createRequire } from 'node:module';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tests', 'interop', 'package.json'));
const { DuckDBInstance, version } =
    await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const args = { rows: 1000000, runs: 5, dir: '/tmp', threads: 2 };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  const value = process.argv[i + 1];
  if (!(key in args) || value === undefined) {
    console.error(`duckdb_bench: unknown option ${process.argv[i]}`);
    process.exit(2);
  }
  args[key] = key === 'dir' ? value : Number(value);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const now = () => Number(process.hrtime.bigint()) / 1e9;
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const emit = (o) => process.stdout.write(JSON.stringify({ engine: 'duckdb', ...o }) + '\n');

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`SET threads = ${args.threads}`);

// The twin of MakeTable() in parquet_bench.cc: change both together.
let start = now();
await c.run(`
  CREATE TABLE t AS SELECT
    (i * 2654435761) % 1000000007 AS c_int64,
    sqrt(i::DOUBLE) * 1.5::DOUBLE AS c_double,
    'customer_' || ((i * 7) % 1000003)::VARCHAR || repeat('x', (i % 5)::INTEGER) AS c_varchar,
    make_timestamp(1704067200000000 + i * 1000003) AS c_timestamp,
    DATE '2000-01-01' + (i % 10000)::INTEGER AS c_date,
    (((i * 982451653) % 10000000000 - 5000000000)::DECIMAL(12,0) * 0.01)::DECIMAL(10,2)
      AS c_decimal,
    i % 3 = 0 AS c_bool,
    printf('%08x%08x%08x%08x',
           (i * 2654435761 + 12345) % 4294967296, (i * 2246822519 + 67890) % 4294967296,
           (i * 3266489917 + 13579) % 4294967296, (i * 668265263 + 24680) % 4294967296)::UUID
      AS c_uuid
  FROM range(${args.rows}) r(i)`);
console.error(`generated ${args.rows} rows in ${(now() - start).toFixed(2)} s`);

const duckFile = join(args.dir, 'duckdb.parquet');
const times = [];
for (let r = 0; r < args.runs; r++) {
  start = now();
  await c.run(`COPY t TO ${sqlString(duckFile)} (FORMAT parquet, COMPRESSION zstd)`);
  times.push(now() - start);
  console.error(`duckdb write run ${r + 1}: ${times.at(-1).toFixed(3)} s`);
}
emit({
  bench: 'write', target: 'file', codec: 'zstd', rows: args.rows, columns: 8, runs: args.runs,
  median_s: median(times), min_s: Math.min(...times), bytes: statSync(duckFile).size,
  file: duckFile, version: version(), threads: args.threads,
});

// Reading every column, two ways (bench/README.md discusses both):
//   read         `SELECT *` materialised: runAndReadAll holds the whole decoded result inside
//                DuckDB (its chunks are fetched into JavaScript handles; no value is converted),
//                as tarn's ReadAll holds a RecordBatch. The headline comparison.
//   read_stream  `SELECT *` streamed: every chunk is decoded and fetched, then dropped. DuckDB's
//                cheapest way to decode every value, shown for reference.
async function benchRead(path, bench) {
  const ts = [];
  let rows = 0;
  for (let r = 0; r < args.runs; r++) {
    const sql = `SELECT * FROM read_parquet(${sqlString(path)})`;
    start = now();
    if (bench === 'read') {
      rows = (await c.runAndReadAll(sql)).currentRowCount;
    } else {
      const result = await c.stream(sql);
      rows = 0;
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        rows += chunk.rowCount;
      }
    }
    ts.push(now() - start);
    console.error(`duckdb ${bench} ${path} run ${r + 1}: ${ts.at(-1).toFixed(3)} s`);
  }
  emit({ bench, file: path, rows, runs: args.runs, median_s: median(ts), min_s: Math.min(...ts) });
}

const tarnFile = join(args.dir, 'tarn.parquet');
const files = existsSync(tarnFile) ? [duckFile, tarnFile] : [duckFile];
for (const bench of ['read', 'read_stream']) {
  for (const f of files) await benchRead(f, bench);
}
if (existsSync(tarnFile)) {
  // Same rows in tarn's file as in the table, compared by DuckDB (not timed).
  const check = await c.runAndReadAll(`
    SELECT (SELECT count(*) FROM read_parquet(${sqlString(tarnFile)})) AS rows,
           (SELECT count(*) FROM (SELECT * FROM read_parquet(${sqlString(tarnFile)})
                                   EXCEPT ALL SELECT * FROM t)) AS extra,
           (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL
                                   SELECT * FROM read_parquet(${sqlString(tarnFile)}))) AS missing`);
  const [rows, extra, missing] = check.getRows()[0].map(Number);
  emit({ bench: 'check', file: tarnFile, rows, extra_rows: extra, missing_rows: missing,
         equal: rows === args.rows && extra === 0 && missing === 0 });
}
