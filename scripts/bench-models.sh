#!/usr/bin/env bash
# bench-models.sh measures what each real model of scripts/models.sh costs
# through the real Ollama, beside the lexical-only figures of the same run:
#   - reindex through the daemon (chunks/s), lexical only (the provider's
#     port closed) and with the model embedding every chunk (48 chunks of
#     about 900 characters; daemon BenchmarkRealModelReindex);
#   - embedding alone for indexing (chunks/s, batches of 16 chunks of 1000
#     characters) and one search question's embedding (p50/p95 ms)
#     (embedding BenchmarkRealModelIndex, BenchmarkRealModelQuery).
# Figures, not pass/fail. Port: RAGD_MODELS_BENCH_PORT (default 11522);
# models: the arguments, or every model of `models.sh list`.
#   make bench-models [MODELS="all-minilm e5-small-v2"]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CGO_CFLAGS:?run through make, which sets the cgo flags}"

port=${RAGD_MODELS_BENCH_PORT:-11522}
models=${*:-$(bash scripts/models.sh list)}
mine=0
bash scripts/models.sh status --port "$port" >/dev/null 2>&1 || mine=1
cleanup() {
	[ "$mine" = 1 ] || return 0
	for m in $models; do bash scripts/models.sh down "$m" --port "$port" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

# metric LOG BENCH UNIT: the value before UNIT on BENCH's result line.
metric() { grep -E "^$2(-[0-9]+)?[[:space:]]" "$1" | grep -oE "[0-9.]+ $3" | head -1 | cut -d' ' -f1; }

rows=()
for model in $models; do
	printf '==> %s\n' "$model" >&2
	model_env=$(bash scripts/models.sh up "$model" --port "$port")
	log=$(mktemp)
	(export $model_env
		go test -p 1 -count=1 -tags sqlite_fts5,realmodel -run '^$' -bench 'RealModelReindex' -benchtime 1x ./daemon/
		go test -p 1 -count=1 -tags sqlite_fts5,realmodel -run '^$' -bench 'RealModelIndex' -benchtime 3x ./embedding/
		go test -p 1 -count=1 -tags sqlite_fts5,realmodel -run '^$' -bench 'RealModelQuery' -benchtime 20x ./embedding/) | tee "$log" >&2
	rows+=("| $model | $(metric "$log" "BenchmarkRealModelReindex/lexical-only" chunks/s) | $(metric "$log" "BenchmarkRealModelReindex/$model" chunks/s) | $(metric "$log" BenchmarkRealModelIndex chunks/s) | $(metric "$log" BenchmarkRealModelQuery p50-ms) | $(metric "$log" BenchmarkRealModelQuery p95-ms) |")
	rm -f "$log"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
echo "| model | reindex, lexical only (chunks/s) | reindex with the model (chunks/s) | embedding alone (chunks/s) | query embedding p50 (ms) | p95 (ms) |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
