#!/usr/bin/env bash
# Service benchmark (bench/README.md, "Service: append commits over HTTP"): append commits per
# second through `tarn serve` with 8 and 32 concurrent HTTP clients, beside the embedded library
# appending to the same metastore with the same number of threads, in the same run, on a durable
# PostgreSQL (fsync and synchronous_commit on) and on SQLite. Each append writes one small
# Parquet file (10 rows) to a local warehouse and commits it as its own snapshot. The reference
# for small appends (issue 24, goal 2) is measured in the same run on the same metastore:
# `catalog_bench commit`, commits that only register a file (no Parquet written), from the same
# number of threads. With BENCH_INLINE (default 64KiB; empty: skipped), the same embedded and
# HTTP appends also run into datasets with that inline.max_bytes, whose appends keep their file
# in the metastore (docs/design/catalog-core.md "Inlined appends").
#
# Environment: BENCH_SECONDS (default 5), BENCH_WARMUP (default 1), BENCH_CLIENTS (default
# "8 32"), BENCH_BACKENDS (default "postgres sqlite"), TARN_BENCH_SERVE_BIN (default
# build/bench/serve_bench), TARN_BENCH_CATALOG_BIN (default build/bench/catalog_bench),
# TARN_BINARY (default build/tarn), TARN_BENCH_DIR (default a temporary directory under /var/tmp,
# removed at the end).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TARN_BENCH_SERVE_BIN:-$root/build/bench/serve_bench}"
cbin="${TARN_BENCH_CATALOG_BIN:-$root/build/bench/catalog_bench}"
tarn="${TARN_BINARY:-$root/build/tarn}"
secs="${BENCH_SECONDS:-5}"
warm="${BENCH_WARMUP:-1}"
clients="${BENCH_CLIENTS:-8 32}"
backends="${BENCH_BACKENDS:-postgres sqlite}"
inline="${BENCH_INLINE-64KiB}"
for b in "$bin" "$cbin" "$tarn"; do
  [[ -x "$b" ]] || { echo "serve bench: $b is not built (run: make build)" >&2; exit 1; }
done

keep=0
if [[ -n "${TARN_BENCH_DIR:-}" ]]; then
  dir="$TARN_BENCH_DIR"
  keep=1
  mkdir -p "$dir"
else
  dir="$(mktemp -d /var/tmp/tarn-serve-bench.XXXXXX)"
fi
chmod 755 "$dir"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  TARN_PG_DIR="$dir/pg" "$root/scripts/pg.sh" stop "$dir/pg" >/dev/null 2>&1 || true
  if ((keep)); then rm -rf "$dir/pg" "$dir"/wh-* "$dir"/metastore.db*; else rm -rf "$dir"; fi
}
trap cleanup EXIT

