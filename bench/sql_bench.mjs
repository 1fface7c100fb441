// tarn sql beside DuckDB's own read_parquet over the same files (bench/README.md, "SQL").
//
// Builds a dataset of ROWS rows x 12 columns in FILES appends (one Parquet file each, written by
// tarn's writer) in an embedded catalog, then times, alternately and in separate processes of
// build/bench/sql_bench (the same libduckdb, 2 threads, for both):
//   group_by:  SELECT k, count(*), sum(x), avg(y) ... GROUP BY k
//              tarn: FROM bench.b.t          DuckDB: FROM read_parquet([the files])
//   one_column: SELECT sum(x) ...            (and the bytes tarn read, against the files' size)
//   deleted:   group_by after `tarn delete --where 'i1 < 5'` (5% of the rows, deletion vectors);
//              DuckDB applies the same positions itself: an anti-join of
//              read_parquet(..., filename, file_row_number) with the deleted (file, position)s.
//   refresh_group_by: a full refresh of a materialized view of group_by (the SQL, writing its
//              1,000 rows, the commit) against DuckDB running the same SQL over the files.
//   refresh_incremental: a materialized view of a filter keeping every row (10M rows); each run
//              appends 1% of the rows to the source, times the incremental refresh, then a
//              full one (--full) of the same state.
// Prints one JSON line per figure (medians of RUNS; max_rss_kb is each process's peak).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'interop', 'package.json'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const args = { rows: 10000000, files: 20, runs: 5, dir: '/tmp/tarn-sql-bench', tarn: '', bench: '' };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  if (!(key in args)) throw new Error(`sql_bench: unknown option ${process.argv[i]}`);
  args[key] = typeof args[key] === 'number' ? Number(process.argv[i + 1]) : process.argv[i + 1];
}
const catalog = path.join(args.dir, 'catalog');
const log = (m) => process.stderr.write(`sql_bench: ${m}\n`);
const quote = (s) => "'" + String(s).replaceAll("'", "''") + "'";
const tarn = (...a) => execFileSync(args.tarn, [...a, '--catalog', catalog],
  { encoding: 'utf8', env: { ...process.env, TARN_AUTHOR: 'bench', NO_COLOR: '1' }, maxBuffer: 1 << 30 });

fs.rmSync(args.dir, { recursive: true, force: true });
fs.mkdirSync(args.dir, { recursive: true });
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
const per = Math.ceil(args.rows / args.files);
// Rows [from, to) of the benchmark's table as one Parquet file.
const writeRows = (part, from, to) => con.run(`COPY (SELECT (i % 1000)::INT AS k,
    (i * 7919 % 1000003)::BIGINT AS x, (i % 997) * 0.5 AS y, 'name_' || (i % 50000) AS s1,
    md5(i::VARCHAR)[1:12] AS s2, TIMESTAMP '2026-01-01' + to_seconds(i) AS ts,
    DATE '2020-01-01' + (i % 2000)::INT AS d, ((i % 100000) / 100)::DECIMAL(12,2) AS dec,
    (i % 100)::INT AS i1, i * 3 AS i2, sqrt(i) AS f, i % 2 = 0 AS b
  FROM range(${from}, ${to}) r(i)) TO ${quote(part)}`);
log(`generating ${args.rows} rows x 12 columns in ${args.files} parts`);
tarn('workspace', 'create', 'bench');
tarn('collection', 'create', 'bench.b');
tarn('dataset', 'create', 'bench.b.t', '--schema',
  'k INT32, x INT64, y FLOAT64, s1 VARCHAR, s2 VARCHAR, ts TIMESTAMP[us], d DATE, ' +
  'dec DECIMAL(12,2), i1 INT32, i2 INT64, f FLOAT64, b BOOLEAN');
for (let p = 0; p < args.files; ++p) {
  const part = path.join(args.dir, `part${p}.parquet`);
  await writeRows(part, p * per, Math.min(args.rows, (p + 1) * per));
  tarn('append', 'bench.b.t', part, '-m', `part ${p}`);
  fs.rmSync(part);
}
const files = JSON.parse(tarn('files', 'bench.b.t', '--json'))
  .map((f) => path.join(catalog, 'warehouse', f.path));
const totalBytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
log(`${files.length} files, ${totalBytes} bytes`);
const list = `[${files.map(quote).join(', ')}]`;

