#!/usr/bin/env bash
# tarn sql beside DuckDB's read_parquet over the same files (bench/sql_bench.mjs; figures in
# bench/README.md, "SQL"). Environment: BENCH_ROWS (10000000), BENCH_FILES (20), BENCH_RUNS (5),
# TARN_BENCH_DIR (default a temporary directory, removed at the end).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for b in "$root/build/tarn" "$root/build/bench/sql_bench"; do
  [[ -x "$b" ]] || { echo "sql_run: $b is not built (run: make build)" >&2; exit 1; }
done
dir="${TARN_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/tarn-sql-bench.XXXXXX")}"
[[ -n "${TARN_BENCH_DIR:-}" ]] || trap 'rm -rf "$dir"' EXIT
echo "sql_run: load average before the run: $(cut -d' ' -f1 /proc/loadavg)" >&2
node "$root/bench/sql_bench.mjs" --rows "${BENCH_ROWS:-10000000}" --files "${BENCH_FILES:-20}" \
  --runs "${BENCH_RUNS:-5}" --dir "$dir" --tarn "$root/build/tarn" \
  --bench "$root/build/bench/sql_bench"