results="$dir/results.jsonl"
: >"$results"
say() { echo "serve bench: $*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
say "machine: $(nproc) cores; load average at the start: $(load)"

stop_server() {
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}

export TARN_BOOTSTRAP_CLIENT_ID=tarn_bench_owner
export TARN_BOOTSTRAP_CLIENT_SECRET=bench-owner-secret-0123456789abcdef

# bench BACKEND METASTORE: the register-only reference, then embedded and HTTP appends, for each
# number of writers, against one `tarn serve` on METASTORE.
bench() {
  local backend="$1" metastore="$2" wh="$dir/wh-$1"
  mkdir -p "$wh"
  "$tarn" serve --metastore "$metastore" --warehouse "$wh" --listen 127.0.0.1:0 \
    --max-connections 128 --no-housekeeping 2>"$dir/serve-$backend.log" &
  server_pid=$!
  local port=""
  for _ in $(seq 1 200); do
    port="$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' \
      "$dir/serve-$backend.log" | head -n 1)"
    [[ -n "$port" ]] && break
    sleep 0.05
  done
  [[ -n "$port" ]] || { cat "$dir/serve-$backend.log" >&2; echo "serve bench: tarn serve did not start" >&2; exit 1; }
  say "$backend: tarn serve on port $port (pid $server_pid)"
  for n in $clients; do
    say "[$backend] register only (catalog_bench commit), $n threads, ${secs}s (load $(load))"
    "$cbin" commit --metastore "$metastore" --warehouse "$wh" --threads "$n" --seconds "$secs" \
      --warmup "$warm" --dataset "bench.register.c$n" --label "$backend-register-$n" >>"$results"
    tail -n 1 "$results" >&2
    say "[$backend] append, embedded, $n threads, ${secs}s (load $(load))"
    "$bin" append --metastore "$metastore" --warehouse "$wh" --clients "$n" --seconds "$secs" \
      --warmup "$warm" --dataset "bench.embedded.c$n" --label "$backend-embedded-$n" >>"$results"
    tail -n 1 "$results" >&2
    say "[$backend] append, http, $n clients, ${secs}s (load $(load))"
    TARN_CLIENT_ID="$TARN_BOOTSTRAP_CLIENT_ID" TARN_CLIENT_SECRET="$TARN_BOOTSTRAP_CLIENT_SECRET" \
      "$bin" append --url "http://127.0.0.1:$port" --clients "$n" --seconds "$secs" \
      --warmup "$warm" --dataset "bench.http.c$n" --label "$backend-http-$n" >>"$results"
    tail -n 1 "$results" >&2
    [[ -n "$inline" ]] || continue
    say "[$backend] inlined append, embedded, $n threads, ${secs}s (load $(load))"
    "$bin" append --metastore "$metastore" --warehouse "$wh" --clients "$n" --seconds "$secs" \
      --warmup "$warm" --dataset "bench.embedded_inline.c$n" --inline "$inline" \
      --label "$backend-embedded-inline-$n" >>"$results"
    tail -n 1 "$results" >&2
    say "[$backend] inlined append, http, $n clients, ${secs}s (load $(load))"
    TARN_CLIENT_ID="$TARN_BOOTSTRAP_CLIENT_ID" TARN_CLIENT_SECRET="$TARN_BOOTSTRAP_CLIENT_SECRET" \
      "$bin" append --url "http://127.0.0.1:$port" --clients "$n" --seconds "$secs" \
      --warmup "$warm" --dataset "bench.http_inline.c$n" --inline "$inline" \
      --label "$backend-http-inline-$n" >>"$results"
    tail -n 1 "$results" >&2
  done
  stop_server
}

for backend in $backends; do
  case "$backend" in
    postgres)
      TARN_PG_DURABLE=1 "$root/scripts/pg.sh" start "$dir/pg" >/dev/null
      # shellcheck disable=SC1091
      source "$dir/pg/env"
      say "PostgreSQL at $TARN_TEST_PG_URI"
      bench postgres "$TARN_TEST_PG_URI"
      TARN_PG_DIR="$dir/pg" "$root/scripts/pg.sh" stop "$dir/pg" >/dev/null 2>&1 || true
      ;;
    sqlite) bench sqlite "$dir/metastore.db" ;;
    *) echo "serve bench: unknown backend $backend (postgres, sqlite)" >&2; exit 1 ;;
  esac
done
say "load average at the end: $(load)"

f() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" <<<"$2"; }
# table EMBEDDED-LABEL HTTP-LABEL WHAT: one row per backend and number of writers.
table() {
  echo
  echo "| backend | writers | register only/s | embedded $3/s | HTTP $3/s | HTTP / embedded | embedded / register | HTTP / register | embedded p50 / p99 ms | HTTP p50 / p99 ms |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---|---|"
  for backend in $backends; do
    for n in $clients; do
      r="$(grep "\"label\":\"$backend-register-$n\"" "$results")"
      e="$(grep "\"label\":\"$backend-$1-$n\"" "$results")"
      h="$(grep "\"label\":\"$backend-$2-$n\"" "$results")"
      awk -v b="$backend" -v n="$n" -v r="$(f per_s "$r")" -v e="$(f per_s "$e")" \
        -v h="$(f per_s "$h")" -v e50="$(f p50_ms "$e")" -v e99="$(f p99_ms "$e")" \
        -v h50="$(f p50_ms "$h")" -v h99="$(f p99_ms "$h")" \
        'BEGIN { printf "| %s | %d | %.0f | %.0f | %.0f | **%.2f** | **%.2f** | **%.2f** | %.1f / %.1f | %.1f / %.1f |\n", b, n, r, e, h, h / e, e / r, h / r, e50, e99, h50, h99 }'
    done
  done
}
table embedded http appends
if [[ -n "$inline" ]]; then
  echo
  echo "Inlined appends (inline.max_bytes $inline):"
  table embedded-inline http-inline inlined
fi
