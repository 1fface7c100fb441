#!/usr/bin/env bash
# Runs tarn's Parquet benchmarks beside DuckDB's on the same data shape in one go and prints the
# table of ratios (bench/README.md). `make bench` builds Release first and runs this.
#
# Environment: BENCH_ROWS (default 1000000), BENCH_RUNS (default 5), TARN_BENCH_BIN (default
# build/bench/parquet_bench), TARN_BENCH_DIR (default a temporary directory, removed at the end;
# the JSON lines of the run are kept in it as results.jsonl when it is set).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TARN_BENCH_BIN:-$root/build/bench/parquet_bench}"
rows="${BENCH_ROWS:-1000000}"
runs="${BENCH_RUNS:-5}"
if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
  dir="$TARN_BENCH_DIR"
  mkdir -p "$dir"
else
  dir="$(mktemp -d "${TMPDIR:-/tmp}/tarn-bench.XXXXXX")"
  trap 'rm -rf "$dir"' EXIT
fi
[[ -x "$bin" ]] || { echo "bench: $bin is not built (run: make build)" >&2; exit 1; }
results="$dir/results.jsonl"
: >"$results"

echo "bench: $rows rows, median of $runs runs, files in $dir"
echo "bench: machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
load="$(cut -d' ' -f1 /proc/loadavg)"
echo "bench: load average before the run: $load (figures are only comparable on a quiet machine)"

echo "bench: [1/3] tarn writes and reads its own file, decodes footers"
"$bin" --rows "$rows" --runs "$runs" --dir "$dir" >>"$results"
echo "bench: [2/3] DuckDB writes and reads its own file and tarn's"
node "$root/bench/duckdb_bench.mjs" --rows "$rows" --runs "$runs" --dir "$dir" >>"$results"
echo "bench: [3/3] tarn reads DuckDB's file"
"$bin" --rows "$rows" --runs "$runs" --dir "$dir" --only-read --read "$dir/duckdb.parquet" \
  >>"$results"

echo
node "$root/bench/report.mjs" "$results"

# Catalog commits and planning beside pgbench and raw SQLite (bench/catalog_run.sh, a few
# minutes: it loads 1,000,000 files). BENCH_CATALOG=0 skips it.
if [[ "${BENCH_CATALOG:-1}" == 1 ]]; then
  echo
  echo "bench: catalog commits and planning (bench/catalog_run.sh)"
  if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
    TARN_BENCH_DIR="$dir/catalog" "$root/bench/catalog_run.sh"
  else
    env -u TARN_BENCH_DIR "$root/bench/catalog_run.sh"
  fi
fi

# Append commits over HTTP (tarn serve) vs embedded on one PostgreSQL (bench/serve_run.sh, about
# a minute). BENCH_SERVE=0 skips it.
if [[ "${BENCH_SERVE:-1}" == 1 ]]; then
  echo
  echo "bench: append commits over HTTP vs embedded (bench/serve_run.sh)"
  if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
    TARN_BENCH_DIR="$dir/serve" "$root/bench/serve_run.sh"
  else
    env -u TARN_BENCH_DIR "$root/bench/serve_run.sh"
  fi
fi

# CSV to Parquet with inference: `tarn convert` vs DuckDB COPY from read_csv, and `tarn push` to an
# embedded catalog (bench/upload_run.sh, about a minute plus ~20 s to generate the CSV).
# BENCH_UPLOAD=0 skips it.
if [[ "${BENCH_UPLOAD:-1}" == 1 ]]; then
  echo
  echo "bench: CSV to Parquet, tarn convert and push vs DuckDB (bench/upload_run.sh)"
  if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
    TARN_BENCH_DIR="$dir/upload" "$root/bench/upload_run.sh"
  else
    env -u TARN_BENCH_DIR "$root/bench/upload_run.sh"
  fi
fi

# Compaction of 10,000 small files vs DuckDB's COPY over them, and a `tarn sql` aggregate before
# and after (bench/compaction_run.sh, about 2 minutes: it prepares 10,000 appends).
# BENCH_COMPACTION=0 skips it.
if [[ "${BENCH_COMPACTION:-1}" == 1 ]]; then
  echo
  echo "bench: compaction vs DuckDB COPY (bench/compaction_run.sh)"
  if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
    TARN_BENCH_DIR="$dir/compaction" "$root/bench/compaction_run.sh"
  else
    env -u TARN_BENCH_DIR "$root/bench/compaction_run.sh"
  fi
fi

# Point lookups on 100,000,000 rows with and without the page index, beside DuckDB
# (bench/point_lookup_run.sh, about 3 minutes and ~1.3 GB of files). BENCH_LOOKUP=0 skips it.
if [[ "${BENCH_LOOKUP:-1}" == 1 ]]; then
  echo
  echo "bench: point lookups and the page index (bench/point_lookup_run.sh)"
  if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
    TARN_BENCH_DIR="$dir/lookup" "$root/bench/point_lookup_run.sh"
  else
    env -u TARN_BENCH_DIR "$root/bench/point_lookup_run.sh"
  fi
fi
