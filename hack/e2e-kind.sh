#!/usr/bin/env bash
# Runs the e2e suite (e2e/, build tag e2e) against meshguard installed the production
# way: a kind cluster, the Docker image built from the repository's Dockerfile, and
# `helm install` of charts/meshguard. `make e2e-kind` calls it.
#
# Needs Docker (a reachable daemon), kubectl and Go. kind and helm are used from the
# per-machine cache, built there with `go install` at the pinned versions when missing:
#   $MESHGUARD_CACHE/tools/kind-$KIND_VERSION/kind
#   $MESHGUARD_CACHE/tools/helm-$HELM_VERSION/helm   (the same helm as make chart-lint)
#
# Environment:
#   KIND_VERSION     (v0.33.0)          HELM_VERSION (v3.22.0)
#   KIND, HELM       use these binaries instead of the cached ones
#   KIND_CLUSTER     (meshguard-e2e)    cluster name; it must not exist yet
#   KIND_NODE_IMAGE  ("")               node image (kind's default for its version)
#   IMAGE_REPO       (meshguard/meshguard)  IMAGE_TAG (e2e)  the image built and loaded
#   E2E_RUN          (.)                go test -run pattern
#   KEEP_CLUSTER     ("")               non-empty: leave the cluster (and its kubeconfig) behind
#   MESHGUARD_CACHE  (${XDG_CACHE_HOME:-$HOME/.cache}/meshguard)
#
# The suite is told about the cluster with -kubeconfig: "use this cluster, where
# meshguard is already installed with helm" (no local control plane, and the tests
# that need to restart the local meshguard process or read the audit log skip).
# The cluster is deleted on exit, success or not, unless KEEP_CLUSTER is set.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

KIND_VERSION=${KIND_VERSION:-v0.33.0}
HELM_VERSION=${HELM_VERSION:-v3.22.0}
CACHE=${MESHGUARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/meshguard}
CLUSTER=${KIND_CLUSTER:-meshguard-e2e}
KIND_NODE_IMAGE=${KIND_NODE_IMAGE:-}
IMAGE_REPO=${IMAGE_REPO:-meshguard/meshguard}
IMAGE_TAG=${IMAGE_TAG:-e2e}
IMAGE="$IMAGE_REPO:$IMAGE_TAG"
E2E_RUN=${E2E_RUN:-.}
KEEP_CLUSTER=${KEEP_CLUSTER:-}
RELEASE=meshguard
NAMESPACE=meshguard-system

log() { printf '\n== e2e-kind: %s\n' "$*" >&2; }
die() { printf 'e2e-kind: %s\n' "$*" >&2; exit 1; }

# --- preconditions: fail fast, before building or creating anything -------------
command -v docker >/dev/null 2>&1 ||
  die "docker not found. make e2e-kind needs Docker; without it, 'make test' runs the same suite on a local control plane."
if ! docker info >/dev/null 2>&1; then
  die "'docker info' failed: no reachable Docker daemon (is it running, may $(id -un) use it?). Without Docker, 'make test' runs the same suite on a local control plane."
fi
command -v kubectl >/dev/null 2>&1 || die "kubectl not found in PATH"
command -v go >/dev/null 2>&1 || die "go not found in PATH"

# tool NAME VERSION MODULE: prints the binary, go-installing it into the cache once.
tool() {
  local name=$1 version=$2 module=$3 dir
  dir="$CACHE/tools/$name-$version"
  if [ ! -x "$dir/$name" ]; then
    log "installing $name $version into $dir (once)"
    mkdir -p "$dir"
    GOBIN="$dir" go install "$module@$version" >&2
  fi
  printf '%s\n' "$dir/$name"
}
KIND=${KIND:-$(tool kind "$KIND_VERSION" sigs.k8s.io/kind)}
HELM=${HELM:-$(tool helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm)}

if "$KIND" get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
  die "a kind cluster named $CLUSTER exists already; delete it ($KIND delete cluster --name $CLUSTER) or set KIND_CLUSTER"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/meshguard-e2e-kind.XXXXXX")
KUBECONFIG_FILE="$work/kubeconfig"
created=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$created" ] && [ -z "$KEEP_CLUSTER" ]; then
    log "deleting kind cluster $CLUSTER"
    "$KIND" delete cluster --name "$CLUSTER" || true
    rm -rf "$work"
  elif [ -n "$created" ]; then
    log "KEEP_CLUSTER set: cluster $CLUSTER left running; kubeconfig $KUBECONFIG_FILE"
  else
    rm -rf "$work"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

k() { kubectl --kubeconfig "$KUBECONFIG_FILE" "$@"; }

# --- cluster, image, CRDs, chart -------------------------------------------------
log "creating kind cluster $CLUSTER (kind $KIND_VERSION${KIND_NODE_IMAGE:+, node image $KIND_NODE_IMAGE})"
created=1
"$KIND" create cluster --name "$CLUSTER" --kubeconfig "$KUBECONFIG_FILE" --wait 180s \
  ${KIND_NODE_IMAGE:+--image "$KIND_NODE_IMAGE"}
k version

log "docker build -t $IMAGE ."
docker build -t "$IMAGE" .

log "kind load docker-image $IMAGE"
"$KIND" load docker-image "$IMAGE" --name "$CLUSTER"

# The test CRDs (generated from api/, committed; a unit test fails when they are
# stale). In production the mesh installs its own CRDs. Server-side apply: the
# schemas are too large for the last-applied annotation.
log "installing the test CRDs (e2e/testdata/crds.yaml)"
k apply --server-side -f e2e/testdata/crds.yaml
k wait --for condition=Established --timeout 60s -f e2e/testdata/crds.yaml

# The chart's release-detection Role (releaseDetection.kuma, auto) is created when the
# install finds the mesh's system namespace, which Kuma's own install creates; here
# nothing does, so create it first, as a cluster running Kuma has it.
log "creating namespace kuma-system (the chart's systemNamespace)"
k create namespace kuma-system --dry-run=client -o yaml | k apply -f -

# pullPolicy Never: the image only exists on the nodes, loaded by kind.
log "helm install $RELEASE charts/meshguard -n $NAMESPACE (image $IMAGE)"
"$HELM" install "$RELEASE" charts/meshguard --kubeconfig "$KUBECONFIG_FILE" \
  --namespace "$NAMESPACE" --create-namespace \
  --set image.repository="$IMAGE_REPO" --set image.tag="$IMAGE_TAG" --set image.pullPolicy=Never \
  --wait --timeout 5m

log "waiting for the rollout and the injected caBundle"
if ! k -n "$NAMESPACE" rollout status "deployment/$RELEASE" --timeout 5m; then
  k -n "$NAMESPACE" get pods -o wide || true
  k -n "$NAMESPACE" logs "deployment/$RELEASE" --tail 50 || true
  die "meshguard did not become ready"
fi
for cfg in mutatingwebhookconfiguration validatingwebhookconfiguration; do
  for _ in $(seq 1 60); do
    ca=$(k get "$cfg" -l "app.kubernetes.io/instance=$RELEASE" -o jsonpath='{.items[*].webhooks[*].clientConfig.caBundle}')
    [ -n "$ca" ] && break
    sleep 2
  done
  [ -n "$ca" ] || die "no caBundle injected into the $cfg of $RELEASE"
done

# --- the suite -------------------------------------------------------------------
log "go test -tags e2e ./e2e/ -run '$E2E_RUN' -args -kubeconfig=$KUBECONFIG_FILE"
go test -tags e2e -count=1 -v -timeout 30m ./e2e/ -run "$E2E_RUN" -args -kubeconfig="$KUBECONFIG_FILE"
log "passed"
