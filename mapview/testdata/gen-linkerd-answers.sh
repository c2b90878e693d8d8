#!/usr/bin/env bash
# Regenerates linkerd-answers.json: `meshguard check -o json` of examples/check/linkerd
# for the web pods' three ports against four clients (three ServiceAccounts and an
# unauthenticated address), a GET of /api/orders, one answer after another. The HTML
# page's Linkerd test builds its map from these real answers.
#
#   go build -o /tmp/mg/ ./cmd/meshguard && MESHGUARD=/tmp/mg/meshguard bash mapview/testdata/gen-linkerd-answers.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
mg=${MESHGUARD:-meshguard}
out=mapview/testdata/linkerd-answers.json
: >"$out"
for port in 8080 9990 9100; do
	for client in "--from shop/gateway" "--from monitoring/prometheus" "--from shop/cart" "--from-ip 10.2.3.4"; do
		# shellcheck disable=SC2086 # the client is a flag and its value
		"$mg" check examples/check/linkerd $client --to Deployment/web --to-namespace shop --port "$port" \
			--method GET --path /api/orders -o json >>"$out" || [ $? = 1 ]
	done
done
