# shellcheck shell=bash
# Throwaway PostgreSQL 15 cluster for the test suite, from the Debian
# postgresql-15 binaries (about 0.7 s to a ready server on two cores).
# Source this file, then:
#   pg_cluster_start   # sets PG_CLUSTER_URL (postgres://postgres@127.0.0.1:PORT/contextd_test)
#   pg_cluster_stop    # fast shutdown and removal of the directory; safe to call twice
# initdb refuses to run as root, so the server runs as the postgres user
# when the script runs as root (CI and the build machines do).

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_CLUSTER_DIR=""
PG_CLUSTER_URL=""

_pg_as() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

. "$(dirname "${BASH_SOURCE[0]}")/freeport.sh"

# _pg_free_port prints a loopback TCP port nobody listens on.
_pg_free_port() { free_loopback_port 55432; }

pg_cluster_start() {
  if [ ! -x "$PG_BIN/initdb" ]; then
    echo "pgcluster: $PG_BIN/initdb not found (install the Debian postgresql-15 package)" >&2
    return 1
  fi
  local port
  port=$(_pg_free_port) || { echo "pgcluster: no free port in 55432-55531" >&2; return 1; }
  PG_CLUSTER_DIR=$(mktemp -d /tmp/contextd-pg.XXXXXX)
  mkdir -p "$PG_CLUSTER_DIR/sock"
  if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$PG_CLUSTER_DIR"; fi
  _pg_as "$PG_BIN/initdb" -D "$PG_CLUSTER_DIR/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$PG_CLUSTER_DIR/initdb.log" 2>&1 \
    || { cat "$PG_CLUSTER_DIR/initdb.log" >&2; return 1; }
  _pg_as "$PG_BIN/pg_ctl" -D "$PG_CLUSTER_DIR/data" -l "$PG_CLUSTER_DIR/pg.log" -w -t 30 \
    -o "-p $port -k $PG_CLUSTER_DIR/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null || { cat "$PG_CLUSTER_DIR/pg.log" >&2; return 1; }
  _pg_as "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres contextd_test
  PG_CLUSTER_URL="postgres://postgres@127.0.0.1:$port/contextd_test?sslmode=disable"
}

pg_cluster_stop() {
  if [ -n "$PG_CLUSTER_DIR" ] && [ -d "$PG_CLUSTER_DIR" ]; then
    _pg_as "$PG_BIN/pg_ctl" -D "$PG_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$PG_CLUSTER_DIR"
  fi
  PG_CLUSTER_DIR=""
}
