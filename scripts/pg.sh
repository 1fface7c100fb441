#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests on 127.0.0.1 (Debian's `postgresql` package,
# scripts/packages.txt): one data directory under DIR, a free TCP port, a unix socket in DIR,
# trust authentication for the superuser `tarn`, a database `tarn_test`. Nothing registered
# system-wide.
#
#   scripts/pg.sh start [DIR]   start (or reuse the server running in DIR); prints `export` lines
#   scripts/pg.sh env [DIR]     print the `export` lines of the server running in DIR
#   scripts/pg.sh status [DIR]  exit 0 when the server in DIR accepts connections
#   scripts/pg.sh stop [DIR]    stop it (pg_ctl -m fast) and remove DIR
#
# DIR defaults to $TARN_PG_DIR, else /tmp/tarn-pg-$UID. The export lines set TARN_TEST_PG_URI
# (postgresql://tarn@127.0.0.1:PORT/tarn_test) and TARN_PG_DIR, and are also written to DIR/env.
# For tests the server runs with fsync=off and full_page_writes=off (a crash of the machine may
# lose it, which a throwaway server may); TARN_PG_DURABLE=1 keeps PostgreSQL's durable defaults
# (benchmarks). Run as root, the server runs as the `postgres` user (initdb refuses root).
# Typical use:
#   eval "$(scripts/pg.sh start)"; ...; scripts/pg.sh stop
set -euo pipefail

cmd="${1:-}"
dir="${2:-${TARN_PG_DIR:-/tmp/tarn-pg-$(id -u)}}"
db_user="tarn"
db_name="tarn_test"

log() { echo "pg: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

usage() {
  sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# The newest installed server's binaries (Debian keeps them out of PATH).
pg_bin() {
  local d
  d="$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  [[ -n "$d" && -x "$d/pg_ctl" ]] || die "PostgreSQL server binaries not found (apt-get install postgresql)"
  echo "$d"
}

# as_pg CMD...: runs CMD as the server's owner (postgres when we are root).
as_pg() {
  if (($(id -u) == 0)); then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # free_port

print_env() {
  local port
  port="$(<"$dir/port")"
  cat <<EOF
export TARN_TEST_PG_URI=postgresql://$db_user@127.0.0.1:$port/$db_name
export TARN_PG_DIR=$dir
EOF
}

running() {
  [[ -s "$dir/port" && -d "$dir/data" ]] || return 1
  "$(pg_bin)/pg_isready" -q -h 127.0.0.1 -p "$(<"$dir/port")" -t 2 >/dev/null 2>&1
}

start() {
  local bin port opts i
  if running; then
    print_env | tee "$dir/env"
    return 0
  fi
  bin="$(pg_bin)"
  mkdir -p "$dir"
  if (($(id -u) == 0)); then
    id postgres >/dev/null 2>&1 || die "no postgres user (is the postgresql package installed?)"
    chown postgres "$dir"
  fi
  if [[ ! -f "$dir/data/PG_VERSION" ]]; then
    as_pg mkdir -p "$dir/data" "$dir/sock"
    as_pg "$bin/initdb" -D "$dir/data" -U "$db_user" --auth=trust -E UTF8 --locale=C \
      >"$dir/initdb.log" 2>&1 || die "initdb failed: $(tail -n 5 "$dir/initdb.log")"
  fi
  opts="-c listen_addresses=127.0.0.1 -k $dir/sock"
  if [[ "${TARN_PG_DURABLE:-0}" != 1 ]]; then
    opts="$opts -c fsync=off -c full_page_writes=off"
  fi
  for i in 1 2 3; do
    port="$(free_port)"
    if as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 60 \
      -o "-p $port $opts" start >/dev/null 2>&1; then
      echo "$port" >"$dir/port"
      break
    fi
    log "start on port $port failed (attempt $i): $(tail -n 3 "$dir/data/server.log" 2>/dev/null)"
    port=""
  done
  [[ -n "$port" ]] || die "PostgreSQL did not start; see $dir/data/server.log"
  "$bin/createdb" -h 127.0.0.1 -p "$port" -U "$db_user" "$db_name" ||
    die "createdb $db_name failed"
  print_env | tee "$dir/env"
}

stop() {
  local bin
  if [[ -f "$dir/data/postmaster.pid" ]]; then
    bin="$(pg_bin)"
    as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
      log "pg_ctl stop failed in $dir"
  fi
  rm -rf "$dir"
}

case "$cmd" in
  start) start ;;
  env)
    running || die "no PostgreSQL running in $dir"
    print_env
    ;;
  status) running ;;
  stop) stop ;;
  *) usage ;;
esac
