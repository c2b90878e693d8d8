#!/usr/bin/env bash
# startup-vs-kubeconform.sh measures what one `meshguard lint` of one small file costs
# next to kubeconform on the same file: the case pre-commit runs on every commit,
# where start-up, not linting, is the time (docs/performance.md, "Start-up").
#
#   go run ./hack/bench startup [--rounds 20] [--meshguard PATH]
#
# The file is examples/valid/02-producer-backend.yaml as meshguard's mutating webhook
# stores it (`meshguard default`), so both tools accept it; kubeconform checks it
# against the JSON Schemas `meshguard schema` writes from the same CRDs (-strict), as
# docs/integrations.md shows. The tools run alternately, --rounds times each after a
# warm-up; the script prints each tool's median and best wall time, their ratio, and
# the package initialisers of one meshguard start (GODEBUG=inittrace=1): the total,
# and the heaviest by clock and by bytes. kubeconform comes from PATH or from
# hack/test-tools.sh's directory (~/.cache/meshguard/bin). Wall times on a shared
# machine are noisy; the init bytes and allocations are not.
set -euo pipefail

rounds=20
mg=""
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds="$2"; shift 2 ;;
	--meshguard) mg="$2"; shift 2 ;;
	*) echo "usage: $0 [--rounds N] [--meshguard PATH]" >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
cache="$root/.cache/startup"
mkdir -p "$cache"
if [ -z "$mg" ]; then
	mg="$cache/meshguard"
	(cd "$root" && go build -o "$mg" ./cmd/meshguard)
fi
kc=$(command -v kubeconform || true)
[ -n "$kc" ] || kc="${XDG_CACHE_HOME:-$HOME/.cache}/meshguard/bin/kubeconform"
[ -x "$kc" ] || { echo "startup-vs-kubeconform: no kubeconform; run hack/test-tools.sh" >&2; exit 1; }

small="$cache/small.yaml"
"$mg" default "$root/examples/valid/02-producer-backend.yaml" >"$small"
rm -rf "$cache/schemas"
"$mg" schema --dir "$cache/schemas" >/dev/null
mg_cmd=("$mg" lint -o json "$small")
kc_cmd=("$kc" -strict -schema-location "$cache/schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json" "$small")
"${mg_cmd[@]}" >/dev/null
"${kc_cmd[@]}" >/dev/null

ms() { # runs "$@" once and prints its wall time in milliseconds
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}
: >"$cache/mg.us"
: >"$cache/kc.us"
for _ in $(seq "$rounds"); do
	ms "${mg_cmd[@]}" >>"$cache/mg.us"
	ms "${kc_cmd[@]}" >>"$cache/kc.us"
done
stats() { sort -n "$1" | awk '{a[NR] = $1} END {printf "%.1f %.1f", a[int((NR + 1) / 2)] / 1000, a[1] / 1000}'; }
read -r mg_med mg_best <<<"$(stats "$cache/mg.us")"
read -r kc_med kc_best <<<"$(stats "$cache/kc.us")"
echo "one small file, $rounds runs each, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
printf '  %-12s median %7.1f ms  best %7.1f ms\n' meshguard "$mg_med" "$mg_best" kubeconform "$kc_med" "$kc_best"
awk -v a="$mg_med" -v b="$kc_med" 'BEGIN {printf "  meshguard / kubeconform (medians): %.1fx\n", a / b}'

GODEBUG=inittrace=1 "${mg_cmd[@]}" 2>"$cache/inittrace" >/dev/null
grep '^init ' "$cache/inittrace" >"$cache/inits" || true
awk '{ms += $5; b += $8; n++} END {printf "package initialisers: %d packages, %.1f ms clock, %.1f MB allocated\n", n, ms, b / 1048576}' "$cache/inits"
echo "  heaviest by clock (ms):"
sort -k5 -g -r "$cache/inits" | head -5 | awk '{printf "    %-60s %6s ms %9d bytes\n", $2, $5, $8}'
echo "  heaviest by bytes allocated:"
sort -k8 -n -r "$cache/inits" | head -5 | awk '{printf "    %-60s %6s ms %9d bytes\n", $2, $5, $8}'
