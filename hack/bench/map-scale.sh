#!/usr/bin/env bash
# map-scale.sh N [SHAPE]: time `meshguard map` on a generated Kubernetes mesh of N
# workloads (Deployments with a Service each, a hundred per namespace, one in ten
# labelled tier: frontend) and N/2 MeshTrafficPermissions: a mesh-wide deny, one
# per namespace allowing its own namespace, and the rest one per workload (every
# second one) by Dataplane labels. SHAPE says whom those per-workload policies
# name: "namespaces" (default: allow the next namespace, deny its frontends, as
# teams write them) or "services" (allow two services and deny a third by name,
# so nearly every client is told apart: the classes approach the workloads and
# --max-cells bounds the map). Prints the classes, cells, notes, wall time,
# user+system CPU and peak memory of -o json and --by namespace. Needs
# bin/meshguard (go build -o bin/ ./cmd/meshguard).
set -euo pipefail
n=${1:-2000}
shape=${2:-namespaces}
case "$shape" in namespaces|services) ;; *) echo "map-scale.sh: SHAPE must be namespaces or services" >&2; exit 2 ;; esac
ns=$(( n / 100 > 2 ? n / 100 : 2 ))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
{
  for i in $(seq 0 $((n - 1))); do
    k=$(( i % ns ))
    tier=backend; (( i % 10 == 0 )) && tier=frontend
    printf -- '---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w-%d, namespace: ns-%d}\nspec:\n  selector: {matchLabels: {app: w-%d}}\n  template:\n    metadata: {labels: {app: w-%d, tier: %s}}\n    spec: {serviceAccountName: w-%d, containers: [{name: app, image: app, ports: [{containerPort: 8080}]}]}\n' "$i" "$k" "$i" "$i" "$tier" "$i"
    printf -- '---\napiVersion: v1\nkind: Service\nmetadata: {name: w-%d, namespace: ns-%d}\nspec: {selector: {app: w-%d}, ports: [{port: 80, targetPort: 8080}]}\n' "$i" "$k" "$i"
  done
  printf -- '---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: deny-all, namespace: kuma-system}\nspec:\n  targetRef: {kind: Mesh}\n  from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]\n'
  for k in $(seq 0 $((ns - 1))); do
    printf -- '---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: own-namespace, namespace: ns-%d}\nspec:\n  targetRef: {kind: Mesh}\n  from: [{targetRef: {kind: MeshSubset, tags: {k8s.kuma.io/namespace: ns-%d}}, default: {action: Allow}}]\n' "$k" "$k"
  done
  for j in $(seq 0 $((n / 2 - 2 - ns))); do
    w=$(( 2 * j )); k=$(( w % ns )); next=$(( (k + 1) % ns ))
    if [[ $shape == namespaces ]]; then
      from="[{targetRef: {kind: MeshSubset, tags: {k8s.kuma.io/namespace: ns-$next}}, default: {action: Allow}}, {targetRef: {kind: MeshSubset, tags: {k8s.kuma.io/namespace: ns-$next, tier: frontend}}, default: {action: Deny}}]"
    else
      a=$(( (w + 1) % n )); b=$(( (w + 3) % n )); c=$(( (w + 5) % n ))
      from="[{targetRef: {kind: MeshService, name: w-${a}_ns-$(( a % ns ))_svc_80}, default: {action: Allow}}, {targetRef: {kind: MeshService, name: w-${b}_ns-$(( b % ns ))_svc_80}, default: {action: Allow}}, {targetRef: {kind: MeshService, name: w-${c}_ns-$(( c % ns ))_svc_80}, default: {action: Deny}}]"
    fi
    printf -- '---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: w-%d-clients, namespace: ns-%d}\nspec:\n  targetRef: {kind: Dataplane, labels: {app: w-%d}}\n  from: %s\n' "$w" "$k" "$w" "$from"
  done
} > "$dir/mesh.yaml"
echo "input: $n workloads and Services in $ns namespaces, $((n / 2)) MeshTrafficPermissions (shape $shape; $(wc -c < "$dir/mesh.yaml") bytes)"
measure() {
  /usr/bin/time -o "$dir/time" -f "  %e s wall, %U s user + %S s sys, %M KB peak" bin/meshguard map "$@" "$dir/mesh.yaml" > "$dir/out"
  cat "$dir/time"
}
echo "-o json"
measure -o json
python3 - "$dir/out" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
rows = len({d["class"] for d in m["destinations"]}); cols = len({c["class"] for c in m["clients"]})
print(f"  {len(m['destinations'])} destinations in {rows} classes, {len(m['clients'])} clients in {cols} classes, {len(m['cells'])} cells; JSON {sum(1 for _ in open(sys.argv[1], 'rb'))} lines")
for note in m.get("notes") or []:
    print("  note:", note[:160])
PY
echo "--by namespace"
measure --by namespace
