#!/usr/bin/env bash
# Service benchmark (bench/README.md, "Service: append commits over HTTP"): append commits per
# second through `tarn serve` on PostgreSQL (fsync and synchronous_commit on) with 8 and 32
# concurrent HTTP clients, beside the embedded library appending to the same database with the
# same number of threads, in the same run. Each commit writes one small Parquet file (10 rows)
# to a local warehouse and commits it as its own snapshot.
#
# Environment: BENCH_SECONDS (default 5), BENCH_WARMUP (default 1), BENCH_CLIENTS (default
# "8 32"), TARN_BENCH_SERVE_BIN (default build/bench/serve_bench), TARN_BINARY (default
# build/tarn), TARN_BENCH_DIR (default a temporary directory under /var/tmp, removed at the end).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TARN_BENCH_SERVE_BIN:-$root/build/bench/serve_bench}"
tarn="${TARN_BINARY:-$root/build/tarn}"
secs="${BENCH_SECONDS:-5}"
warm="${BENCH_WARMUP:-1}"
clients="${BENCH_CLIENTS:-8 32}"
for b in "$bin" "$tarn"; do
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
  if ((keep)); then rm -rf "$dir/pg" "$dir/wh"; else rm -rf "$dir"; fi
}
trap cleanup EXIT

results="$dir/results.jsonl"
: >"$results"
say() { echo "serve bench: $*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
say "machine: $(nproc) cores; load average at the start: $(load)"

TARN_PG_DURABLE=1 "$root/scripts/pg.sh" start "$dir/pg" >/dev/null
# shellcheck disable=SC1091
source "$dir/pg/env"
pg_uri="$TARN_TEST_PG_URI"
mkdir -p "$dir/wh"

export TARN_BOOTSTRAP_CLIENT_ID=tarn_bench_owner
export TARN_BOOTSTRAP_CLIENT_SECRET=bench-owner-secret-0123456789abcdef
"$tarn" serve --metastore "$pg_uri" --warehouse "$dir/wh" --listen 127.0.0.1:0 \
  --max-connections 128 2>"$dir/serve.log" &
server_pid=$!
port=""
for _ in $(seq 1 200); do
  port="$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/serve.log" | head -n 1)"
  [[ -n "$port" ]] && break
  sleep 0.05
done
[[ -n "$port" ]] || { cat "$dir/serve.log" >&2; echo "serve bench: tarn serve did not start" >&2; exit 1; }
say "tarn serve on port $port (pid $server_pid), PostgreSQL at $pg_uri"

for n in $clients; do
  say "[append] embedded, $n threads, ${secs}s (load $(load))"
  "$bin" append --metastore "$pg_uri" --warehouse "$dir/wh" --clients "$n" --seconds "$secs" \
    --warmup "$warm" --dataset "bench.embedded.c$n" --label "embedded-$n" >>"$results"
  tail -n 1 "$results" >&2
  say "[append] http, $n clients, ${secs}s (load $(load))"
  TARN_CLIENT_ID="$TARN_BOOTSTRAP_CLIENT_ID" TARN_CLIENT_SECRET="$TARN_BOOTSTRAP_CLIENT_SECRET" \
    "$bin" append --url "http://127.0.0.1:$port" --clients "$n" --seconds "$secs" \
    --warmup "$warm" --dataset "bench.http.c$n" --label "http-$n" >>"$results"
  tail -n 1 "$results" >&2
done
say "load average at the end: $(load)"

echo
echo "| clients | embedded commits/s | HTTP commits/s | ratio | embedded p50 / p99 ms | HTTP p50 / p99 ms |"
echo "|---|---|---|---|---|---|"
for n in $clients; do
  e="$(grep "\"label\":\"embedded-$n\"" "$results")"
  h="$(grep "\"label\":\"http-$n\"" "$results")"
  f() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" <<<"$2"; }
  awk -v n="$n" -v e="$(f per_s "$e")" -v h="$(f per_s "$h")" -v e50="$(f p50_ms "$e")" \
    -v e99="$(f p99_ms "$e")" -v h50="$(f p50_ms "$h")" -v h99="$(f p99_ms "$h")" \
    'BEGIN { printf "| %d | %.0f | %.0f | %.2f | %.1f / %.1f | %.1f / %.1f |\n", n, e, h, h / e, e50, e99, h50, h99 }'
done
