#!/usr/bin/env bash
# test-realmodel.sh runs the real-model tier (build tag realmodel): each
# model scripts/models.sh serves, one at a time, on its own port
# (RAGD_MODELS_TEST_PORT, default 11521), through the real Ollama:
#   - embedding: the vectors ragd gets through the server against the
#     reference runtime (onnxruntime on the model's published ONNX export),
#     and sentence-transformers' documented example ranked as documented;
#     the same weights in ragd's built-in runtime (the folder `models.sh
#     folder NAME` keeps, provider builtin) against the reference too;
#   - daemon: a small handbook indexed and searched over the socket: a
#     paraphrase no keyword finds is found by the vector half, and an exact
#     identifier stays in the hybrid's top 3; beside seven of ragd's docs
#     (enough chunks to profile the space), an off-topic question finds
#     nothing by meaning alone.
# A server already up on the port (someone else's) is used and left
# running; one this run started is stopped at the end. Called by
# scripts/test.sh; run alone with the cgo flags make sets:
#   make test-realmodel
# First run: ~2 min of downloads and conversion (330 MB: one wheel, three
# jars, the reference runtime), plus the Ollama build if setup has not
# built it (models.sh build: x86-64-v3 on an AVX2 CPU, ~5 min; else the
# test kit's). Later runs: 1-2 min a model on an idle 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CGO_CFLAGS:?run through make, which sets the cgo flags}"

TAGS=sqlite_fts5
port=${RAGD_MODELS_TEST_PORT:-11521}
pkgs=$(grep -rl --include='*_test.go' '^//go:build realmodel' . | xargs -n1 dirname | sort -u)
models=$(bash scripts/models.sh list)
mine=0
bash scripts/models.sh status --port "$port" >/dev/null 2>&1 || mine=1
cleanup() {
	local m
	[ "$mine" = 1 ] || return 0
	for m in $models; do bash scripts/models.sh down "$m" --port "$port" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

for model in $models; do
	printf '\n==> real-model tier: %s\n' "$model" >&2
	model_env=$(bash scripts/models.sh up "$model" --port "$port")
	# One package at a time: one server answers one request at a time. -v:
	# the cosines against the reference and each model's mean cosine of
	# unrelated passages are logged.
	(export $model_env; go test -p 1 -count=1 -tags "$TAGS,realmodel" -run '^TestRealModel' -v $pkgs)
done
