#!/usr/bin/env bash
# lint-growth.sh measures how `meshguard lint` grows with its input, next to
# kubeconform on the same files: CPU time (user+sys) and peak RSS at 1k, 10k, 50k
# and 100k documents of hack/genmanifests' realistic mix, printed as a markdown
# table (docs/performance.md, "Linter growth curve").
#
#   go run ./hack/bench growth [--before GIT_REV] [--sizes "1000 10000 50000 100000"] [--small-mtp]
#
# --small-mtp measures issue 27's input instead of the mix: after the Namespaces,
# only ~200-byte namespace-wide MeshTrafficPermissions (genmanifests -small-mtp;
# 294000 of them are 63.5 MiB, under the 64 MiB file bound), e.g.
# --small-mtp --sizes "16000 64000 150000 294000".
#
# --before also measures meshguard built from GIT_REV (e.g. the commit before a
# change). Everything built or generated goes to .cache/lint-growth. kubeconform
# is installed from the Go module proxy (latest version); it has no network for
# schemas here, so it validates the Kuma and Linkerd policies against JSON schemas
# converted from the CRDs the e2e suite installs (e2e/testdata/crds.yaml: Kuma's
# own and generated Linkerd ones, with
# kubeconform's own openapi2jsonschema.py; needs python3 with PyYAML) and skips
# the Kubernetes kinds it has no schema for (-ignore-missing-schemas).
# Needs GNU time (/usr/bin/time; apt-get install time).
set -euo pipefail

sizes="1000 10000 50000 100000"
before=""
gen_flags=()
prefix=mix
while [ $# -gt 0 ]; do
	case "$1" in
	--before) before="$2"; shift 2 ;;
	--sizes) sizes="$2"; shift 2 ;;
	--small-mtp) gen_flags=(-small-mtp); prefix=small-mtp; shift ;;
	*) echo "usage: $0 [--before GIT_REV] [--sizes \"N ...\"] [--small-mtp]" >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
cache="$root/.cache/lint-growth"
mkdir -p "$cache/inputs" "$cache/bin" "$cache/schemas"
[ -x /usr/bin/time ] || { echo "lint-growth: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 1; }

cd "$root"
go build -o "$cache/bin/meshguard" ./cmd/meshguard
go build -o "$cache/bin/genmanifests" ./hack/genmanifests
if [ -n "$before" ]; then
	rev=$(git rev-parse --short "$before")
	src="$cache/src-$rev"
	if [ ! -x "$cache/bin/meshguard-$rev" ]; then
		rm -rf "$src" && mkdir -p "$src"
		git archive "$rev" | tar -x -C "$src"
		(cd "$src" && go build -o "$cache/bin/meshguard-$rev" ./cmd/meshguard)
		rm -rf "$src"
	fi
fi

kc_version=$(go list -m -f '{{.Version}}' github.com/yannh/kubeconform@latest)
if [ ! -x "$cache/bin/kubeconform-$kc_version" ]; then
	GOBIN="$cache/bin" go install "github.com/yannh/kubeconform/cmd/kubeconform@$kc_version"
	mv "$cache/bin/kubeconform" "$cache/bin/kubeconform-$kc_version"
fi
kc_src=$(go env GOMODCACHE)/github.com/yannh/kubeconform@$kc_version
if [ -z "$(ls "$cache/schemas")" ] && command -v python3 >/dev/null; then
	(cd "$cache/schemas" && FILENAME_FORMAT='{kind}-{group}-{version}' \
		python3 "$kc_src/scripts/openapi2jsonschema.py" "$root/e2e/testdata/crds.yaml" >/dev/null) ||
		echo "lint-growth: could not convert the CRDs; kubeconform will skip every kind" >&2
fi

# measure NAME CMD...: prints "cpu_seconds rss_mib" of one run; output discarded.
measure() {
	/usr/bin/time -o "$cache/time.out" -f '%U %S %M' "$@" >/dev/null 2>/dev/null || true
	tail -1 "$cache/time.out" | awk '{ printf "%.2f %.0f", $1 + $2, $3 / 1024 }'

}

header="| documents | file MiB | meshguard CPU s | meshguard peak RSS MiB |"
sep="| --- | --- | --- | --- |"
if [ -n "$before" ]; then
	header="$header meshguard@$rev CPU s | meshguard@$rev peak RSS MiB |"
	sep="$sep --- | --- |"
fi
header="$header kubeconform $kc_version CPU s | kubeconform peak RSS MiB | kubeconform valid / skipped |"
sep="$sep --- | --- | --- |"
echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "$header"
echo "$sep"
for n in $sizes; do
	in="$cache/inputs/$prefix-$n.yaml"
	[ -s "$in" ] || "$cache/bin/genmanifests" "${gen_flags[@]}" -n "$n" -o "$in"
	mib=$(awk -v b="$(stat -c %s "$in")" 'BEGIN { printf "%.1f", b / 1048576 }')
	read -r mg_cpu mg_rss <<<"$(measure "$cache/bin/meshguard" lint --progress=never -o json "$in")"
	row="| $n | $mib | $mg_cpu | $mg_rss |"
	if [ -n "$before" ]; then
		read -r b_cpu b_rss <<<"$(measure "$cache/bin/meshguard-$rev" lint -o json "$in")"
		row="$row $b_cpu | $b_rss |"
	fi
	kc=("$cache/bin/kubeconform-$kc_version" -n "$(nproc)" -ignore-missing-schemas -summary
		-schema-location "$cache/schemas/{{.ResourceKind}}{{.KindSuffix}}.json" "$in")
	read -r k_cpu k_rss <<<"$(measure "${kc[@]}")"
	counts=$( ("${kc[@]}" 2>&1 || true) | sed -n 's/.*Valid: \([0-9]*\),.*Skipped: \([0-9]*\).*/\1 \/ \2/p' | tail -1)
	echo "$row $k_cpu | $k_rss | $counts |"
done
