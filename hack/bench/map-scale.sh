#!/usr/bin/env bash
# map-scale.sh N [SHAPE]: time `meshguard map` on a generated Kubernetes mesh of N
# workloads (Deployments with a Service each, a hundred per namespace, one in ten
# labelled tier: frontend) and N/2 MeshTrafficPermissions: a mesh-wide deny, one
# per namespace allowing its own namespace, and the rest one per workload (every
# second one) by Dataplane labels. SHAPE says whom those per-workload policies
# name: "namespaces" (default: allow the next namespace, deny its frontends, as
# teams write them) or "services" (allow two services and deny a third by name,
# so nearly every client is told apart: the classes approach the workloads and
# --max-cells bounds the map), or "linkerd": the same Deployments (ports http 8080,
# admin 9990, metrics 9100; one in twenty annotated
# config.linkerd.io/default-inbound-policy: all-unauthenticated) in namespaces
# annotated in turn all-authenticated, cluster-authenticated and deny, with a
# Server for each workload's http port, one metrics Server per namespace, and
# AuthorizationPolicies: every second workload's Server admits two named
# callers (a MeshTLSAuthentication of their ServiceAccounts), the others their
# namespace and the next one (one MeshTLSAuthentication of identityRefs
# Namespace per namespace), every metrics Server Prometheus's ServiceAccount
# and a NetworkAuthentication of the cluster networks. Prints the classes, cells, notes, wall time,
# user+system CPU and peak memory of -o json and --by namespace, and whether the
# map is complete (no bound reached). Needs
# bin/meshguard (go build -o bin/ ./cmd/meshguard).
set -euo pipefail
n=${1:-2000}
shape=${2:-namespaces}
case "$shape" in namespaces|services|linkerd) ;; *) echo "map-scale.sh: SHAPE must be namespaces, services or linkerd" >&2; exit 2 ;; esac
ns=$(( n / 100 > 2 ? n / 100 : 2 ))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
kuma() {
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
}
linkerd() {
  local modes=(all-authenticated cluster-authenticated deny)
  for k in $(seq 0 $((ns - 1))); do
    printf -- '---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns-%d, annotations: {config.linkerd.io/default-inbound-policy: %s}}\n' "$k" "${modes[$(( k % 3 ))]}"
    printf -- '---\napiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: metrics, namespace: ns-%d}\nspec: {podSelector: {matchLabels: {mesh: linkerd}}, port: metrics, proxyProtocol: HTTP/1}\n' "$k"
    printf -- '---\napiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata: {name: prometheus, namespace: ns-%d}\nspec: {identityRefs: [{kind: ServiceAccount, name: prometheus, namespace: monitoring}]}\n' "$k"
    printf -- '---\napiVersion: policy.linkerd.io/v1alpha1\nkind: NetworkAuthentication\nmetadata: {name: cluster, namespace: ns-%d}\nspec: {networks: [{cidr: 10.0.0.0/8}]}\n' "$k"
    printf -- '---\napiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\nmetadata: {name: metrics-prometheus, namespace: ns-%d}\nspec:\n  targetRef: {group: policy.linkerd.io, kind: Server, name: metrics}\n  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: prometheus}, {group: policy.linkerd.io, kind: NetworkAuthentication, name: cluster}]\n' "$k"
    printf -- '---\napiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata: {name: neighbours, namespace: ns-%d}\nspec: {identityRefs: [{kind: Namespace, name: ns-%d}, {kind: Namespace, name: ns-%d}]}\n' "$k" "$k" "$(( (k + 1) % ns ))"
  done
  for i in $(seq 0 $((n - 1))); do
    k=$(( i % ns ))
    tier=backend; (( i % 10 == 0 )) && tier=frontend
    ann=""; (( i % 20 == 7 )) && ann=", annotations: {config.linkerd.io/default-inbound-policy: all-unauthenticated}"
    printf -- '---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w-%d, namespace: ns-%d}\nspec:\n  selector: {matchLabels: {app: w-%d}}\n  template:\n    metadata: {labels: {app: w-%d, tier: %s, mesh: linkerd}%s}\n    spec: {serviceAccountName: w-%d, containers: [{name: app, image: app, ports: [{name: http, containerPort: 8080}, {name: admin, containerPort: 9990}, {name: metrics, containerPort: 9100}]}]}\n' "$i" "$k" "$i" "$i" "$tier" "$ann" "$i"
    printf -- '---\napiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: w-%d-http, namespace: ns-%d}\nspec: {podSelector: {matchLabels: {app: w-%d}}, port: http, proxyProtocol: HTTP/1}\n' "$i" "$k" "$i"
    if (( i % 2 == 0 )); then
      a=$(( (i + 1) % n )); b=$(( (i + 3) % n ))
      printf -- '---\napiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata: {name: w-%d-callers, namespace: ns-%d}\nspec: {identityRefs: [{kind: ServiceAccount, name: w-%d, namespace: ns-%d}, {kind: ServiceAccount, name: w-%d, namespace: ns-%d}]}\n' "$i" "$k" "$a" "$(( a % ns ))" "$b" "$(( b % ns ))"
      authn=w-$i-callers
    else
      authn=neighbours
    fi
    printf -- '---\napiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\nmetadata: {name: w-%d-http, namespace: ns-%d}\nspec:\n  targetRef: {group: policy.linkerd.io, kind: Server, name: w-%d-http}\n  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: %s}]\n' "$i" "$k" "$i" "$authn"
  done
}
if [[ $shape == linkerd ]]; then linkerd; else kuma; fi > "$dir/mesh.yaml"
if [[ $shape == linkerd ]]; then
  echo "input: $n workloads (3 ports each) in $ns namespaces, $((n + ns)) Servers, $((n + ns)) AuthorizationPolicies, $((n / 2 + 2 * ns)) MeshTLSAuthentications, $ns NetworkAuthentications (shape linkerd; $(wc -c < "$dir/mesh.yaml") bytes)"
else
  echo "input: $n workloads and Services in $ns namespaces, $((n / 2)) MeshTrafficPermissions (shape $shape; $(wc -c < "$dir/mesh.yaml") bytes)"
fi
if [[ -n ${MAP_SCALE_KEEP:-} ]]; then cp "$dir/mesh.yaml" "$MAP_SCALE_KEEP"; fi
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
listed = sum(len(c.get("clientClasses") or []) for c in m["cells"])
bound = any(n.startswith("the bound of") for n in m.get("notes") or [])
print(f"  {len(m['destinations'])} destinations in {rows} classes, {len(m['clients'])} clients in {cols} classes, {len(m['cells'])} cells listing {listed} client classes (version {m['version']}); JSON {sum(1 for _ in open(sys.argv[1], 'rb'))} lines; {'PARTIAL: bound reached' if bound else 'complete'}")
for note in m.get("notes") or []:
    print("  note:", note[:160])
PY
echo "--by namespace"
measure --by namespace
