#!/usr/bin/env bash
# tarn's walk-through on the embedded default: writes a sample dataset with tarn's own Parquet
# writer and shows what is in it. `make demo` builds first and then runs this.
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
  printf '\n\033[1m== %s\033[0m\n' "$1"
  printf '$ %s\n' "${*:2}"
  "${@:2}"
}
[[ -t 1 && -z "${NO_COLOR:-}" ]] || step() {
  printf '\n== %s\n$ %s\n' "$1" "${*:2}"
  "${@:2}"
}

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
if [[ -n "${TARN_DEMO_DIR:-}" ]]; then
  printf '\ndemo: done; the file is %s\n' "$file"
else
  printf '\ndemo: done (set TARN_DEMO_DIR=DIR to keep the files)\n'
fi
