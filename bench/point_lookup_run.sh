#!/usr/bin/env bash
# Point lookups on a dataset sorted by id, with and without the Parquet page index, beside DuckDB
# on the same files (bench/point_lookup_bench.cc, bench/point_lookup_duckdb.mjs; figures in
# bench/README.md, "Point lookup and the page index").
# Environment: BENCH_LOOKUP_ROWS (100000000), BENCH_LOOKUP_FILES (10), BENCH_LOOKUPS (25),
# BENCH_FULL_LOOKUPS (3: lookups without any pruning, each reads a whole file), TARN_BENCH_DIR
# (default a temporary directory, removed at the end; needs ~1.5 GB for 100,000,000 rows).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/build/bench/point_lookup_bench"
[[ -x "$bin" ]] || { echo "point_lookup_run: $bin is not built (run: make build)" >&2; exit 1; }
dir="${TARN_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/tarn-lookup-bench.XXXXXX")}"
[[ -n "${TARN_BENCH_DIR:-}" ]] || trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir"
results="$dir/results.jsonl"
: >"$results"
rows="${BENCH_LOOKUP_ROWS:-100000000}"
files="${BENCH_LOOKUP_FILES:-10}"
lookups="${BENCH_LOOKUPS:-25}"
echo "point_lookup_run: $rows rows in $files files, $lookups lookups, files in $dir" >&2
echo "point_lookup_run: load average before the run: $(cut -d' ' -f1 /proc/loadavg)" >&2
"$bin" write --dir "$dir" --rows "$rows" --files "$files" >>"$results"
"$bin" lookup --dir "$dir" --lookups "$lookups" --full-lookups "${BENCH_FULL_LOOKUPS:-3}" \
  >>"$results"
node "$root/bench/point_lookup_duckdb.mjs" --dir "$dir" --lookups "$lookups" >>"$results"
node - "$results" <<'JS'
const fs = require('fs');
const rs = fs.readFileSync(process.argv[2], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const ms = (s) => (s * 1000).toFixed(1);
const base = rs.find((r) => r.bench === 'lookup' && r.mode === 'page_index');
const rows = [['lookup (median of runs)', 'median ms', 'p90 ms', 'data pages read', 'vs page index']];
const names = {
  page_index: 'tarn, page index', row_group_stats: 'tarn, no page index (row group stats)',
  no_pruning: 'tarn, no pruning (before)', all_files: 'DuckDB, read_parquet(all files)',
  one_file: 'DuckDB, read_parquet(the one file)',
};
for (const r of rs.filter((x) => x.bench === 'lookup')) {
  rows.push([names[r.mode] ?? r.mode, ms(r.median_s), ms(r.p90_s),
    r.data_pages_read_per_lookup === undefined ? '-' : String(r.data_pages_read_per_lookup),
    (r.median_s / base.median_s).toFixed(1) + 'x']);
}
for (const r of rs.filter((x) => x.bench === 'lookup_write')) {
  rows.push([`write, ${r.variant === 'index' ? 'with' : 'without'} page index`,
    (r.seconds * 1000).toFixed(0), '-', '-', `${(r.bytes / 1e6).toFixed(1)} MB`]);
}
const w = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
for (const r of rows) console.log(r.map((v, c) => v.padEnd(w[c])).join('  '));
JS
