#!/usr/bin/env bash
# inspect-scale.sh N: time `meshguard inspect` on a generated Universal mesh of N
# Dataplanes, N MeshServices, N/2 MeshTimeouts and N/2 MeshRetries (a quarter of each
# mesh-wide, the rest to one MeshService each), asking for dp-1. Prints wall time,
# user+system CPU and peak memory of --kuma-api _rules, _outbounds/{kri}/_policies
# and --dataplane. Needs bin/meshguard (go build -o bin/ ./cmd/meshguard).
set -euo pipefail
n=${1:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
{
  printf 'type: Mesh\nname: default\nmeshServices:\n  mode: Exclusive\n'
  for i in $(seq 1 "$n"); do
    printf -- '---\ntype: Dataplane\nname: dp-%d\nmesh: default\nlabels:\n  app: app-%d\nnetworking:\n  address: 10.0.%d.%d\n  inbound:\n    - port: 8080\n      name: http\n      tags:\n        kuma.io/service: svc-%d\n        kuma.io/protocol: http\n' "$i" "$i" $((i / 250)) $((i % 250)) "$i"
    printf -- '---\ntype: MeshService\nname: svc-%d\nmesh: default\nspec:\n  selector:\n    dataplaneTags:\n      kuma.io/service: svc-%d\n  ports:\n    - name: http\n      port: 80\n      targetPort: 8080\n      appProtocol: http\n' "$i" "$i"
  done
  for i in $(seq 1 $((n / 2))); do
    if (( i % 4 == 0 )); then to='kind: Mesh'; else to="kind: MeshService\n        name: svc-$i"; fi
    printf -- "---\ntype: MeshTimeout\nname: mt-%d\nmesh: default\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        $to\n      default:\n        http:\n          requestTimeout: %ds\n" "$i" $((i % 60 + 1))
    printf -- "---\ntype: MeshRetry\nname: mr-%d\nmesh: default\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        $to\n      default:\n        http:\n          numRetries: %d\n" "$i" $((i % 5 + 1))
  done
} > "$dir/mesh.yaml"
echo "input: $n Dataplanes, $n MeshServices, $((n / 2)) MeshTimeouts, $((n / 2)) MeshRetries ($(wc -c < "$dir/mesh.yaml") bytes)"
measure() {
  /usr/bin/time -o "$dir/time" -f "  %e s wall, %U s user + %S s sys, %M KB peak" bin/meshguard inspect "$@" "$dir/mesh.yaml" > /dev/null
  cat "$dir/time"
}
echo "--kuma-api /meshes/default/dataplanes/dp-1/_rules"
measure --kuma-api /meshes/default/dataplanes/dp-1/_rules
echo "--kuma-api /meshes/default/dataplanes/dp-1/_outbounds/kri_msvc_default___svc-2_http/_policies"
measure --kuma-api /meshes/default/dataplanes/dp-1/_outbounds/kri_msvc_default___svc-2_http/_policies
echo "--dataplane dp-1"
measure --dataplane dp-1
