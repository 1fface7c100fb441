// Prints the side-by-side table of a benchmark run from the JSON lines that parquet_bench and
// duckdb_bench.mjs wrote (bench/run.sh passes the file).  Usage: node bench/report.mjs RESULTS
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l.startsWith('{'));
const results = lines.map((l) => JSON.parse(l));
const find = (engine, bench, pred = () => true) =>
  results.find((r) => r.engine === engine && r.bench === bench && pred(r));
const onFile = (name) => (r) => basename(r.file ?? '') === name;

const rows = [];
const add = (what, tarn, duck, unit) => {
  const fmt = (r, key) => (r ? (unit === 's' ? r[key].toFixed(3) + ' s' : r[key]) : '-');
  const ratio = tarn && duck ? (tarn.median_s / duck.median_s).toFixed(2) : '-';
  rows.push([what, fmt(tarn, 'median_s'), fmt(duck, 'median_s'), ratio]);
};

const tw = find('tarn', 'write', (r) => r.target === 'file');
const dw = find('duckdb', 'write');
const n = (tw ?? dw)?.rows?.toLocaleString('en-US') ?? '?';
add(`write ${n} rows x 8 columns, ZSTD`, tw, dw, 's');
add('  (tarn durable: fsync + rename)', find('tarn', 'write', (r) => r.target === 'durable_file'),
    dw, 's');
add('  (tarn without file I/O)', find('tarn', 'write', (r) => r.target === 'none'), dw, 's');
add("read all columns of tarn's file", find('tarn', 'read', onFile('tarn.parquet')),
    find('duckdb', 'read', onFile('tarn.parquet')), 's');
add("read all columns of DuckDB's file", find('tarn', 'read', onFile('duckdb.parquet')),
    find('duckdb', 'read', onFile('duckdb.parquet')), 's');
add("  (DuckDB streamed, tarn's file)", find('tarn', 'read', onFile('tarn.parquet')),
    find('duckdb', 'read_stream', onFile('tarn.parquet')), 's');
add("  (DuckDB streamed, DuckDB's file)", find('tarn', 'read', onFile('duckdb.parquet')),
    find('duckdb', 'read_stream', onFile('duckdb.parquet')), 's');

const header = ['benchmark (median)', 'tarn', 'DuckDB', 'tarn/DuckDB'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i])
                                             : String(c).padStart(widths[i]))).join('  ');
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
rows.forEach((r) => console.log(line(r)));
console.log();

const mb = (b) => (b / 1e6).toFixed(1) + ' MB';
if (tw && dw) console.log(`file size: tarn ${mb(tw.bytes)}, DuckDB ${mb(dw.bytes)}`);
for (const b of ['footer_decode', 'footer_open']) {
  const f = find('tarn', b);
  if (f) {
    console.log(`${b}: ${f.median_us.toFixed(1)} us per footer (${f.columns} columns, ` +
                `${f.row_groups} row groups, ${f.footer_bytes} footer bytes)`);
  }
}
const check = find('duckdb', 'check');
if (check) {
  console.log(check.equal ? "check: DuckDB reads tarn's file with the same rows as its own table"
                          : `check: MISMATCH in tarn's file: ${check.rows} rows, ` +
                            `${check.extra_rows} extra, ${check.missing_rows} missing`);
}
if (dw) console.log(`DuckDB ${dw.version}, ${dw.threads} threads; tarn 2 threads`);
