# ragd — every target works with no flags to remember.
#
#   make setup   install what a fresh Debian machine lacks, download modules
#   make build   build bin/ragd
#   make test    vet, unit + race tests, bounded fuzzing, real-server tier,
#                real-model tier
#   make test-realmodel  the real-model tier alone (scripts/models.sh's models)
#   make bench   Go benchmarks (figures, not pass/fail)
#   make bench-models  what each real model costs: reindex chunks/s beside
#                lexical only, query embedding latency (docs/models.md)
#   make bench-scale  the 10k/100k/1M table of docs/scale.md (corpora cached
#                in the user cache folder: about 6 GB and half an hour to build once)
#   make bench-scale-pg PG=postgres://…  the same table on the PostgreSQL engine
#   make postgres  a PostgreSQL server with pgvector (scripts/postgres.sh) in the
#                background; its admin URL is the last line; make postgres-down stops it
#   make pglite  a PGlite server (in memory, pgvector) on PGPORT, in the foreground,
#                for bench-scale-pg and `ragd eval --database` (docs/engines.md)
#   make quality the tables of docs/quality.md: ragd eval and calibrate with each
#                real model of scripts/models.sh (MODELS="all-minilm" for one);
#                not part of make test
#   make run     the newcomer's path: start ragd on its own docs
#   make screenshots  remake docs/report-*.png (the HTML reports, in headless chromium)
#
# Build facts kept here so nobody has to remember them:
#   - FTS5 needs the sqlite_fts5 build tag of mattn/go-sqlite3.
#   - sqlite-vec's cgo package needs a sqlite3.h; we use the header that
#     go-sqlite3 bundles (same version as the SQLite compiled into the binary)
#     copied to .build/include, rather than whatever the OS has.
#   - sqlite-vec's L2 distance has an AVX path (-DSQLITE_VEC_ENABLE_AVX -mavx);
#     see docs/adr/0003-vector-distance.md. It is enabled only when the CPU has AVX.

SHELL := /bin/bash
GO ?= go
BIN := bin/ragd
INCLUDE := $(CURDIR)/.build/include
AVX := $(shell grep -qw avx /proc/cpuinfo 2>/dev/null && echo "-DSQLITE_VEC_ENABLE_AVX -mavx")

export CGO_ENABLED := 1
export CGO_CFLAGS := -O2 -g -I$(INCLUDE) $(AVX)
export GOFLAGS := $(GOFLAGS) -tags=sqlite_fts5

.PHONY: quality setup build test test-realmodel bench bench-models bench-scale bench-scale-pg postgres postgres-down pglite run fuzz vet clean header record-session screenshots

setup:
	bash scripts/setup.sh

# header copies go-sqlite3's bundled sqlite3.h where sqlite-vec's cgo build finds it.
header: $(INCLUDE)/sqlite3.h
$(INCLUDE)/sqlite3.h: go.mod
	@mkdir -p $(INCLUDE)
	@$(GO) mod download github.com/mattn/go-sqlite3
	@dir=$$($(GO) list -m -f '{{.Dir}}' github.com/mattn/go-sqlite3) && test -n "$$dir" && \
		cp "$$dir/sqlite3-binding.h" $@.tmp && mv $@.tmp $@

build: header
	$(GO) build -o $(BIN) ./cmd/ragd

vet: header
	$(GO) vet ./...

test: header
	bash scripts/test.sh

test-realmodel: header
	bash scripts/test-realmodel.sh

# MODELS narrows make quality to some of the served models.
quality: header
	MODELS="$(MODELS)" bash scripts/quality.sh

fuzz: header
	bash scripts/fuzz.sh

bench: header
	$(GO) test -run='^$$' -bench=. -benchmem ./...

MODELS ?=
bench-models: header
	bash scripts/bench-models.sh $(MODELS)

# SIZES and MODES narrow a run, e.g. make bench-scale SIZES=10000,100000
SIZES ?= 10000,100000,1000000
MODES ?= exact,quantized
bench-scale: header
	$(GO) build -o .build/ragd-bench ./cmd/ragd-bench
	.build/ragd-bench -sizes $(SIZES) -modes $(MODES)

# PG is the database bench-scale-pg rebuilds each corpus in (its bench
# project is replaced): by default make postgres's server, started if it
# is not running.
PGPORT ?= 55432
PG ?= $(shell bash scripts/postgres.sh start | tail -1)
bench-scale-pg: header
	$(GO) build -o .build/ragd-bench ./cmd/ragd-bench
	.build/ragd-bench -sizes $(SIZES) -db '$(PG)'

postgres:
	@bash scripts/postgres.sh start

postgres-down:
	@bash scripts/postgres.sh stop

# pglite-server as internal/pgtest's StartPGlite starts it (installed by make setup);
# the engine chooses pgx's simple protocol by itself on it (one session for
# every connection).
pglite:
	cd tests/pglite && node node_modules/@electric-sql/pglite-socket/dist/scripts/server.js \
		--port=$(PGPORT) --extensions=vector --db=memory:// --max-connections=8

run: header
	bash scripts/run.sh

screenshots: header
	RAGD_BROWSER_TESTS=1 $(GO) test ./report -run '^TestBrowser$$' -count=1 -screenshots $(CURDIR)/docs

clean:
	rm -rf bin .build

# record-session re-records the README's "A session, recorded".
record-session: header
	bash scripts/record-session.sh
