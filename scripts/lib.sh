# Shell helpers shared by the scripts that start test services (pg.sh, rgw.sh). Source it after
# defining die().

# free_port: a TCP port on 127.0.0.1 nothing listens on (racy, but two starts also hold
# different locks).
free_port() {
  local p i
  for i in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    if [[ -z "$(ss -Htln "sport = :$p" 2>/dev/null)" ]]; then
      echo "$p"
      return 0
    fi
  done
  die "no free TCP port found"
}
