#!/usr/bin/env bash
# Runs a command against a fresh single-node Ceph RGW (scripts/rgw.sh) on 127.0.0.1:
#
#   tests/run_with_rgw.sh COMMAND [ARGS...]
#
# Starts the gateway in a new temporary directory, exports its endpoint and credentials
# (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, TARN_S3_TEST_BUCKET)
# and TARN_S3_TEST=1, which tells the S3 tests they must run (an unreachable gateway then fails
# them instead of skipping them), runs COMMAND, and stops the gateway whatever happens. Exits
# with COMMAND's status, or 1 if the gateway could not be started.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if (($# == 0)); then
  echo "usage: tests/run_with_rgw.sh COMMAND [ARGS...]" >&2
  exit 2
fi

# Under /tmp, not the build tree: Ceph's admin sockets need short paths.
dir="$(mktemp -d /tmp/tarn-rgw-test.XXXXXX)"
cleanup() { "$root/scripts/rgw.sh" stop "$dir" >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! env_lines="$("$root/scripts/rgw.sh" start "$dir")"; then
  echo "run_with_rgw: the Ceph RGW did not start (see the messages above)" >&2
  exit 1
fi
eval "$env_lines"
export TARN_S3_TEST=1
"$@"
