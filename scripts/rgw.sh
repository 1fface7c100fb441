#!/usr/bin/env bash
# A real S3 server for tests and benchmarks: a single-node Ceph RADOS Gateway on 127.0.0.1 (one
# monitor, one in-memory OSD, one radosgw), everything under one directory, nothing registered
# system-wide. RGW verifies SigV4 signatures, so tarn's S3 client is tested against the real
# protocol. Needs the Debian packages ceph-mon ceph-osd radosgw ceph-common curl
# (scripts/packages.txt).
#
#   scripts/rgw.sh start [DIR]   start (or reuse a running gateway in DIR); prints `export` lines
#   scripts/rgw.sh env [DIR]     print the `export` lines of the gateway running in DIR
#   scripts/rgw.sh status [DIR]  exit 0 when the gateway in DIR answers HTTP
#   scripts/rgw.sh stop [DIR]    stop the daemons by their pid files and remove DIR
#
# DIR defaults to $TARN_RGW_DIR, else /tmp/tarn-rgw-$UID. Every command is idempotent; two
# gateways in two directories can run at once (ports are picked free). Typical use:
#   eval "$(scripts/rgw.sh start)"   # AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ... and
#                                    # TARN_S3_TEST_BUCKET (a bucket created empty)
#   scripts/rgw.sh stop
# The same lines are written to DIR/env. Daemon logs are in DIR/log/.
set -euo pipefail

cmd="${1:-}"
dir="${2:-${TARN_RGW_DIR:-/tmp/tarn-rgw-$(id -u)}}"
access_key="TARNTESTACCESSKEY01"
secret_key="tarn-test-secret-key-0123456789abcdefghij"
bucket="tarn-test"
region="us-east-1"

