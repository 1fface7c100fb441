#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build (the `fuzz` preset) over its seed corpus.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      default 60
#
# Environment: TARN_FUZZ_BUILD_DIR (default build-fuzz), TARN_FUZZ_TARGETS (names to run; default
# all). Seeds come from fuzz/corpus/<name>/ (target <name>_fuzz) and are never modified: inputs
# the fuzzer finds go to <build>/fuzz-corpus/<target>/, which persists between local runs. A
# crash, sanitizer report, leak, timeout or out-of-memory leaves the input in
# <build>/fuzz-artifacts/<target>/ (emptied at each run) and fails the run; reproduce it with
# `<build>/fuzz/<target> <that file>`.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
build="${TARN_FUZZ_BUILD_DIR:-$root/build-fuzz}"
[[ "$build" = /* ]] || build="$root/$build"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

shopt -s nullglob
targets=()
if [[ -n "${TARN_FUZZ_TARGETS:-}" ]]; then
  for t in $TARN_FUZZ_TARGETS; do targets+=("$build/fuzz/$t"); done
else
  targets=("$build"/fuzz/*_fuzz)
fi
if ((${#targets[@]} == 0)); then
  echo "fuzz: no fuzz targets in $build/fuzz (build them with: make fuzz)" >&2
  exit 1
fi

passed=0
failed=0
for exe in "${targets[@]}"; do
  name="$(basename "$exe")"
  if [[ ! -x "$exe" ]]; then
    echo "fuzz: $name: not built" >&2
    failed=$((failed + 1))
    continue
  fi
  seeds="$root/fuzz/corpus/${name%_fuzz}"
  work="$build/fuzz-corpus/$name"
  artifacts="$build/fuzz-artifacts/$name"
  log="$build/fuzz-logs/$name.log"
  rm -rf "$artifacts"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  corpora=("$work")
  [[ -d "$seeds" ]] && corpora+=("$seeds")

  # -timeout: one input taking this long is a hang. -rss_limit_mb also caps single allocations
  # (malloc_limit_mb defaults to it), so a reader that trusts a declared size is caught.
  start=$SECONDS
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${corpora[@]}" </dev/null >"$log" 2>&1
  rc=$?
  runs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -n1 | grep -o '[0-9]*$')"
  cov="$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | grep -o '[0-9]*$')"
  summary="$((SECONDS - start)) s, ${runs:-?} runs, cov ${cov:-?}, corpus $(find "$work" -type f | wc -l) new inputs"
  if ((rc == 0)); then
    echo "fuzz: $name: ok ($summary)"
    passed=$((passed + 1))
  else
    echo "fuzz: $name: FAILED with exit code $rc ($summary); log: $log" >&2
    tail -n 60 "$log" >&2
    for a in "$artifacts"/*; do echo "fuzz: reproduce with: $exe $a" >&2; done
    failed=$((failed + 1))
  fi
done

echo "fuzz: $passed passed, $failed failed"
((failed == 0))
