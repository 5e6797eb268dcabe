#!/usr/bin/env bash
# quality.sh reproduces docs/quality.md's tables (make quality; not part of
# make test): for each real retrieval model scripts/models.sh serves, ragd
# eval on SciFact's training queries, the CometBFT and Kuma judged sets, the
# judged session questions (scripts/quality/sessions.jsonl) and, during a
# background fill, at 10% and 50% of the vectors; ragd calibrate on
# SciFact with 30% of its queries held out. Every mode (lexical, vector, the
# default, rrf, the seed's weighted fusion) comes from the same retrieval.
#
#   make quality                       every model of `scripts/models.sh list`
#   make quality MODELS="all-minilm"   some of them
#   make quality SETS="kuma sessions"  some of the sets (scifact cometbft kuma sessions)
#   make quality GRID=1                also what enters the fusion, on SciFact:
#                                      each normalisation × 12/25/50/100
#                                      candidates × fill on/off (32 modes)
#   SERVED=1 OLLAMA_HOST=… RAGD_MODEL=… RAGD_DIMS=… bash scripts/quality.sh
#                                      a model served already, by anything
#                                      speaking Ollama's API
#
# Reads ../shared/bench and ../shared/corpora (RAGD_SHARED_DIR), keeps its
# indexes in ${XDG_CACHE_HOME:-$HOME/.cache}/ragd-quality so that each model
# embeds each corpus once (SciFact: 8,208 chunks), writes every report as
# JSON and text to OUT (default .build/quality), and prints the summary
# table docs/quality.md copies. The embedding runs on this machine's cores:
# expect minutes per model and corpus the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CGO_CFLAGS:?run through make quality, which sets the cgo flags}"