log() { echo "rgw: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

usage() {
  sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# pid_alive FILE: the pid in FILE names a running process.
pid_alive() {
  local pid
  [[ -s "$1" ]] || return 1
  pid="$(<"$1")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

# http_up PORT: something answers HTTP on 127.0.0.1:PORT.
http_up() {
  curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$1/" 2>/dev/null
}

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # free_port

print_env() {
  local port
  port="$(<"$dir/rgw.port")"
  cat <<EOF
export AWS_ENDPOINT_URL=http://127.0.0.1:$port
export AWS_ACCESS_KEY_ID=$access_key
export AWS_SECRET_ACCESS_KEY=$secret_key
export AWS_REGION=$region
export AWS_DEFAULT_REGION=$region
unset AWS_SESSION_TOKEN AWS_ENDPOINT_URL_S3
export TARN_S3_TEST_BUCKET=$bucket
export TARN_RGW_DIR=$dir
EOF
}

running() {
  [[ -f "$dir/rgw.port" ]] && pid_alive "$dir/run/rgw.pid" && http_up "$(<"$dir/rgw.port")"
}

stop_daemons() {
  local f pid pids=()
  for f in rgw osd mon; do
    if pid_alive "$dir/run/$f.pid"; then
      pid="$(<"$dir/run/$f.pid")"
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  # Up to ~5 s for a clean exit, then SIGKILL.
  local i
  for i in $(seq 1 50); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}

write_conf() {
  local fsid="$1" mon_port="$2" rgw_port="$3"
  cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon_host = v2:127.0.0.1:$mon_port
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_mon_client_mode = crc secure
ms_client_mode = crc secure
ms_bind_msgr1 = false
public_addr = 127.0.0.1
run_dir = $dir/run
admin_socket = $dir/run/\$name.asok
log_file = $dir/log/\$name.log
keyring = $dir/keyring
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
osd_crush_chooseleaf_type = 0
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
mon_data_avail_warn = 2
mon_data_avail_crit = 1

[mon]
pid_file = $dir/run/mon.pid
mon_data = $dir/mon/\$id
paxos_propose_interval = 0.01
paxos_min_wait = 0.01

[osd]
pid_file = $dir/run/osd.pid
osd_data = $dir/osd/\$id
osd_objectstore = memstore
# Capacity only: memory is used as objects are written. A full OSD blocks every write, so it is
# generous, and deleted objects are collected at once (rgw_gc_* below) instead of after 2 h.
memstore_device_bytes = 8589934592
osd_max_object_name_len = 460
osd_max_object_namespace_len = 64

[client.rgw.tarn]
pid_file = $dir/run/rgw.pid
rgw_frontends = beast endpoint=127.0.0.1:$rgw_port
rgw_data = $dir/rgw
rgw_gc_obj_min_wait = 0
rgw_gc_processor_period = 1
rgw_gc_processor_max_time = 1
EOF
}

# run_logged NAME CMD...: runs CMD with output in DIR/log/NAME.out; on failure shows its tail.
run_logged() {
  local name="$1"
  shift
  # fd 9 holds the lock: daemons must not inherit it.
  if ! "$@" >"$dir/log/$name.out" 2>&1 9>&-; then
    tail -n 20 "$dir/log/$name.out" >&2
    die "$name failed: $*"
  fi
}

start() {
  for b in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph curl ss; do
    command -v "$b" >/dev/null 2>&1 || die "$b not found (install: apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl)"
  done
  if running; then
    print_env
    return 0
  fi
  # A half-started or crashed gateway: start over.
  stop_daemons
  find "$dir" -mindepth 1 -delete
  mkdir -p "$dir/mon" "$dir/osd" "$dir/rgw" "$dir/run" "$dir/log"
  : >"$dir/.tarn-rgw"

  local fsid mon_port rgw_port osd_uuid osd_id conf="$dir/ceph.conf"
  fsid="$(cat /proc/sys/kernel/random/uuid)"
  osd_uuid="$(cat /proc/sys/kernel/random/uuid)"
  mon_port="$(free_port)"
  rgw_port="$(free_port)"
  [[ "$rgw_port" != "$mon_port" ]] || rgw_port=$((mon_port + 1))
  write_conf "$fsid" "$mon_port" "$rgw_port"
  : >"$dir/keyring"

  run_logged monmaptool monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" \
    "$dir/monmap"
  run_logged mon-mkfs ceph-mon --mkfs -i a --monmap "$dir/monmap" -c "$conf"
  run_logged mon ceph-mon -i a -c "$conf"
  osd_id="$(timeout 30 ceph -c "$conf" --connect-timeout 20 osd new "$osd_uuid" 2>"$dir/log/osd-new.out")" \
    || { tail -n 20 "$dir/log/osd-new.out" >&2; die "ceph osd new failed"; }
  [[ "$osd_id" =~ ^[0-9]+$ ]] || die "ceph osd new printed '$osd_id'"
  mkdir -p "$dir/osd/$osd_id"
  run_logged osd-mkfs ceph-osd -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" -c "$conf"
  run_logged osd ceph-osd -i "$osd_id" -c "$conf"
  run_logged radosgw radosgw -n client.rgw.tarn -c "$conf"

  local i
  for i in $(seq 1 600); do
    http_up "$rgw_port" && break
    pid_alive "$dir/run/rgw.pid" || [[ $i -lt 20 ]] \
      || { tail -n 20 "$dir/log/client.rgw.tarn.log" >&2 || true; die "radosgw exited"; }
    sleep 0.1
  done
  http_up "$rgw_port" || die "radosgw did not answer on 127.0.0.1:$rgw_port within 60 s (logs in $dir/log)"
  echo "$rgw_port" >"$dir/rgw.port"

  run_logged user-create timeout 60 radosgw-admin -c "$conf" -n client.rgw.tarn user create \
    --uid=tarn-test --display-name=tarn-test --access-key="$access_key" --secret-key="$secret_key"
  # The test bucket, created through S3 itself (a signed PUT).
  local code
  code="$(curl -s -o "$dir/log/bucket.out" -w '%{http_code}' --max-time 30 -X PUT \
    --aws-sigv4 "aws:amz:$region:s3" --user "$access_key:$secret_key" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "http://127.0.0.1:$rgw_port/$bucket")"
  [[ "$code" == 200 ]] || die "creating bucket $bucket: HTTP $code $(cat "$dir/log/bucket.out")"

  print_env >"$dir/env"
  print_env
}

case "$cmd" in
  start | stop | env | status) ;;
  *) usage ;;
esac

# Never wipe a directory this script did not make.
if [[ -d "$dir" && ! -e "$dir/.tarn-rgw" && -n "$(ls -A "$dir")" ]]; then
  die "$dir is not empty and is not a gateway directory of this script"
fi
if [[ "$cmd" == env || "$cmd" == status ]] && [[ ! -d "$dir" ]]; then
  [[ "$cmd" == status ]] && exit 1
  die "no gateway running in $dir"
fi
mkdir -p "$dir"
exec 9>"$dir.lock"
flock 9

case "$cmd" in
  start)
    start_time=$SECONDS
    start
    log "up on $(grep AWS_ENDPOINT_URL= "$dir/env" | cut -d= -f2) in $((SECONDS - start_time)) s ($dir)"
    ;;
  env)
    running || die "no gateway running in $dir"
    print_env
    ;;
  status)
    running
    ;;
  stop)
    stop_daemons
    rm -rf "$dir" "$dir.lock"
    ;;
esac
