#!/usr/bin/env bash
# Builds a release of contextd into DIR:
#
#   scripts/release.sh DIR [-version 0.2.0] [-targets linux/amd64,...]
#
# Static binaries for linux, darwin and windows on amd64 and arm64
# (CGO_ENABLED=0, -trimpath, the version stamped), one MCP Bundle (.mcpb)
# a platform, server.json for the MCP registry and SHA256SUMS; it prints
# each size and runs this machine's binary once (version, then tools/list
# over stdio). The work is done by the Go program internal/release, which
# docs/install.md describes. It needs Go only.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: scripts/release.sh DIR [-version V] [-targets os/arch,...]" >&2
  exit 2
fi
dir=$1
shift
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
cd "$(dirname "$0")/.."
exec go run ./internal/release "$@" "$dir"
