// DuckDB's side of bench/point_lookup_bench.cc (bench/README.md, "Point lookup and the page
// index"): the same `id = X` lookups over the same files (the ones with the page index), with the
// DuckDB of tests/interop (2 threads). DuckDB prunes row groups by their statistics; it does not
// read the page index. Two ways: read_parquet over every file of the dataset (what a query over
// the dataset's files does: each footer read, row groups pruned), and over the one file that
// holds the id (what remains after tarn's planning). One JSON line per way on stdout.
//   node bench/point_lookup_duckdb.mjs --dir DIR [--lookups K]
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'interop', 'package.json'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const args = { dir: '', lookups: 25 };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  if (!(key in args)) throw new Error(`point_lookup_duckdb: unknown option ${process.argv[i]}`);
  args[key] = typeof args[key] === 'number' ? Number(process.argv[i + 1]) : process.argv[i + 1];
}
const quote = (s) => "'" + String(s).replaceAll("'", "''") + "'";
const files = JSON.parse(fs.readFileSync(path.join(args.dir, 'files.json'), 'utf8')).index
  .map((f) => ({ path: path.join(args.dir, 'index', f.path), records: f.records }));
const total = files.reduce((n, f) => n + f.records, 0);
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();

const quantile = (v, q) => {
  const s = [...v].sort((a, b) => a - b);
  if (q === 0.5 && s.length % 2 === 0) return (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

for (const mode of ['all_files', 'one_file']) {
  const times = [];
  for (let k = 0; k < args.lookups; ++k) {
    // The ids point_lookup_bench looks up.
    const step = Math.floor(total / args.lookups);
    const id = step * k + ((k * 7919) % Math.max(1, step));
    let list = files.map((f) => f.path);
    if (mode === 'one_file') {
      let start = 0;
      for (const f of files) {
        if (id >= start && id < start + f.records) list = [f.path];
        start += f.records;
      }
    }
    const sql = `SELECT * FROM read_parquet([${list.map(quote).join(', ')}]) WHERE id = ${id}`;
    const t0 = process.hrtime.bigint();
    const r = await con.runAndReadAll(sql);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (r.currentRowCount !== 1) throw new Error(`id ${id}: ${r.currentRowCount} rows`);
  }
  console.log(JSON.stringify({ engine: 'duckdb', bench: 'lookup', mode, rows: total,
    lookups: args.lookups, median_s: quantile(times, 0.5), p90_s: quantile(times, 0.9),
    min_s: quantile(times, 0) }));
}
