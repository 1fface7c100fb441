# Shell helpers shared by the scripts that start test services (pg.sh, rgw.sh). Source it after
# defining die().

# free_port: a TCP port on 127.0.0.1 that no socket uses (racy, but two starts also hold
# different locks). Picked below the kernel's ephemeral range, so an outgoing connection of
# another test cannot take it between this check and the server's bind (seen in CI: radosgw
# failing to bind a port a client socket had been given).
free_port() {
  local p i low
  low="$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)"
  ((low > 11000)) || low=32768
  for i in $(seq 1 200); do
    p=$((10000 + RANDOM % (low - 10000)))
    if [[ -z "$(ss -Htan "sport = :$p" 2>/dev/null)" ]]; then
      echo "$p"
      return 0
    fi
  done
  die "no free TCP port found"
}