SHARED=${RAGD_SHARED_DIR:-$(cd .. && pwd)/shared}
MODELS_SH=${RAGD_MODELS_SH:-scripts/models.sh}
PORT=${RAGD_QUALITY_PORT:-11530}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/ragd-quality
OUT=${OUT:-$PWD/.build/quality}
SHARES=${SHARES:-0.1 0.5}
SETS=${SETS:-scifact cometbft kuma sessions}
want() { case " $SETS " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$CACHE" "$OUT"

for f in "$SHARED/bench/scifact/corpus.jsonl.gz" "$SHARED/bench/golden/cometbft.jsonl" "$SHARED/bench/golden/kuma.jsonl"; do
	[ -e "$f" ] || { echo "quality.sh: $f is missing (set RAGD_SHARED_DIR to the shared folder)" >&2; exit 1; }
done

ragd=${RAGD_BIN:-}
if [ -z "$ragd" ]; then
	echo "==> building bin/ragd" >&2
	go build -o bin/ragd ./cmd/ragd
	ragd=$PWD/bin/ragd
fi

# ragd reads its configuration from here: nothing of the user's. Batches
# are small and patient: the model shares two cores with everything else.
export XDG_CONFIG_HOME=$CACHE/config XDG_DATA_HOME=$CACHE/data XDG_STATE_HOME=$CACHE/state
mkdir -p "$XDG_CONFIG_HOME/ragd"
cat >"$XDG_CONFIG_HOME/ragd/config.toml" <<'EOF'
[embedding]
batch_size = 16
concurrency = 1
index_timeout = "600s"
query_timeout = "60s"
EOF

# The judged sets' repositories, as golden/README.md lays them out.
repo() {
	local name=$1 dir=$CACHE/repos/$1
	if [ ! -d "$dir/.git" ]; then
		rm -rf "$dir" && mkdir -p "$dir/docs"
		tar xzf "$SHARED/corpora/$name.tar.gz" -C "$dir/docs"
		git -C "$dir" init -q
		git -C "$dir" add -A
		git -C "$dir" -c user.name=ragd -c user.email=ragd@localhost commit -qm corpus
	fi
	echo "$dir"
}
COMETBFT=$(repo cometbft-md-5bba72c)
KUMA=$(repo kuma-docs-348b652)

# run NAME ARGS…: one ragd eval or calibrate, its JSON and its table kept.
run() {
	local name=$1
	shift
	echo "==> $name: ragd $*" >&2
	"$ragd" "$@" --json >"$OUT/$name.json"
	"$ragd" "$@" >"$OUT/$name.txt" 2>/dev/null || true
}

# The judged session questions (scripts/quality/sessions.jsonl) are asked
# of real transcripts (../shared/bench/transcripts) imported by a daemon
# of this model's own: sessions MODEL imports them, waits until the
# background fill has embedded every chunk, and stops it. Every file of
# twelve agents that holds a conversation (610 message chunks); not the
# OpenCode database (synthetic, by its source's own account), not the
# duplicate of Copilot Chat's simple session in JSON lines, not Windsurf's
# (no importer).
T=$SHARED/bench/transcripts
sessions() {
	local m=$1 dir=$CACHE/sessions-$1
	mkdir -p "$dir/repo"
	if [ ! -d "$dir/repo/.git" ]; then
		echo "# sessions" >"$dir/repo/README.md"
		git -C "$dir/repo" init -q
		git -C "$dir/repo" add -A
		git -C "$dir/repo" -c user.name=ragd -c user.email=ragd@localhost commit -qm sessions
	fi
	(
		export XDG_DATA_HOME=$dir/data XDG_STATE_HOME=$dir/state RAGD_SOCKET=$dir/ragd.sock
		"$ragd" serve >"$dir/serve.log" 2>&1 &
		pid=$!
		trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
		for _ in $(seq 1 100); do "$ragd" projects >/dev/null 2>&1 && break; sleep 0.2; done
		"$ragd" add "$dir/repo" >/dev/null
		"$ragd" sessions import --from aider "$T/aider/monochromatic.aider.chat.history.md" "$T/aider/zen-mcp-server.aider.chat.history.md" --project repo >&2
		"$ragd" sessions import --from claude-code "$T/claude-code/daaain-cc1.0.24-fe869ecb.jsonl" "$T/claude-code/daaain-cc2.1.114-ef958aa1.jsonl" --project repo >&2
		"$ragd" sessions import --from codex "$T/codex/aisessions-codex0.47.0-pomodoro.jsonl" "$T/codex/cctranscripts-codex0.77.0-truncated.jsonl" --project repo >&2
		"$ragd" sessions import --from gemini "$T/gemini/aisessions-pomodoro.json" "$T/gemini/vibetracker-2026-04-23.jsonl" --project repo >&2
		"$ragd" sessions import --from cursor "$T/cursor/cursor-history-state.vscdb" "$T/cursor/git-ai-cursor-session-simple.jsonl" --project repo >&2
		"$ragd" sessions import --from crush "$T/crush/dbr-crush.db" --project repo >&2
		"$ragd" sessions import --from copilot "$T/copilot-chat/git-ai-copilot_session_simple.json" "$T/copilot-chat/git-ai-copilot_session_multiline.jsonl" --project repo >&2
		"$ragd" sessions import --from copilot-cli "$T/copilot-cli/vscode-copilot-chat-2acc594f.jsonl" "$T/copilot-cli/vscode-copilot-chat-cb2aca77.jsonl" "$T/copilot-cli/git-ai-copilot_cli_session_events.jsonl" --project repo >&2
		"$ragd" sessions import --from amp "$T/amp/git-ai-T-019ca1ce.json" --project repo >&2
		"$ragd" sessions import --from continue "$T/continue/git-ai-continue-cli-session-simple.json" --project repo >&2
		"$ragd" sessions import --from droid "$T/droid/git-ai-droid-session.jsonl" --project repo >&2
		"$ragd" sessions import --from qwen "$T/qwen/splitrail-qwen_code.jsonl" --project repo >&2
		# Bounded: the fill embeds about 600 chunks.
		for _ in $(seq 1 1800); do
			"$ragd" doctor --json 2>/dev/null | jq -r '.checks[] | select(.name == "database") | .detail' | grep -q 'of which 0 lexical only' && break
			sleep 1
		done
	)
	(
		export XDG_DATA_HOME=$dir/data XDG_STATE_HOME=$dir/state
		run "$m-sessions" eval scripts/quality/sessions.jsonl --project repo --config-json "$CALIBRATED"
		for share in $SHARES; do
			run "$m-sessions-fill$share" eval scripts/quality/sessions.jsonl --project repo --vector-share "$share"
		done
	)
}

if [ -n "${SERVED:-}" ]; then
	models=${RAGD_MODEL:?SERVED=1 needs OLLAMA_HOST, RAGD_MODEL and RAGD_DIMS}
else
	models=${MODELS:-$(bash "$MODELS_SH" list)}
fi
for m in $models; do
	if [ -z "${SERVED:-}" ]; then
		echo "==> serving $m" >&2
		eval "$(bash "$MODELS_SH" up "$m" --port "$PORT")"
	fi
	export OLLAMA_HOST RAGD_MODEL RAGD_DIMS
	calibrated={}
	# calibrate first: its best setting on SciFact's training part is the
	# "custom" mode of every other evaluation, which it never saw.
	if want scifact; then
		run "$m-scifact-calibrate" calibrate --beir "$SHARED/bench/scifact" --work "$CACHE/scifact" --holdout 0.3
		calibrated=$(jq -c '.calibration.best.config' "$OUT/$m-scifact-calibrate.json")
		run "$m-scifact" eval --beir "$SHARED/bench/scifact" --work "$CACHE/scifact" --config-json "$calibrated"
		if [ -n "${GRID:-}" ]; then
			grid=()
			for n in space max minmax saturate; do
				for c in 12 25 50 100; do
					for f in true false; do
						grid+=(--config-json "{\"normalization\":\"$n\",\"candidates\":$c,\"fill\":$f}")
					done
				done
			done
			run "$m-scifact-grid" eval --beir "$SHARED/bench/scifact" --work "$CACHE/scifact" "${grid[@]}"
		fi
	fi
	export CALIBRATED=$calibrated
	for set in cometbft kuma; do
		want "$set" || continue
		dir=$COMETBFT
		[ "$set" = kuma ] && dir=$KUMA
		run "$m-$set" eval "$SHARED/bench/golden/$set.jsonl" --repo "$dir" --database "$CACHE/$m-$set.db" --config-json "$calibrated"
		for share in $SHARES; do
			run "$m-$set-fill$share" eval "$SHARED/bench/golden/$set.jsonl" --repo "$dir" --database "$CACHE/$m-$set.db" --vector-share "$share"
		done
	done
	want sessions && sessions "$m"
	[ -n "${SERVED:-}" ] || bash "$MODELS_SH" down "$m" --port "$PORT" >&2 || true
done

# The summary: nDCG@10 and R@10 of every mode, each with its paired
# bootstrap interval against lexical.
echo
printf '| set | model | mode | nDCG@10 | − lexical [95%% CI] | R@10 | − lexical [95%% CI] |\n|---|---|---|---|---|---|---|\n'
for f in "$OUT"/*.json; do
	case $f in *-calibrate.json) continue ;; esac
	jq -r --arg f "$(basename "$f" .json)" '
		. as $r
		| .modes[]
		| . as $m
		| [($r.comparisons[] | select(.a == $m.name and .b == "lexical" and .metric == "ndcg@10")),
		   ($r.comparisons[] | select(.a == $m.name and .b == "lexical" and .metric == "recall@10"))] as $c
		| "| \($f) | \($r.space) | \($m.name) | \($m.metrics["ndcg@10"] * 1000 | round / 1000) | "
		  + (if ($c | length) > 0 then "\($c[0].mean * 1000 | round / 1000) [\($c[0].low * 1000 | round / 1000), \($c[0].high * 1000 | round / 1000)]" else "—" end)
		  + " | \($m.metrics["recall@10"] * 1000 | round / 1000) | "
		  + (if ($c | length) > 1 then "\($c[1].mean * 1000 | round / 1000) [\($c[1].low * 1000 | round / 1000), \($c[1].high * 1000 | round / 1000)]" else "—" end)
		  + " |"' "$f"
done
