#!/usr/bin/env bash
# Installs whatever tarn needs that is missing: the Debian packages listed in
# scripts/packages.txt, Node.js with npm, and the npm packages of tests/interop (DuckDB, the
# interop and benchmark peer).
#
# Idempotent and silent when everything is present (one dpkg-query, no network). Runs
# `apt-get update` only when a package is missing. Needs root to install; without root it
# prints what is missing and fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
interop="$root/tests/interop"

log() { echo "bootstrap: $*" >&2; }
die() { log "error: $*"; exit 1; }

# --- Debian packages -------------------------------------------------------------------------
mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]\+$//' -e '/^[[:space:]]*$/d' \
  "$root/scripts/packages.txt")

# Node.js: keep whatever node/npm the machine has (it may not be Debian's); otherwise Debian's.
command -v node >/dev/null 2>&1 || wanted+=(nodejs)
command -v npm >/dev/null 2>&1 || wanted+=(npm)

# One dpkg-query for all: prints "name status" for known packages; unknown ones go to stderr.
declare -A installed=()
while read -r name status; do
  [[ "${status:1:1}" == i ]] && installed["${name%%:*}"]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${wanted[@]}" 2>/dev/null || true)

missing=()
for p in "${wanted[@]}"; do
  [[ -n "${installed[$p]:-}" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  if [[ "$(id -u)" != 0 ]]; then
    die "missing Debian packages: ${missing[*]}
  install them as root:  apt-get install -y --no-install-recommends ${missing[*]}"
  fi
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt_log="$(mktemp)"
  if ! { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } \
      >"$apt_log" 2>&1; then
    tail -n 40 "$apt_log" >&2
    rm -f "$apt_log"
    die "apt-get failed installing: ${missing[*]}"
  fi
  rm -f "$apt_log"
  log "installed ${#missing[@]} package(s)"
fi

command -v node >/dev/null 2>&1 || die "node is still missing after installing nodejs"
command -v npm >/dev/null 2>&1 || die "npm is still missing after installing npm"

# --- npm packages of tests/interop -----------------------------------------------------------
# npm writes node_modules/.package-lock.json on every install: older than package-lock.json (or
# absent) means the installed tree does not match the lock.
if [[ -f "$interop/package.json" ]]; then
  stamp="$interop/node_modules/.package-lock.json"
  lock="$interop/package-lock.json"
  if [[ ! -f "$stamp" ]] || { [[ -f "$lock" ]] && [[ "$lock" -nt "$stamp" ]]; } \
      || [[ "$interop/package.json" -nt "$stamp" ]]; then
    if [[ -f "$lock" ]]; then cmd=(npm ci); else cmd=(npm install); fi
    log "installing npm packages in tests/interop (${cmd[*]})"
    npm_log="$(mktemp)"
    if ! (cd "$interop" && "${cmd[@]}" --no-audit --no-fund --loglevel=error) >"$npm_log" 2>&1; then
      tail -n 40 "$npm_log" >&2
      rm -f "$npm_log"
      die "${cmd[*]} failed in tests/interop"
    fi
    rm -f "$npm_log"
    touch "$stamp"
  fi
fi

# --- DuckDB's C API: tarn sql's engine (src/sql) ---------------------------------------------
# Debian has no DuckDB package. The library comes from the npm package that @duckdb/node-api
# uses (the same version as tests/interop), the C API header from the `duckdb` package's
# sources (the C API is stable between the two versions; src/sql uses only functions present
# in both). Both go to one directory outside the source tree: TARN_DUCKDB_DIR, else
# /opt/tarn/duckdb as root, else ~/.cache/tarn/duckdb; CMake looks in the same places
# (cmake/duckdb.cmake). `npm pack` fetches the tarballs without running any install script.
duckdb_lib_pkg="@duckdb/node-bindings-linux-x64@1.5.6-r.1"
[[ "$(uname -m)" == aarch64 ]] && duckdb_lib_pkg="@duckdb/node-bindings-linux-arm64@1.5.6-r.1"
duckdb_hdr_pkg="duckdb@1.4.4"
if [[ -n "${TARN_DUCKDB_DIR:-}" ]]; then
  duckdb_dir="$TARN_DUCKDB_DIR"
elif [[ "$(id -u)" == 0 ]]; then
  duckdb_dir=/opt/tarn/duckdb
else
  duckdb_dir="${XDG_CACHE_HOME:-$HOME/.cache}/tarn/duckdb"
fi
duckdb_want="$duckdb_lib_pkg $duckdb_hdr_pkg"
if [[ "$(cat "$duckdb_dir/VERSION" 2>/dev/null)" != "$duckdb_want" ]] \
    || [[ ! -f "$duckdb_dir/lib/libduckdb.so" ]] || [[ ! -f "$duckdb_dir/include/duckdb.h" ]]; then
  log "installing DuckDB's C API into $duckdb_dir ($duckdb_want)"
  work="$(mktemp -d)"
  if ! (cd "$work" && npm pack "$duckdb_lib_pkg" "$duckdb_hdr_pkg" --loglevel=error) \
      >"$work/npm.log" 2>&1; then
    tail -n 20 "$work/npm.log" >&2
    rm -rf "$work"
    die "npm pack $duckdb_want failed"
  fi
  (cd "$work" && tar xzf duckdb-node-bindings-linux-*.tgz package/libduckdb.so \
     && tar xzf duckdb-1.4.4.tgz package/src/duckdb/src/include/duckdb.h) \
    || { rm -rf "$work"; die "unpacking DuckDB failed"; }
  mkdir -p "$duckdb_dir/lib" "$duckdb_dir/include"
  install -m 0644 "$work/package/libduckdb.so" "$duckdb_dir/lib/libduckdb.so"
  install -m 0644 "$work/package/src/duckdb/src/include/duckdb.h" "$duckdb_dir/include/duckdb.h"
  echo "$duckdb_want" >"$duckdb_dir/VERSION"
  rm -rf "$work"
fi
