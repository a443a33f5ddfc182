#!/usr/bin/env bash
# The README's test command: static checks, then every Go test of the
# quick and long tiers against SQLite, a throwaway PostgreSQL 15 cluster
# and PGlite (PostgreSQL 18 with pgvector), both started here. It needs
# Go, the Debian postgresql-15 binaries and Node.js 20. The race detector
# and fuzzing run in CI after it (.ci/run), not here: they take longer
# than a newcomer waits for a verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0

echo "== gofmt [at ${SECONDS}s]"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet [at ${SECONDS}s]"
go vet ./...

echo "== modernc.org/libc pin [at ${SECONDS}s]"
# modernc.org/sqlite supports only the libc version its go.mod names.
# awk reads the whole graph (no early exit): under pipefail an early exit
# made go mod graph die of SIGPIPE and the script stop with 141.
want=$(go mod graph | awk '!found && $1 ~ /^modernc.org\/sqlite@/ && $2 ~ /^modernc.org\/libc@/ {sub(/.*@/, "", $2); print $2; found=1}')
have=$(go list -m -f '{{.Version}}' modernc.org/libc)
if [ "$want" != "$have" ]; then
  echo "modernc.org/libc is $have but modernc.org/sqlite requires $want"; exit 1
fi

echo "== PostgreSQL 15 (throwaway cluster) [at ${SECONDS}s]"
# persist/postgres and the conformance suites run against a real server.
# The cluster lives in a temporary directory, listens on loopback only,
# runs with fsync=off (its data is thrown away) and is stopped by the
# trap however the script ends. Without the URL these tests skip.
. scripts/pgcluster.sh
. scripts/pglite.sh
trap 'pglite_stop; pg_cluster_stop' EXIT
pg_cluster_start
export CONTEXTD_TEST_POSTGRES_URL="$PG_CLUSTER_URL"
echo "PostgreSQL at $CONTEXTD_TEST_POSTGRES_URL"

echo "== PGlite (PostgreSQL 18 + pgvector, for the native vector search tests) [at ${SECONDS}s]"
# npm ci from scripts/pglite/package-lock.json into a cache directory
# (reused), then the server on a free loopback port; stopped by its PID by
# the same trap. Without the URL the pgvector tests skip.
pglite_start
export CONTEXTD_TEST_PGLITE_URL="$PGLITE_URL"
echo "PGlite at $CONTEXTD_TEST_PGLITE_URL"

echo "== Chromium (the web page's browser tests) [at ${SECONDS}s]"
# server/webui drives a headless Chromium; without one those tests skip
# with a message. As root with apt, install Debian's package once.
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && ! command -v google-chrome >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    { DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >/dev/null 2>&1 ||
      { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >/dev/null 2>&1; }; } ||
      echo "could not install chromium: the browser tests will skip"
  else
    echo "no chromium on PATH (and not root with apt-get): the browser tests will skip"
  fi
fi

echo "== go test (quick and long tiers) [at ${SECONDS}s]"
# The long tier (internal/testtier: the 60 s HTTP load test, the 100k
# recall gates, the peer comparison, the Cranfield evaluation) skips
# unless CONTEXTD_LONG=1. Plain `go test ./...` is the quick tier; this
# script (which CI runs first, .ci/run) always enables the long tier too,
# so no test is skipped unseen.
export CONTEXTD_LONG=1
# The slowest packages are named before ./... (go test dedups the list):
# the go command starts test binaries in the order of its package list
# (depth-first action priority), so with plain ./... the slowest ones,
# alphabetically last, started last and ran alone on one core for the
# last minutes of the step. Longest first keeps both cores busy to the end.
go test -count=1 -timeout 25m ./cmd/contextd ./vector ./server ./... "$@"
echo "== done: the quick and long tiers passed in ${SECONDS}s"
