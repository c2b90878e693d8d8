#!/usr/bin/env bash
# Regenerates kuma-answers.json: `meshguard check -o json` for every pair of the
# workloads of examples/check/kuma (payments) and kuma-workloads.yaml, one answer
# after another. The HTML page's tests build their fixture map from these real
# answers, so the explanation panel shows what `check` says.
#
#   go build -o /tmp/mg/ ./cmd/meshguard && MESHGUARD=/tmp/mg/meshguard bash mapview/testdata/gen-kuma-answers.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
mg=${MESHGUARD:-meshguard}
out=mapview/testdata/kuma-answers.json
: >"$out"
apps="shop/payments shop/web shop/cart shop/orders legacy/old other/batch"
for dest in $apps; do
	for client in $apps; do
		ns=${client%/*} name=${client#*/}
		"$mg" check examples/check/kuma mapview/testdata/kuma-workloads.yaml \
			--to "Deployment/${dest#*/}" --to-namespace "${dest%/*}" \
			--from "kuma.io/service=${name}_${ns}_svc_80,app=${name},k8s.kuma.io/namespace=${ns}" -o json >>"$out" || [ $? = 1 ]
	done
done
