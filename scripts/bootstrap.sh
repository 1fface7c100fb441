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
