#!/usr/bin/env bash
# lint-vs-kubeconform.sh runs `meshguard lint` and kubeconform on the same file of
# BenchmarkLint10k's documents (cmd/meshguard/bench_test.go: MeshTimeouts,
# MeshTrafficPermissions, MeshHTTPRoutes and MeshRetries, all Kuma kinds), one
# after the other, for several rounds, and prints documents/s (wall) and CPU
# seconds (user+sys) of each run, then the best and median per tool
# (docs/performance.md, "Linter against kubeconform").
#
#   go run ./hack/bench lint [--rounds 5] [--docs 10000] [--kubeconform v0.8.0]
#
# kubeconform validates against JSON schemas converted from the same Kuma 2.14 CRDs
# meshguard embeds (schema/crds/kuma-2.14) with kubeconform's own
# scripts/openapi2jsonschema.py (needs python3 with PyYAML), passed with
# -schema-location and -n set to the CPU count. meshguard runs as a user runs it:
# `meshguard lint -o json FILE`, which compiles the embedded CRDs itself.
# Everything built or generated goes to .cache/lint-vs-kubeconform. Needs GNU time
# (/usr/bin/time; apt-get install time).
set -euo pipefail

rounds=5
docs=10000
kc_version=v0.8.0
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds="$2"; shift 2 ;;
	--docs) docs="$2"; shift 2 ;;
	--kubeconform) kc_version="$2"; shift 2 ;;
	*) echo "usage: $0 [--rounds N] [--docs N] [--kubeconform VERSION|latest]" >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
cache="$root/.cache/lint-vs-kubeconform"
mkdir -p "$cache/bin"
[ -x /usr/bin/time ] || { echo "lint-vs-kubeconform: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "lint-vs-kubeconform: needs python3 with PyYAML" >&2; exit 1; }

cd "$root"
go build -o "$cache/bin/meshguard" ./cmd/meshguard
if [ "$kc_version" = latest ]; then
	kc_version=$(GOFLAGS=-mod=mod go list -m -f '{{.Version}}' github.com/yannh/kubeconform@latest)
fi
kc="$cache/bin/kubeconform-$kc_version"
if [ ! -x "$kc" ]; then
	GOBIN="$cache/bin" GOFLAGS=-mod=mod go install "github.com/yannh/kubeconform/cmd/kubeconform@$kc_version"
	mv "$cache/bin/kubeconform" "$kc"
fi
kc_src=$(GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' "github.com/yannh/kubeconform@$kc_version")

schemas="$cache/schemas-kuma-2.14"
if [ ! -s "$schemas/.done" ]; then
	rm -rf "$schemas" && mkdir -p "$schemas"
	(cd "$schemas" && FILENAME_FORMAT='{kind}-{group}-{version}' \
		python3 "$kc_src/scripts/openapi2jsonschema.py" "$root"/schema/crds/kuma-2.14/*.yaml >/dev/null)
	ls "$schemas"/*.json | wc -l >"$schemas/.done"
fi

in="$cache/bench-$docs.yaml"
[ -s "$in" ] || MESHGUARD_BENCH_CORPUS="$in" MESHGUARD_BENCH_DOCS="$docs" \
	go test ./cmd/meshguard -run '^TestWriteBenchCorpus$' -count=1 >/dev/null

mg_cmd=("$cache/bin/meshguard" lint --progress=never -o json "$in")
kc_cmd=("$kc" -n "$(nproc)" -summary -schema-location "$schemas/{{.ResourceKind}}{{.KindSuffix}}.json" "$in")

# Both must accept every document, or the comparison is not of the same work.
mg_docs=$("${mg_cmd[@]}" | python3 -c 'import json,sys; r=json.load(sys.stdin); s=r["summary"]; print(s)')
kc_sum=$("${kc_cmd[@]}" 2>&1 | tail -1)
echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input: $in ($docs documents, $(awk -v b="$(stat -c %s "$in")" 'BEGIN { printf "%.1f", b / 1048576 }') MiB)"
echo "meshguard summary: $mg_docs"
echo "kubeconform $kc_version: $kc_sum"
echo

# measure CMD...: prints "wall_seconds cpu_seconds rss_mib" of one run.
measure() {
	/usr/bin/time -o "$cache/time.out" -f '%e %U %S %M' "$@" >/dev/null 2>&1 || true
	tail -1 "$cache/time.out" | awk '{ printf "%.2f %.2f %.0f", $1, $2 + $3, $4 / 1024 }'
}

echo "| round | tool | wall s | docs/s | CPU s | peak RSS MiB | load average |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
: >"$cache/rates"
for r in $(seq 1 "$rounds"); do
	for tool in meshguard kubeconform; do
		if [ "$tool" = meshguard ]; then cmd=("${mg_cmd[@]}"); else cmd=("${kc_cmd[@]}"); fi
		read -r wall cpu rss <<<"$(measure "${cmd[@]}")"
		rate=$(awk -v n="$docs" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? n / w : 0) }')
		echo "$tool $rate" >>"$cache/rates"
		echo "| $r | $tool | $wall | $rate | $cpu | $rss | $(cut -d' ' -f1 /proc/loadavg) |"
	done
done
echo
for tool in meshguard kubeconform; do
	awk -v t="$tool" '$1 == t { print $2 }' "$cache/rates" | sort -n |
		awk -v t="$tool" '{ a[NR] = $1 } END { printf "%s: best %d docs/s, median %d docs/s\n", t, a[NR], a[int((NR + 1) / 2)] }'
done
