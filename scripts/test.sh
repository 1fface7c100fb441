#!/usr/bin/env bash
# Everything `make test` and CI run, in order:
#   1. scripts/bootstrap.sh (missing Debian and npm packages)
#   2. Release build (build/) and every ctest suite there: unit and integration
#   3. ASan+UBSan build (build-asan/) and the unit suite and the Python suite under it
#   4. libFuzzer build (build-fuzz/) and a short run of every fuzz target over its seeds
# A failing phase does not stop the later ones (one run shows every problem); the script exits
# non-zero if anything failed and ends with a summary whose last line is "tarn: N passed, N failed".
#
# Environment:
#   TARN_TEST_PHASES   phases to run, default "release asan fuzz"
#   TARN_BUILD_PREFIX  build directory prefix, default "build" (build, build-asan, build-fuzz)
#   TARN_JOBS          parallel compile jobs, default 2
#   TARN_FUZZ_SECONDS  fuzzing time per target, default 30
#   CTEST_ARGS         extra arguments for every ctest run (e.g. "-R parquet")
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 1

phases="${TARN_TEST_PHASES:-release asan fuzz}"
prefix="${TARN_BUILD_PREFIX:-build}"
jobs="${TARN_JOBS:-2}"
fuzz_seconds="${TARN_FUZZ_SECONDS:-30}"
read -r -a ctest_args <<<"${CTEST_ARGS:-}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export CTEST_OUTPUT_ON_FAILURE=1

summary=()
total_passed=0
total_failed=0
any_failed=0
logdir="$(mktemp -d)"
trap 'rm -rf "$logdir"' EXIT

heading() { printf '\n==== %s ====\n' "$*"; }

# record NAME START STATUS [DETAIL]
record() {
  local name="$1" start="$2" status="$3" detail="${4:-}"
  local secs=$((SECONDS - start))
  local line
  line="$(printf '  %-16s %5d s  %-6s %s' "$name" "$secs" "$status" "$detail")"
  summary+=("${line%"${line##*[![:space:]]}"}")
  if [[ "$status" != ok ]]; then any_failed=1; fi
}

# build PRESET DIR [TARGET...]: configure with a preset into DIR and build.
build() {
  local preset="$1" dir="$2"
  shift 2
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  local log="$logdir/configure-$preset.log"
  # -Werror in every build: g++ (release, asan) and clang (fuzz).
  cmake --preset "$preset" -B "$dir" -DCMAKE_COLOR_DIAGNOSTICS=OFF -DTARN_WERROR=ON >"$log" 2>&1 \
    || { cat "$log"; return 1; }
  # -k 0: keep building the other targets after a failure, so the suites that did build still run.
  cmake --build "$dir" -j "$jobs" "${targets[@]}" -- -k 0
}

# run_ctest NAME DIR [ARGS...]: runs ctest, adds its counts to the totals.
run_ctest() {
  local name="$1" dir="$2"
  shift 2
  local start=$SECONDS log="$logdir/ctest-$name.log"
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$jobs" "$@" "${ctest_args[@]}" \
    2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line total="?" failed=0
  line="$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n1)"
  if [[ -n "$line" ]]; then
    failed="$(sed -E 's/.* ([0-9]+) tests? failed out of.*/\1/' <<<"$line")"
    total="$(sed -E 's/.*failed out of ([0-9]+).*/\1/' <<<"$line")"
    total_passed=$((total_passed + total - failed))
    total_failed=$((total_failed + failed))
  fi
  if ((rc == 0)); then
    record "$name" "$start" ok "$total tests"
  else
    record "$name" "$start" FAILED "$failed of $total tests failed (ctest exit $rc)"
    # A failure ctest did not count as a test (no tests found, a crash of ctest itself).
    ((failed > 0)) || total_failed=$((total_failed + 1))
  fi
}

heading "bootstrap"
start=$SECONDS
if ! scripts/bootstrap.sh; then
  echo "test: bootstrap failed; nothing was built" >&2
  echo "tarn: 0 passed, 1 failed"
  exit 1
fi
record bootstrap "$start" ok

for phase in $phases; do
  case "$phase" in
    release)
      heading "Release build ($prefix/)"
      start=$SECONDS
      if build release "$prefix"; then
        record "release build" "$start" ok
      else
        record "release build" "$start" FAILED "(the suites that built still run)"
        total_failed=$((total_failed + 1))
      fi
      if [[ -f "$prefix/CTestTestfile.cmake" ]]; then
        heading "tests: every suite ($prefix/)"
        run_ctest "release tests" "$prefix"
      fi
      ;;
    asan)
      heading "ASan+UBSan build ($prefix-asan/)"
      start=$SECONDS
      if build asan "$prefix-asan"; then
        record "asan build" "$start" ok
      else
        record "asan build" "$start" FAILED "(the suites that built still run)"
        total_failed=$((total_failed + 1))
      fi
      if [[ -f "$prefix-asan/CTestTestfile.cmake" ]]; then
        heading "tests: unit and Python suites under ASan+UBSan ($prefix-asan/)"
        run_ctest "asan tests" "$prefix-asan" -L 'unit|python'
      fi
      ;;
    fuzz)
      heading "libFuzzer build ($prefix-fuzz/)"
      start=$SECONDS
      if build fuzz "$prefix-fuzz" tarn_fuzz; then
        record "fuzz build" "$start" ok
      else
        record "fuzz build" "$start" FAILED "(the targets that built still run)"
        total_failed=$((total_failed + 1))
      fi
      if [[ -d "$prefix-fuzz/fuzz" ]]; then
        heading "fuzz: ${fuzz_seconds} s per target"
        start=$SECONDS
        TARN_FUZZ_BUILD_DIR="$prefix-fuzz" scripts/fuzz.sh "$fuzz_seconds" 2>&1 \
          | tee "$logdir/fuzz.log"
        rc=${PIPESTATUS[0]}
        line="$(grep -E '^fuzz: [0-9]+ passed, [0-9]+ failed' "$logdir/fuzz.log" | tail -n1)"
        p=0
        f=0
        if [[ -n "$line" ]]; then
          p="$(sed -E 's/^fuzz: ([0-9]+) passed.*/\1/' <<<"$line")"
          f="$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")"
        fi
        total_passed=$((total_passed + p))
        total_failed=$((total_failed + f))
        if ((rc == 0)); then
          record "fuzz run" "$start" ok "$p targets"
        else
          record "fuzz run" "$start" FAILED "$f targets failed"
          ((f > 0)) || total_failed=$((total_failed + 1))
        fi
      fi
      ;;
    *)
      echo "test: unknown phase '$phase' (known: release asan fuzz)" >&2
      exit 2
      ;;
  esac
done

heading "summary"
printf '%s\n' "${summary[@]}"
echo "  total            $(printf '%5d' "$SECONDS") s"
if ((any_failed)); then
  echo "test: FAILED (see the phases above marked FAILED)"
else
  echo "test: all phases passed"
fi
echo "tarn: $total_passed passed, $total_failed failed"
exit "$any_failed"