function once(query, local) {
  const out = execFileSync(args.bench, ['--catalog', catalog, '--query', query, '--threads', '2',
    ...(local ? ['--allow-local-files'] : [])], { encoding: 'utf8' });
  return JSON.parse(out);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function compare(name, tarnQuery, duckQuery) {
  const t = [], d = [];
  for (let r = 0; r < args.runs; ++r) {
    t.push(once(tarnQuery, false));
    d.push(once(duckQuery, true));
  }
  if (t[0].rows !== d[0].rows) throw new Error(`${name}: tarn returned ${t[0].rows} rows, DuckDB ${d[0].rows}`);
  const line = {
    bench: `sql_${name}`, rows: args.rows, files: files.length, file_bytes: totalBytes,
    tarn_s: median(t.map((x) => x.seconds)), duckdb_s: median(d.map((x) => x.seconds)),
    tarn_max_rss_kb: median(t.map((x) => x.max_rss_kb)), duckdb_max_rss_kb: median(d.map((x) => x.max_rss_kb)),
    tarn_io_read_bytes: t[0].io_read_bytes, duckdb_io_read_bytes: d[0].io_read_bytes,
    tarn_direct_files: t[0].direct_files,
  };
  line.ratio = +(line.tarn_s / line.duckdb_s).toFixed(3);
  line.bytes_read_share = +(line.tarn_io_read_bytes / totalBytes).toFixed(4);
  console.log(JSON.stringify(line));
}

const groupBy = (from) => `SELECT k, count(*) AS n, sum(x) AS sx, avg(y) AS ay FROM ${from} GROUP BY k`;
log('group_by');
compare('group_by', groupBy('bench.b.t'), groupBy(`read_parquet(${list})`));
log('one_column');
compare('one_column', 'SELECT sum(x) FROM bench.b.t', `SELECT sum(x) FROM read_parquet(${list})`);

function refresh(view, full) {
  const out = execFileSync(args.bench, ['--catalog', catalog, '--refresh', view, '--threads', '2',
    ...(full ? ['--full'] : [])], { encoding: 'utf8' });
  return JSON.parse(out);
}
log('refresh_group_by');
tarn('mv', 'create', 'bench.b.by_k', '--sql', groupBy('bench.b.t'));
{
  const t = [], d = [];
  for (let r = 0; r < args.runs; ++r) {
    t.push(refresh('bench.b.by_k', true));
    d.push(once(groupBy(`read_parquet(${list})`), true));
  }
  const line = { bench: 'sql_refresh_group_by', rows: args.rows, tarn_s: median(t.map((x) => x.seconds)),
    duckdb_s: median(d.map((x) => x.seconds)), tarn_max_rss_kb: median(t.map((x) => x.max_rss_kb)) };
  line.ratio = +(line.tarn_s / line.duckdb_s).toFixed(3);
  console.log(JSON.stringify(line));
}

log('deleting 5% of the rows');
tarn('delete', 'bench.b.t', '--where', 'i1 < 5', '-m', 'delete 5%');
const deletes = path.join(args.dir, 'deletes.parquet');
await con.run(`COPY (SELECT filename, file_row_number FROM read_parquet(${list}, filename = true,
    file_row_number = true) WHERE i1 < 5) TO ${quote(deletes)}`);
log('deleted');
compare('deleted', groupBy('bench.b.t'),
  groupBy(`(SELECT * FROM read_parquet(${list}, filename = true, file_row_number = true) p
    ANTI JOIN read_parquet(${quote(deletes)}) d USING (filename, file_row_number))`));

log('refresh_incremental');
tarn('mv', 'create', 'bench.b.big', '--sql', 'SELECT k, x, y, s1 FROM bench.b.t WHERE i1 >= 0');
{
  const inc = [], full = [];
  const step = Math.ceil(args.rows / 100);
  for (let r = 0; r < args.runs; ++r) {
    const part = path.join(args.dir, `more${r}.parquet`);
    const from = args.rows + r * step;
    await writeRows(part, from, from + step);
    tarn('append', 'bench.b.t', part, '-m', `1% more (${r})`);
    fs.rmSync(part);
    const i = refresh('bench.b.big', false);
    if (i.mode !== 'incremental' || i.rows !== step) {
      throw new Error(`refresh_incremental: expected ${step} rows incrementally, got ${JSON.stringify(i)}`);
    }
    inc.push(i);
    full.push(refresh('bench.b.big', true));
  }
  const line = { bench: 'sql_refresh_incremental', view_rows: full[0].rows, appended_rows: step,
    incremental_s: median(inc.map((x) => x.seconds)), full_s: median(full.map((x) => x.seconds)) };
  line.share = +(line.incremental_s / line.full_s).toFixed(4);
  console.log(JSON.stringify(line));
}
