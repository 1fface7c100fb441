#!/usr/bin/env bash
# Catalog benchmarks (bench/README.md, "Catalog: commits and planning"), all in one run:
#   1. commit throughput on PostgreSQL (fsync and synchronous_commit on) beside pgbench's
#      one-row INSERT transactions, and on SQLite (embedded, WAL, synchronous=FULL) beside raw
#      SQLite one-row insert transactions, 1 and 8 writers;
#   2. snapshot expiry (issue 20): BENCH_EXPIRE_SNAPSHOTS snapshots of one file each expired by
#      one ExpireSnapshots call, snapshots/s, on PostgreSQL and on SQLite (embedded);
#   3. planning on a dataset of BENCH_PLAN_FILES live files on PostgreSQL (and SQLite with
#      BENCH_PLAN_SQLITE=1): full streamed listing (time, peak RSS) and selective predicates.
# `make bench` runs it after bench/run.sh's Parquet benchmarks (BENCH_CATALOG=0 skips it).
#
# Environment: BENCH_SECONDS (measured seconds per commit figure, default 5), BENCH_WARMUP
# (default 1), BENCH_PLAN_FILES (default 1000000; 0 skips planning), BENCH_PLAN_RUNS (default
# 20), BENCH_PLAN_SQLITE (default 0), BENCH_EXPIRE_SNAPSHOTS (default 100000; 0 skips expiry),
# BENCH_EXPIRE_THREADS (default 32: writers committing them), BENCH_ONLY (commit|expire|plan),
# BENCH_BOUNDS_INDEX (columns, e.g. id,ts,user_id: the commit runs again on datasets whose bounds
# index holds them, to show what the index costs a commit),
# TARN_BENCH_CATALOG_BIN (default build/bench/catalog_bench), TARN_BENCH_DIR (default a
# temporary directory under /var/tmp, on disk, removed at the end; when set, it is kept with
# results.jsonl).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TARN_BENCH_CATALOG_BIN:-$root/build/bench/catalog_bench}"
secs="${BENCH_SECONDS:-5}"
warm="${BENCH_WARMUP:-1}"
plan_files="${BENCH_PLAN_FILES:-1000000}"
plan_runs="${BENCH_PLAN_RUNS:-20}"
plan_sqlite="${BENCH_PLAN_SQLITE:-0}"
expire_snapshots="${BENCH_EXPIRE_SNAPSHOTS:-100000}"
expire_threads="${BENCH_EXPIRE_THREADS:-32}"
only="${BENCH_ONLY:-}"
bounds="${BENCH_BOUNDS_INDEX:-}"
[[ -x "$bin" ]] || { echo "catalog bench: $bin is not built (run: make build)" >&2; exit 1; }

keep=0
if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
  dir="$TARN_BENCH_DIR"
  keep=1
  mkdir -p "$dir"
else
  dir="$(mktemp -d /var/tmp/tarn-catalog-bench.XXXXXX)"
fi
chmod 755 "$dir"  # the PostgreSQL server runs as `postgres` when we are root
if [[ "$(stat -f -c %T "$dir")" == tmpfs ]]; then
  echo "catalog bench: $dir is on tmpfs; fsync costs nothing there, pick a disk directory" >&2
  exit 1
fi
cleanup() {
  TARN_PG_DIR="$dir/pg" "$root/scripts/pg.sh" stop "$dir/pg" >/dev/null 2>&1 || true
  if ((keep)); then
    rm -rf "$dir/pg" "$dir/sqlite-raw" "$dir/embedded" "$dir/plan-sqlite" "$dir/wh-pg" "$dir"/pgb* \
      "$dir/expire-sqlite"
  else
    rm -rf "$dir"
  fi
}
trap cleanup EXIT

results="$dir/results.jsonl"
: >"$results"
say() { echo "catalog bench: $*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

say "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
say "load average at the start: $(load) (figures are only comparable on a quiet machine)"
say "files in $dir"

TARN_PG_DURABLE=1 "$root/scripts/pg.sh" start "$dir/pg" >/dev/null
# shellcheck disable=SC1091
source "$dir/pg/env"
pg_uri="$TARN_TEST_PG_URI"
pgbin="$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
say "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'): fsync=$("$pgbin/psql" -qtA "$pg_uri" -c 'SHOW fsync'), synchronous_commit=$("$pgbin/psql" -qtA "$pg_uri" -c 'SHOW synchronous_commit'), full_page_writes=$("$pgbin/psql" -qtA "$pg_uri" -c 'SHOW full_page_writes')"

# pgbench with one-row INSERT transactions; latencies from its per-transaction log.
pgbench_run() {
  local clients="$1" threads="$2" prefix="$dir/pgb$1" out tps
  out="$("$pgbin/pgbench" -n -f "$dir/insert.sql" -c "$clients" -j "$threads" -T "$secs" \
    -l --log-prefix="$prefix" "$pg_uri" 2>&1)" || { echo "$out" >&2; exit 1; }
  tps="$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out" | head -n 1)"
  cat "$prefix".* | awk '{print $3 / 1000.0}' | sort -n | awk -v tps="$tps" -v c="$clients" '
    { v[NR] = $1 }
    END {
      p50 = v[int((NR * 50 + 99) / 100)]; p99 = v[int((NR * 99 + 99) / 100)]
      printf "{\"bench\":\"pgbench\",\"backend\":\"postgres\",\"writers\":%d,\"mode\":\"clients\",\"commits\":%d,\"per_s\":%s,\"p50_ms\":%.3f,\"p99_ms\":%.3f}\n", c, NR, tps, p50, p99
    }' >>"$results"
  rm -f "$prefix".*
  tail -n 1 "$results" >&2
}

