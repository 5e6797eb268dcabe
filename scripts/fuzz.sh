#!/usr/bin/env bash
# fuzz.sh fuzzes one target for longer than the test run does:
#   make fuzz FUZZ=FuzzMarkdown PKG=./chunking FUZZTIME=5m
set -euo pipefail
cd "$(dirname "$0")/.."
: "${FUZZ:?set FUZZ=FuzzName}" "${PKG:?set PKG=./package}"
go test -tags sqlite_fts5 -run='^$' -fuzz="^${FUZZ}\$" -fuzztime="${FUZZTIME:-2m}" "$PKG"
