#!/usr/bin/env bash
# Runs a command against a fresh throwaway PostgreSQL (scripts/pg.sh) on 127.0.0.1:
#
#   tests/run_with_pg.sh COMMAND [ARGS...]
#
# Starts the server in a new temporary directory (on tmpfs when /dev/shm is usable), exports
# TARN_TEST_PG_URI, which tells the PostgreSQL tests they must run (an unreachable server then
# fails them instead of skipping them), runs COMMAND, and stops the server whatever happens.
# Exits with COMMAND's status, or 1 if the server could not be started.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if (($# == 0)); then
  echo "usage: tests/run_with_pg.sh COMMAND [ARGS...]" >&2
  exit 2
fi

base=/tmp
if [[ -d /dev/shm && -w /dev/shm ]]; then base=/dev/shm; fi
dir="$(mktemp -d "$base/tarn-pg-test.XXXXXX")"
chmod 755 "$dir"
cleanup() { "$root/scripts/pg.sh" stop "$dir" >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! env_lines="$("$root/scripts/pg.sh" start "$dir")"; then
  echo "run_with_pg: PostgreSQL did not start (see the messages above)" >&2
  exit 1
fi
eval "$env_lines"
"$@"
