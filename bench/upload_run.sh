#!/usr/bin/env bash
# Upload benchmark (bench/README.md, "Uploads"): a deterministic ~200 MB CSV to ZSTD Parquet with
# type inference, `tarn convert --infer` beside DuckDB's `COPY (SELECT * FROM read_csv(...)) TO
# ... (FORMAT parquet, COMPRESSION zstd)` with 2 threads, same file, same run, runs alternating;
# `tarn push` of the same file into an embedded catalog; DuckDB reads tarn's file back and the
# rows and values of both files are compared.
#
# Environment: BENCH_RUNS (default 5), BENCH_UPLOAD_MB (default 200), TARN_BINARY (default
# build/tarn), TARN_BENCH_UPLOAD_BIN (default build/bench/upload_bench; optional), TARN_BENCH_DIR
# (default a temporary directory under /var/tmp, removed at the end; when set, the CSV is kept
# there and reused by later runs, with results.jsonl).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tarn="${TARN_BINARY:-$root/build/tarn}"
inproc="${TARN_BENCH_UPLOAD_BIN:-$root/build/bench/upload_bench}"
runs="${BENCH_RUNS:-5}"
mb="${BENCH_UPLOAD_MB:-200}"
[[ -x "$tarn" ]] || { echo "upload bench: $tarn is not built (run: make build)" >&2; exit 1; }

if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
  dir="$TARN_BENCH_DIR"
  mkdir -p "$dir"
else
  dir="$(mktemp -d /var/tmp/tarn-upload-bench.XXXXXX)"
  trap 'rm -rf "$dir"' EXIT
fi
say() { echo "upload bench: $*" >&2; }
say "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

csv="$dir/data-${mb}mb.csv"
if [[ ! -s "$csv" ]]; then
  say "generating $csv"
  node "$root/bench/upload_gen.mjs" --out "$csv.tmp" --mb "$mb" >&2
  mv "$csv.tmp" "$csv"
fi

results="$dir/results.jsonl"
node "$root/bench/upload_bench.mjs" --csv "$csv" --dir "$dir" --tarn "$tarn" --runs "$runs" \
  --inprocess "$inproc" >"$results"

summary="$(grep '"summary"' "$results")"
node - "$summary" <<'EOF'
const s = JSON.parse(process.argv[2]).summary;
const f = (x, d = 2) => (x === null || x === undefined ? '-' : x.toFixed(d));
console.log(`\n${s.input_mb.toFixed(0)} MB CSV, median of ${s.runs} runs, DuckDB ${s.duckdb_version}, ` +
            `${s.threads} threads; load average at the end ${s.load_end}\n`);
console.log('| conversion (median)                                   | seconds | MB/s | tarn/DuckDB MB/s |');
console.log('|-------------------------------------------------------|--------:|-----:|-----------------:|');
console.log(`| DuckDB COPY (read_csv) TO parquet zstd                | ${f(s.duckdb_copy_s, 3)} | ${f(s.duckdb_copy_mb_s, 1)} | - |`);
console.log(`| **tarn convert --infer --compression zstd**           | ${f(s.tarn_convert_s, 3)} | ${f(s.tarn_convert_mb_s, 1)} | **${f(s.ratio)}** |`);
console.log(`| ConvertFiles in process, plain file (no fsync/rename) | ${f(s.tarn_inprocess_s, 3)} | ${f(s.tarn_inprocess_mb_s, 1)} | ${f(s.ratio_inprocess)} |`);
console.log(`| tarn push --yes, embedded catalog (end to end)        | ${f(s.tarn_push_s, 3)} | ${f(s.tarn_push_mb_s, 1)} | - |`);
console.log('\nchecks:');
for (const [k, v] of Object.entries(s.checks)) console.log(`  ${k}: ${JSON.stringify(v)}`);
EOF
