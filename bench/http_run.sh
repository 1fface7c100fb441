#!/usr/bin/env bash
# HTTP transport benchmark (bench/README.md, "Service: the HTTP transport"): for each `tarn`
# binary given (TARN_BINARIES, default build/tarn; give an older build too to compare in the
# same run), one `tarn serve` on PostgreSQL (fsync on) with a local warehouse, then
#   - authenticated reads: wrk, GET of a dataset's metadata with a bearer token, and GET
#     /v1/whoami (the token check alone: the transport's own cost), at 50 and 200 connections
#     (2 threads, BENCH_SECONDS each);
#   - small appends: serve_bench append (10-row commits) from 50 and 200 clients;
#   - slowloris: 1,000 connections trickling a request head one byte a second while a normal
#     client asks GET /livez and GET /v1/whoami every 200 ms on fresh connections (latency of
#     its answers; 0 answered = locked out).
# Environment: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default "50 200"),
# TARN_BINARIES (space-separated tarn executables), TARN_BENCH_SERVE_BIN (default
# build/bench/serve_bench), TARN_BENCH_DIR (default a temporary directory, removed at the end).
# Needs wrk (scripts/packages.txt) and node (tests/interop/slowloris.mjs).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench_bin="${TARN_BENCH_SERVE_BIN:-$root/build/bench/serve_bench}"
read -r -a binaries <<<"${TARN_BINARIES:-$root/build/tarn}"
secs="${BENCH_SECONDS:-10}"
conns="${BENCH_CONNECTIONS:-50 200}"
for b in "$bench_bin" "${binaries[@]}"; do
  [[ -x "$b" ]] || { echo "http bench: $b is not built (run: make build)" >&2; exit 1; }
done
command -v wrk >/dev/null || { echo "http bench: wrk is missing (scripts/bootstrap.sh)" >&2; exit 1; }

dir="${TARN_BENCH_DIR:-$(mktemp -d /var/tmp/tarn-http-bench.XXXXXX)}"
mkdir -p "$dir"
chmod 755 "$dir"
server_pid=""
stop_server() {
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
cleanup() {
  stop_server
  TARN_PG_DIR="$dir/pg" "$root/scripts/pg.sh" stop "$dir/pg" >/dev/null 2>&1 || true
  [[ -n "${TARN_BENCH_DIR:-}" ]] || rm -rf "$dir"
}
trap cleanup EXIT
say() { echo "http bench: $*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
say "machine: $(nproc) cores; load average at the start: $(load)"

TARN_PG_DURABLE=1 "$root/scripts/pg.sh" start "$dir/pg" >/dev/null
# shellcheck disable=SC1091
source "$dir/pg/env"
pg_uri="$TARN_TEST_PG_URI"
export TARN_BOOTSTRAP_CLIENT_ID=tarn_bench_owner
export TARN_BOOTSTRAP_CLIENT_SECRET=bench-owner-secret-0123456789abcdef
results="$dir/results.jsonl"
: >"$results"

i=0
for tarn in "${binaries[@]}"; do
  i=$((i + 1))
  label="b$i"
  mkdir -p "$dir/wh$i"
  # A thread-per-connection server (no --workers flag) needs 200 connection threads; the
  # current one runs with its defaults.
  extra=()
  if ! "$tarn" serve --help 2>&1 | grep -q -- '--workers'; then extra=(--max-connections 256); fi
  "$tarn" serve --metastore "$pg_uri" --warehouse "$dir/wh$i" --listen 127.0.0.1:0 \
    "${extra[@]}" 2>"$dir/serve$i.log" &
  server_pid=$!
  port=""
  for _ in $(seq 1 200); do
    port="$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/serve$i.log" | head -n 1)"
    [[ -n "$port" ]] && break
    sleep 0.05
  done
  [[ -n "$port" ]] || { cat "$dir/serve$i.log" >&2; exit 1; }
  url="http://127.0.0.1:$port"
  say "[$label] $tarn serving on $port"
  export TARN_CLIENT_ID="$TARN_BOOTSTRAP_CLIENT_ID" TARN_CLIENT_SECRET="$TARN_BOOTSTRAP_CLIENT_SECRET"
  "$tarn" workspace create "r$i" --catalog "$url" >/dev/null
  "$tarn" collection create "r$i.c" --catalog "$url" >/dev/null
  "$tarn" dataset create "r$i.c.d" --schema 'id INT64 NOT NULL, v VARCHAR' --catalog "$url" >/dev/null
  token="$(curl -s -X POST "$url/v1/token" -d grant_type=client_credentials \
    -d "client_id=$TARN_CLIENT_ID" -d "client_secret=$TARN_CLIENT_SECRET" |
    sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')"
  [[ -n "$token" ]] || { echo "http bench: no token" >&2; exit 1; }
  # read: a dataset's metadata (token check, one metastore read); whoami: the token check
  # alone, which measures the transport itself.
  read_path="/v1/workspaces/r$i/collections/c/datasets/d"
  for c in $conns; do
    for kind in read whoami; do
      path="$read_path"
      [[ "$kind" == whoami ]] && path="/v1/whoami"
      say "[$label] $kind, $c connections, ${secs}s (load $(load))"
      out="$(wrk -t 2 -c "$c" -d "${secs}s" -H "Authorization: Bearer $token" "$url$path")"
      rps="$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' <<<"$out")"
      non2xx="$(sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' <<<"$out")"
      errors="$(sed -n 's/.*Socket errors: \(.*\)/\1/p' <<<"$out")"
      echo "{\"label\":\"$label-$kind-$c\",\"per_s\":${rps:-0},\"non2xx\":${non2xx:-0},\"errors\":\"${errors:-}\"}" >>"$results"
      tail -n 1 "$results" >&2
    done
    say "[$label] append, $c clients, ${secs}s (load $(load))"
    "$bench_bin" append --url "$url" --clients "$c" --seconds "$secs" --warmup 1 \
      --dataset "r$i.c.a$c" --label "$label-append-$c" >>"$results"
    tail -n 1 "$results" >&2
  done
  say "[$label] slowloris: 1000 slow connections, ${secs}s (load $(load))"
  (cd "$root/tests/interop" && node slowloris.mjs "$port" 1000 "$secs" "$token") |
    sed "s/^{/{\"label\":\"$label-slowloris\",/" >>"$results"
  tail -n 1 "$results" >&2
  stop_server
done
say "load average at the end: $(load)"
cat "$results"
