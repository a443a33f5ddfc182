# shellcheck shell=bash
# free_loopback_port FIRST prints a loopback TCP port nobody listens on,
# the first free one of FIRST..FIRST+99 (sourced by pgcluster.sh and
# pglite.sh).
free_loopback_port() {
  local port
  for port in $(seq "$1" $(($1 + 99))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  return 1
}
