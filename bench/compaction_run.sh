#!/usr/bin/env bash
# Compaction benchmark (bench/README.md, "Maintenance: compaction"; issue 20), all in one run:
#   1. `compaction_bench prepare`: an embedded catalog with one unpartitioned dataset of the
#      8-column table (bench_table.h), filled by BENCH_FILES appends of BENCH_ROWS_PER_FILE rows
#      (one file each); not timed against anything;
#   2. BENCH_RUNS times, alternating who goes first: `compaction_bench compact` (one compaction
#      pass, default thresholds) in a fresh process on a fresh copy of the prepared catalog, and
#      `node bench/compaction_duckdb.mjs`: DuckDB's COPY (SELECT * FROM read_parquet([the same
#      live files])) TO one zstd Parquet file, 2 threads, in a fresh process;
#   3. DuckDB checks that the compacted files hold exactly the rows of the inputs;
#   4. `tarn sql` (an aggregate over the dataset) BENCH_SQL_RUNS times on the prepared catalog and
#      on the compacted copy: the speed-up; the two results must agree.
# `make bench` runs it after the other benchmarks of bench/run.sh (BENCH_COMPACTION=0 skips it).
#
# Environment: BENCH_FILES (default 10000), BENCH_ROWS_PER_FILE (default 100), BENCH_RUNS
# (default 3), BENCH_SQL_RUNS (default 5), BENCH_PREPARE_THREADS (default 8),
# TARN_BENCH_COMPACTION_BIN (default build/bench/compaction_bench), TARN_BIN (default
# build/tarn), TARN_BENCH_DIR (default a temporary directory under /var/tmp, on disk, removed at
# the end; when set, it is kept with results.jsonl, the catalogs removed).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TARN_BENCH_COMPACTION_BIN:-$root/build/bench/compaction_bench}"
tarn="${TARN_BIN:-$root/build/tarn}"
files="${BENCH_FILES:-10000}"
rows="${BENCH_ROWS_PER_FILE:-100}"
runs="${BENCH_RUNS:-3}"
sql_runs="${BENCH_SQL_RUNS:-5}"
threads="${BENCH_PREPARE_THREADS:-8}"
for b in "$bin" "$tarn"; do
  [[ -x "$b" ]] || { echo "compaction bench: $b is not built (run: make build)" >&2; exit 1; }
done

keep=0
if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
  dir="$TARN_BENCH_DIR"
  keep=1
  mkdir -p "$dir"
else
  dir="$(mktemp -d /var/tmp/tarn-compaction-bench.XXXXXX)"
fi
dir="$(cd "$dir" && pwd)"
if [[ "$(stat -f -c %T "$dir")" == tmpfs ]]; then
  echo "compaction bench: $dir is on tmpfs; pick a disk directory (tarn's writes are fsynced)" >&2
  exit 1
fi
cleanup() {
  if ((keep)); then
    rm -rf "$dir/prepared" "$dir/run" "$dir/duckdb.parquet"
  else
    rm -rf "$dir"
  fi
}
trap cleanup EXIT

results="$dir/results.jsonl"
: >"$results"
say() { echo "compaction bench: $*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

say "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
say "load average at the start: $(load) (figures are only comparable on a quiet machine)"
say "files in $dir"

dataset=bench.compaction.t
rm -rf "$dir/prepared" "$dir/run"
say "[prepare] $files appends of $rows rows, $threads threads (load $(load))"
"$bin" prepare --catalog "$dir/prepared" --files "$files" --rows "$rows" --threads "$threads" \
  --dataset "$dataset" --list "$dir/files.txt" >>"$results"
tail -n 1 "$results" >&2
say "[prepare] catalog: $(du -sh "$dir/prepared" | cut -f1)"

tarn_run() {
  rm -rf "$dir/run"
  cp -a "$dir/prepared" "$dir/run"
  sync  # the copy's dirty pages must not be flushed during the compaction's own fsync
  "$bin" compact --catalog "$dir/run" --dataset "$dataset" >>"$results"
  tail -n 1 "$results" >&2
}
duck_run() {
  sync
  node "$root/bench/compaction_duckdb.mjs" --list "$dir/files.txt" --out "$dir/duckdb.parquet" \
    --threads 2 >>"$results"
  tail -n 1 "$results" >&2
}
for ((r = 1; r <= runs; r++)); do
  say "[compact] run $r of $runs (load $(load))"
  if ((r % 2)); then
    tarn_run
    duck_run
  else
    duck_run
    tarn_run
  fi
done

# The last tarn run left the compacted catalog in $dir/run: DuckDB checks that its files hold
# exactly the input rows (every column).
outputs="$(grep '"engine":"tarn"' "$results" | tail -n 1 | node -e 'let s = "";
  process.stdin.on("data", (d) => (s += d)).on("end", () =>
    console.log(JSON.parse(s).output_paths.join(",")))')"
say "[check] DuckDB compares the compacted files with the inputs"
node "$root/bench/compaction_duckdb.mjs" --list "$dir/files.txt" --compare "$outputs" >>"$results"
tail -n 1 "$results" >&2

query="SELECT c_bool, count(*) AS n, sum(c_int64) AS s, avg(c_double) AS a FROM $dataset GROUP BY c_bool ORDER BY c_bool"
say "[sql] $query, $sql_runs runs before and after (load $(load))"
for which in before after; do
  cat_dir="$dir/prepared"
  [[ "$which" == after ]] && cat_dir="$dir/run"
  "$bin" time --label "sql_$which" --runs "$sql_runs" --out "$dir/sql_$which.csv" -- \
    "$tarn" sql "$query" --catalog "$cat_dir" --threads 2 --csv >>"$results"
  tail -n 1 "$results" >&2
done
# Counts and sums exactly, averages to 1e-9 (the summation order differs).
paste -d, "$dir/sql_before.csv" "$dir/sql_after.csv" | awk -F, '
  NR == 1 { next }
  { if ($1 != $5 || $2 != $6 || $3 != $7) bad = 1
    d = $4 - $8; if (d < 0) d = -d; if (d > 1e-9 * ($4 < 0 ? -$4 : $4)) bad = 1 }
  END { if (bad || NR < 2) exit 1 }' || {
  say "the aggregate differs before and after compaction:"
  paste -d' ' "$dir/sql_before.csv" "$dir/sql_after.csv" >&2
  exit 1
}

say "load average at the end: $(load)"
echo
"$bin" report "$results"