run() {  # run LABEL ARGS...: one catalog_bench measurement appended to results.jsonl
  local label="$1"
  shift
  "$bin" "$@" --label "$label" >>"$results"
  tail -n 1 "$results" >&2
}

if [[ -z "$only" || "$only" == commit ]]; then
  say "[commits] PostgreSQL: pgbench and tarn, ${secs}s each (load $(load))"
  "$pgbin/psql" -q "$pg_uri" -c 'CREATE TABLE t (a BIGINT, b TEXT)'
  printf '%s\n' '\set id random(1, 1000000000)' "INSERT INTO t (a, b) VALUES (:id, 'x');" \
    >"$dir/insert.sql"
  pg=(--metastore "$pg_uri" --warehouse "$dir/wh-pg" --seconds "$secs" --warmup "$warm")
  pgbench_run 1 1
  run pg-1 commit "${pg[@]}" --threads 1 --dataset bench.commits.t1
  pgbench_run 8 2
  run pg-8t commit "${pg[@]}" --threads 8 --dataset bench.commits.t8
  run pg-8p commit "${pg[@]}" --procs 8 --dir "$dir" --dataset bench.commits.p8
  if [[ -n "$bounds" ]]; then  # the same commits on datasets with the bounds index
    run pg-1-bx commit "${pg[@]}" --threads 1 --dataset bench.commits.bx1 --bounds-index "$bounds"
    run pg-8t-bx commit "${pg[@]}" --threads 8 --dataset bench.commits.bx8 --bounds-index "$bounds"
  fi

  say "[commits] SQLite: raw inserts and tarn embedded, ${secs}s each (load $(load))"
  mkdir -p "$dir/sqlite-raw" "$dir/embedded"
  raw=(--dir "$dir/sqlite-raw" --seconds "$secs" --warmup "$warm")
  lite=(--embedded "$dir/embedded" --seconds "$secs" --warmup "$warm")
  run raw-1 sqlite-raw "${raw[@]}" --threads 1
  run sqlite-1 commit "${lite[@]}" --threads 1 --dataset bench.commits.t1
  run raw-8 sqlite-raw "${raw[@]}" --threads 8
  run raw-8m sqlite-raw "${raw[@]}" --threads 8 --mutex
  run sqlite-8t commit "${lite[@]}" --threads 8 --dataset bench.commits.t8
  run sqlite-8p commit "${lite[@]}" --procs 8 --dir "$dir" --dataset bench.commits.p8
  if [[ -n "$bounds" ]]; then
    run sqlite-1-bx commit "${lite[@]}" --threads 1 --dataset bench.commits.bx1 --bounds-index "$bounds"
    run sqlite-8t-bx commit "${lite[@]}" --threads 8 --dataset bench.commits.bx8 \
      --bounds-index "$bounds"
  fi
  rm -rf "$dir/sqlite-raw" "$dir/embedded"
fi

if [[ (-z "$only" || "$only" == expire) && "$expire_snapshots" -gt 0 ]]; then
  say "[expiry] PostgreSQL: $expire_snapshots snapshots, $expire_threads writers (load $(load))"
  run pg-expire expire --metastore "$pg_uri" --warehouse "$dir/wh-pg" \
    --dataset bench.expire.files --snapshots "$expire_snapshots" --threads "$expire_threads"
  say "[expiry] SQLite: $expire_snapshots snapshots, $expire_threads writers (load $(load))"
  run sqlite-expire expire --embedded "$dir/expire-sqlite" --dataset bench.expire.files \
    --snapshots "$expire_snapshots" --threads "$expire_threads"
  rm -rf "$dir/expire-sqlite"
fi

if [[ (-z "$only" || "$only" == plan) && "$plan_files" -gt 0 ]]; then
  say "[planning] PostgreSQL: loading $plan_files files (load $(load))"
  pgp=(--metastore "$pg_uri" --warehouse "$dir/wh-pg" --dataset bench.plan.files)
  run pg-load load "${pgp[@]}" --files "$plan_files"
  "$pgbin/psql" -q "$pg_uri" -c 'VACUUM ANALYZE'
  say "[planning] PostgreSQL: database $("$pgbin/psql" -qtA "$pg_uri" -c "SELECT pg_size_pretty(pg_database_size(current_database()))"); planning (load $(load))"
  "$bin" plan "${pgp[@]}" --runs "$plan_runs" >>"$results"
  tail -n 3 "$results" >&2
  "$root/scripts/pg.sh" stop "$dir/pg" >/dev/null 2>&1  # frees its disk before SQLite loads
  if [[ "$plan_sqlite" == 1 ]]; then
    say "[planning] SQLite: loading $plan_files files (load $(load))"
    lp=(--embedded "$dir/plan-sqlite" --dataset bench.plan.files)
    run sqlite-load load "${lp[@]}" --files "$plan_files"
    say "[planning] SQLite: catalog.db $(du -sh "$dir/plan-sqlite" | cut -f1); planning (load $(load))"
    "$bin" plan "${lp[@]}" --runs "$plan_runs" >>"$results"
    tail -n 3 "$results" >&2
  fi
fi

say "load average at the end: $(load)"
echo
"$bin" report "$results"
