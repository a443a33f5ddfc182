# shellcheck shell=bash
# PGlite for the pgvector tests: a real PostgreSQL 18 with pgvector 0.8
# (WebAssembly, in memory) served over the wire protocol on loopback by
# @electric-sql/pglite-socket. Debian's PostgreSQL 15 has no pgvector, so
# the native vector search on PostgreSQL is tested here.
# Source this file, then:
#   pglite_start   # sets PGLITE_URL (postgres://postgres@127.0.0.1:PORT/postgres?...)
#   pglite_stop    # kills the server by its PID; safe to call twice
# The npm packages are pinned by scripts/pglite/package-lock.json and
# installed once with `npm ci` into a cache directory named after the
# lock file's hash (PGLITE_CACHE, default ~/.cache/contextd), then reused.
# Caveats (spec/dependencies.md f): one backend session shared by every
# connection, so the URL asks pgx for default_query_exec_mode=exec (no
# named prepared statements) and the server allows -m 16 connections; no
# COPY FROM STDIN; no real concurrency.

PGLITE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pglite"
PGLITE_PID=""
PGLITE_URL=""
PGLITE_LOG=""

. "$(dirname "${BASH_SOURCE[0]}")/freeport.sh"

pglite_start() {
  command -v node >/dev/null 2>&1 || { echo "pglite: node not found (install Node.js 20)" >&2; return 1; }
  local hash cache port i
  hash=$(sha256sum "$PGLITE_DIR/package-lock.json" | cut -c1-16)
  cache="${PGLITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/contextd}/pglite-$hash"
  if [ ! -f "$cache/node_modules/.package-lock.json" ]; then
    mkdir -p "$cache"
    cp "$PGLITE_DIR/package.json" "$PGLITE_DIR/package-lock.json" "$cache/"
    (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error) >&2 \
      || { echo "pglite: npm ci failed in $cache" >&2; rm -rf "$cache/node_modules"; return 1; }
  fi
  port=$(free_loopback_port 55533) || { echo "pglite: no free port in 55533-55632" >&2; return 1; }
  PGLITE_LOG=$(mktemp /tmp/contextd-pglite.XXXXXX.log)
  node "$cache/node_modules/@electric-sql/pglite-socket/dist/scripts/server.js" \
    -h 127.0.0.1 -p "$port" -m 16 -e @electric-sql/pglite-pgvector:vector >"$PGLITE_LOG" 2>&1 &
  PGLITE_PID=$!
  # -m is Node's net.Server maxConnections: a connection over it is reset
  # at accept, and a closed one counts until the server's busy event loop
  # gets to its close event. With -m 4, a test's store (2 connections)
  # closing just before the schema reset connected got "connection reset
  # by peer" once in CI (2026-12-03); tests still open at most 2 at once
  # (pgtest.Lite), 16 is headroom for the ones not yet seen as closed.
  # Wait for the server's own "listening" line (a probe connection would
  # take one of its -m slots): about 2.4 s on an idle 2-core machine, up
  # to 30 s when the machine is loaded, hence the 180 s bound.
  for i in $(seq 1 1800); do
    if grep -q 'listening on' "$PGLITE_LOG" 2>/dev/null; then
      PGLITE_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable&default_query_exec_mode=exec"
      return 0
    fi
    if ! kill -0 "$PGLITE_PID" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "pglite: server did not listen on 127.0.0.1:$port" >&2
  cat "$PGLITE_LOG" >&2
  pglite_stop
  return 1
}

pglite_stop() {
  if [ -n "$PGLITE_PID" ]; then
    kill "$PGLITE_PID" 2>/dev/null || true
    wait "$PGLITE_PID" 2>/dev/null || true
  fi
  PGLITE_PID=""
  if [ -n "$PGLITE_LOG" ]; then rm -f "$PGLITE_LOG"; fi
  PGLITE_LOG=""
}
