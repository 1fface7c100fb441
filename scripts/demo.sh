#!/usr/bin/env bash
# tarn's walk-through on the embedded default: a catalog in a directory (SQLite + local
# warehouse); a CSV pushed to a new dataset with declared types (after a plan of what inference
# would make of it, and the refusal of an inferred push that nobody accepted), NDJSON pushed to
# it as a second snapshot, snapshots, files, time travel, a delete and the change feed; then
# `tarn convert` and tarn's own Parquet tools on a sample file, and where the full-screen app
# opens. Runs off a terminal without prompting. `make demo` builds first and then runs this.
#
# Environment: TARN_BIN (default build/tarn), TARN_DEMO_DIR (default a new temporary directory,
# removed at the end), TARN_DEMO_ROWS (default 1000).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tarn="${TARN_BIN:-$root/build/tarn}"
rows="${TARN_DEMO_ROWS:-1000}"
if [[ -n "${TARN_DEMO_DIR:-}" ]]; then
  dir="$TARN_DEMO_DIR"
  mkdir -p "$dir"
else
  dir="$(mktemp -d "${TMPDIR:-/tmp}/tarn-demo.XXXXXX")"
  trap 'rm -rf "$dir"' EXIT
fi
[[ -x "$tarn" ]] || { echo "demo: $tarn is not built (run: make build)" >&2; exit 1; }

file="$dir/sample.parquet"
step() {
  [[ -z "$1" ]] || printf '\n\033[1m== %s\033[0m\n' "$1"
  printf '$ %s\n' "${*:2}"
  "${@:2}"
}
[[ -t 1 && -z "${NO_COLOR:-}" ]] || step() {
  [[ -z "$1" ]] || printf '\n== %s\n' "$1"
  printf '$ %s\n' "${*:2}"
  "${@:2}"
}

cat="$dir/catalog"
export TARN_CATALOG="$cat" TARN_AUTHOR="demo"
cat >"$dir/orders-jan.csv" <<'CSV'
id,ts,region,amount
1,2026-01-03 09:15:00,eu,19.99
2,2026-01-03 10:02:00,us,5.00
3,2026-01-17 18:40:00,eu,120.50
4,2026-02-01 08:00:00,apac,42.00
CSV
cat >"$dir/orders-feb.ndjson" <<'JSON'
{"id": 5, "ts": "2026-02-11T12:00:00", "region": "us", "amount": 7.25}
{"id": 6, "ts": "2026-02-12T13:30:00", "region": "eu", "amount": 64.00}
JSON

step "A workspace and a collection in an embedded catalog ($cat)" \
  "$tarn" workspace create shop
step "" "$tarn" collection create shop.sales
step "What a push would infer from the CSV (plan: negotiate, print, abandon; nothing is written)" \
  "$tarn" plan "$dir/orders-jan.csv" --to shop.sales.orders
printf '$ %s\n' "$tarn push $dir/orders-jan.csv --to shop.sales.orders </dev/null   # no --yes"
if "$tarn" push "$dir/orders-jan.csv" --to shop.sales.orders </dev/null; then
  echo "demo: an inferred push off a terminal should have been refused" >&2
  exit 1
else
  printf '(refused with exit %s: inferred types need --yes, --declare or a person at a terminal)\n' "$?"
fi
step "Push the CSV to a new dataset with declared types: one contract, one snapshot" \
  "$tarn" push "$dir/orders-jan.csv" --to shop.sales.orders \
  --declare id:INT64 --declare 'ts:TIMESTAMP[us]' --declare region:VARCHAR \
  --declare 'amount:DECIMAL(10,2)' -m "January orders"
step "Partition new data by region and month, sorted by id" \
  "$tarn" dataset partition shop.sales.orders 'region, month(ts)'
step "" "$tarn" dataset sort shop.sales.orders id
step "Push NDJSON to the existing dataset: its types are used, the conversions are listed" \
  "$tarn" push "$dir/orders-feb.ndjson" --to shop.sales.orders -m "February orders"
step "Snapshots" "$tarn" snapshots shop.sales.orders
step "Live files with partition values and row-id ranges" "$tarn" files shop.sales.orders
step "Files that can hold EU orders from February on (pruned on partitions and bounds)" \
  "$tarn" files shop.sales.orders --where "region = 'eu' AND ts >= '2026-02-01'"
step "Scan the dataset as of the first snapshot (time travel)" \
  "$tarn" scan shop.sales.orders --at 1
step "Delete small orders (deletion vectors: rows stay in their files, reads skip them)" \
  "$tarn" delete shop.sales.orders --where 'amount < 10'
step "Scan the current state" "$tarn" scan shop.sales.orders
step "The change feed since snapshot 1" "$tarn" changes shop.sales.orders --from 1
step "SQL over the dataset (DuckDB in the tarn process): totals by region, deletes applied" \
  "$tarn" sql 'SELECT region, count(*) AS orders, sum(amount) AS total
               FROM shop.sales.orders GROUP BY region ORDER BY region'
step "The same as of snapshot 1, before the delete (time travel in SQL)" \
  "$tarn" sql "SELECT region, count(*) AS orders, sum(amount) AS total
               FROM tarn_scan('shop.sales.orders', snapshot := 1) GROUP BY region ORDER BY region"
step "Write the totals back as a dataset: one snapshot, its receipt names what it read" \
  "$tarn" sql 'SELECT region, sum(amount) AS total FROM shop.sales.orders GROUP BY region' \
  --into shop.sales.totals --create -m "totals by region"
step "Convert the CSV to Parquet without a catalog, types inferred" \
  "$tarn" convert "$dir/orders-jan.csv" "$dir/orders-jan.parquet" --infer
step "" "$tarn" parquet cat "$dir/orders-jan.parquet"

step "Write $rows sample rows as Parquet with tarn's writer (ZSTD)" \
  "$tarn" parquet write-sample "$file" --rows "$rows"
step "Schema: tarn types, Parquet physical and logical types, field ids" \
  "$tarn" parquet schema "$file"
step "Metadata: row groups, column chunks, encodings, codec, sizes, statistics" \
  "$tarn" parquet meta "$file"
step "The first 10 rows" \
  "$tarn" parquet cat "$file" --limit 10
step "The first 3 rows as JSON lines" \
  "$tarn" parquet cat "$file" --limit 3 --json
printf '\n== The full-screen upload app: tarn alone at a terminal\n$ %s </dev/null\n' "$tarn"
"$tarn" </dev/null 2>&1 | head -n 2 || true
printf '(off a terminal it prints the usage and exits 2; at a terminal `%s` or\n' "$tarn"
printf ' `%s tui FILE... --to W.C.D` opens the app on this catalog: c sign in, a add files,\n' "$tarn"
printf ' n negotiate, e retype, x ignore, Enter accept, u upload, q quit)\n'
if [[ -n "${TARN_DEMO_DIR:-}" ]]; then
  printf '\ndemo: done; the file is %s\n' "$file"
else
  printf '\ndemo: done (set TARN_DEMO_DIR=DIR to keep the files)\n'
fi
