// DuckDB's side of the compaction benchmark (bench/README.md, "Maintenance: compaction"), run by
// bench/compaction_run.sh beside `compaction_bench compact`. One run per process, so that the
// peak RSS is this run's: prints one JSON line on stdout, progress on stderr.
//
//   node bench/compaction_duckdb.mjs --list FILE --out OUT.parquet [--threads N]
//   node bench/compaction_duckdb.mjs --list FILE --compare F1,F2,...
//
// With --compare nothing is timed: DuckDB checks that the files F1,... (tarn's compaction
// outputs) hold exactly the rows of the listed files, every column of the table compared
// (EXCEPT ALL both ways; tarn's stored row ids are left out), and prints one JSON line.
//
// Times `COPY (SELECT * FROM read_parquet([the files of FILE])) TO OUT (FORMAT parquet,
// COMPRESSION zstd)` with `SET threads = N` (default 2), then checks (untimed) that OUT holds the
// rows of the inputs. peak_rss_kb is the node process's maxRSS (node and DuckDB together);
// rss_before_kb what it held before the COPY (DuckDB loaded, the file list read).
import { createRequire } from 'node:module';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tests', 'interop', 'package.json'));
const { DuckDBInstance, version } =
    await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const args = { list: '', out: '', threads: 2, compare: '' };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  const value = process.argv[i + 1];
  if (!(key in args) || value === undefined) {
    console.error(`compaction_duckdb: unknown option ${process.argv[i]}`);
    process.exit(2);
  }
  args[key] = key === 'threads' ? Number(value) : value;
}
if (!args.list || (!args.out && !args.compare)) {
  console.error('compaction_duckdb: --list FILE --out OUT.parquet | --compare F1,F2,...');
  process.exit(2);
}

const now = () => Number(process.hrtime.bigint()) / 1e9;
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

const files = readFileSync(args.list, 'utf8').split('\n').filter((l) => l.length > 0);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`SET threads = ${args.threads}`);
const list = `[${files.map(sqlString).join(', ')}]`;

if (args.compare) {
  const columns = 'c_int64, c_double, c_varchar, c_timestamp, c_date, c_decimal, c_bool, c_uuid';
  const outputs = `[${args.compare.split(',').map(sqlString).join(', ')}]`;
  const inputs = `SELECT ${columns} FROM read_parquet(${list})`;
  const compacted = `SELECT ${columns} FROM read_parquet(${outputs})`;
  const check = await c.runAndReadAll(`
    SELECT (SELECT count(*) FROM read_parquet(${outputs})),
           (SELECT count(*) FROM (${compacted} EXCEPT ALL ${inputs})),
           (SELECT count(*) FROM (${inputs} EXCEPT ALL ${compacted}))`);
  const [rows, extra, missing] = check.getRows()[0].map(Number);
  process.stdout.write(JSON.stringify({
    bench: 'compare', engine: 'duckdb', files: files.length, rows, extra_rows: extra,
    missing_rows: missing, equal: extra === 0 && missing === 0,
  }) + '\n');
  process.exit(extra === 0 && missing === 0 ? 0 : 1);
}

rmSync(args.out, { force: true });

const rssBefore = process.resourceUsage().maxRSS;
const start = now();
await c.run(`COPY (SELECT * FROM read_parquet(${list})) TO ${sqlString(args.out)} ` +
            '(FORMAT parquet, COMPRESSION zstd)');
const seconds = now() - start;
const peak = process.resourceUsage().maxRSS;
console.error(`duckdb COPY of ${files.length} files: ${seconds.toFixed(3)} s`);

const check = await c.runAndReadAll(
    `SELECT (SELECT count(*) FROM read_parquet(${sqlString(args.out)})),
            (SELECT count(*) FROM read_parquet(${list}))`);
const [outRows, inRows] = check.getRows()[0].map(Number);
if (outRows !== inRows) {
  console.error(`compaction_duckdb: ${args.out} holds ${outRows} rows, the inputs ${inRows}`);
  process.exit(1);
}
process.stdout.write(JSON.stringify({
  bench: 'compact', engine: 'duckdb', seconds, files: files.length, rows: outRows,
  bytes: statSync(args.out).size, threads: args.threads, rss_before_kb: rssBefore,
  peak_rss_kb: peak, version: version(),
}) + '\n');
