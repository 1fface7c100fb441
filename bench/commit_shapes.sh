#!/usr/bin/env bash
# What a single-round-trip commit could buy on PostgreSQL (issue 24 goal 1; bench/README.md
# "Commits from many processes"), measured without building it: pgbench replays a tarn append
# commit on tarn's own tables in two shapes, beside pgbench's one-row insert, in one run.
#
#   two: today's shape: BEGIN, the advisory lock and the locking UPDATE of the dataset row in
#        one round trip; the data_files and snapshots inserts with COMMIT in a second.
#   one: the same statements as one writable CTE (UPDATE ... RETURNING feeding both inserts)
#        with BEGIN, the lock and COMMIT pipelined: one round trip, the row held only for
#        server time and the flush.
#
# Each shape runs at 1 client and at 8 clients (8 processes, none grouping: the
# cross-process case), alternating, BENCH_ROUNDS times (default 2), BENCH_SECONDS each (5).
#
#   make build && bench/commit_shapes.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cbin="${TARN_BENCH_CATALOG_BIN:-$root/build/bench/catalog_bench}"
secs="${BENCH_SECONDS:-5}"
rounds="${BENCH_ROUNDS:-2}"
[[ -x "$cbin" ]] || { echo "commit shapes: $cbin is not built (run: make build)" >&2; exit 1; }
dir="$(mktemp -d /var/tmp/tarn-commit-shapes.XXXXXX)"
chmod 755 "$dir"
cleanup() {
  TARN_PG_DIR="$dir/pg" "$root/scripts/pg.sh" stop "$dir/pg" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
TARN_PG_DURABLE=1 "$root/scripts/pg.sh" start "$dir/pg" >/dev/null
# shellcheck disable=SC1091
source "$dir/pg/env"
uri="$TARN_TEST_PG_URI"
pgbin="$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
say() { echo "commit shapes: $*" >&2; }

# tarn's schema and one dataset (its commits also warm the tables up).
"$cbin" commit --metastore "$uri" --warehouse "$dir/wh" --threads 1 --seconds 1 --warmup 0 \
  --dataset bench.shapes.d --label setup >/dev/null
id="$("$pgbin/psql" -qtA "$uri" -c "SELECT id FROM datasets WHERE name = 'd'")"
"$pgbin/psql" -q "$uri" -c 'CREATE TABLE t (a BIGINT, b TEXT)'
printf '%s\n' "INSERT INTO t (a, b) VALUES (1, 'x');" >"$dir/insert.sql"

# A file's stats as a writer sends them: 10 columns with bounds (catalog_bench's).
stats='{"1": {"lower": "60c0f50200000000", "nulls": 0, "upper": "22f1f50200000000", "values": 10}'
for k in 2 3 4 5 6 7 8 9 10; do
  stats+=", \"$k\": {\"lower\": \"0054da75af0f0600\", \"nulls\": 0, \"upper\": \"ffaf007baf0f0600\", \"values\": 10}"
done
stats+='}'
lock="SELECT pg_advisory_xact_lock(7403, hashtext(current_schema() || '.' || 'bench.shapes.d'))"
update="UPDATE datasets SET last_snapshot_id = last_snapshot_id + 1, current_snapshot_id = last_snapshot_id + 1, next_row_id = next_row_id + 10, total_files = total_files + 1, total_records = total_records + 10, total_bytes = total_bytes + 1000, last_commit_at = CASE WHEN last_commit_at > 5 THEN last_commit_at ELSE 5 END, updated_at = 5 WHERE dropped_at IS NULL AND id = $id"
files="INSERT INTO data_files (dataset_id, path, file_format, added_snapshot_id, record_count, file_size_bytes, spec_id, partition_values, stats, first_row_id, partition_key, stats_pending)"
snaps="INSERT INTO snapshots (dataset_id, snapshot_id, parent_snapshot_id, committed_at, author, message, operation, user_created, schema_id, spec_id, added_files, deleted_files, total_files, added_records, deleted_records, total_records, added_bytes, deleted_bytes, total_bytes, receipt, idempotency_key, commit_id, sources, next_row_id)"
path="'datasets/bench/data/x/' || CAST(gen_random_uuid() AS text) || '.parquet'"
commit_id="CAST(gen_random_uuid() AS text)"
receipt="'{\"produced_by\": \"bench\", \"read_sources\": []}'"
sources="'{\"complete\": true, \"sources\": []}'"
# The file and snapshot values, given the row's snapshot id S and next row id R after the UPDATE.
file_values() { echo "$id, $path, 'parquet', $1, 10, 1000, 0, '[\"19746\"]', '$stats', $2 - 10, decode('80004d22', 'hex'), 0"; }
snap_values() { echo "$id, $1, $1 - 1, 5, 'bench', 'add 1 file', 'add_files', 1, 0, 0, 1, 0, 1, 10, 0, 10, 1000, 0, 1000, $receipt, NULL, $commit_id, $sources, $2"; }
cur_snap="(SELECT last_snapshot_id FROM datasets WHERE id = $id)"
cur_row="(SELECT next_row_id FROM datasets WHERE id = $id)"
cat >"$dir/two.sql" <<EOF
\\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
$lock;
$update RETURNING id, last_snapshot_id, next_row_id;
\\endpipeline
\\startpipeline
$files VALUES ($(file_values "$cur_snap" "$cur_row"));
$snaps VALUES ($(snap_values "$cur_snap" "$cur_row"));
COMMIT;
\\endpipeline
EOF
cat >"$dir/one.sql" <<EOF
\\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
$lock;
WITH lk AS ($update RETURNING id, last_snapshot_id AS s, next_row_id AS r), f AS ($files SELECT $(file_values lk.s lk.r) FROM lk), n AS ($snaps SELECT $(snap_values lk.s lk.r) FROM lk) SELECT s FROM lk;
COMMIT;
\\endpipeline
EOF

tps() {  # tps SCRIPT CLIENTS
  "$pgbin/pgbench" -n -M prepared -f "$1" -c "$2" -j 2 -T "$secs" "$uri" 2>&1 |
    sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -n 1
}
say "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), durable; ${secs}s per figure; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| round | clients | pgbench insert/s | two round trips/s | one round trip/s | two / insert | one / insert |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for r in $(seq 1 "$rounds"); do
  for c in 1 8; do
    ins="$(tps "$dir/insert.sql" "$c")"
    two="$(tps "$dir/two.sql" "$c")"
    one="$(tps "$dir/one.sql" "$c")"
    awk -v r="$r" -v c="$c" -v i="$ins" -v t="$two" -v o="$one" 'BEGIN {
      printf "| %d | %d | %.0f | %.0f | %.0f | %.2f | %.2f |\n", r, c, i, t, o, t / i, o / i }'
  done
done
# Both shapes committed what they should: one snapshot and one file per transaction.
"$pgbin/psql" -qtA "$uri" -c "SELECT 'snapshots ' || count(*) || ', distinct ids ' || count(DISTINCT snapshot_id) || ', files ' || (SELECT count(*) FROM data_files WHERE dataset_id = $id) FROM snapshots WHERE dataset_id = $id" >&2
