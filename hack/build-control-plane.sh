#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy into a per-machine cache,
# keyed by version, and prints the directory. Later runs reuse the binaries.
#
#   KUBE_VERSION (default 1.36.3)  ETCD_VERSION (default 3.6.5)
#   MESHGUARD_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/meshguard)
#
# No Docker and no prebuilt downloads: both are compiled from source through small
# wrapper modules (kube-apiserver needs every k8s.io staging module replaced by the
# matching v0.x tag, which is what the wrapper's go.mod does).
set -euo pipefail
export GOTOOLCHAIN=local
KUBE_VERSION=${KUBE_VERSION:-1.36.3}
ETCD_VERSION=${ETCD_VERSION:-3.6.5}
CACHE=${MESHGUARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/meshguard}
OUT="$CACHE/controlplane/k8s-v${KUBE_VERSION}_etcd-v${ETCD_VERSION}_r2"
mkdir -p "$OUT"
log() { echo "build-control-plane: $*" >&2; }

if [ ! -x "$OUT/kube-apiserver" ]; then
  log "building kube-apiserver v${KUBE_VERSION} (first time only, ~10 minutes on 2 cores)"
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
  staging="0.${KUBE_VERSION#1.}"
  gomod=$(cd "$work" && go mod download -json "k8s.io/kubernetes@v${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  {
    echo "module meshguard.local/kube-apiserver-wrapper"
    echo
    echo "go $(go env GOVERSION | sed 's/^go//')"
    echo
    echo "require k8s.io/kubernetes v${KUBE_VERSION}"
    echo
    # every "k8s.io/x => ./staging/src/k8s.io/x" of kubernetes' go.mod becomes "=> k8s.io/x v0.N.M"
    sed -n 's#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/src/k8s.io/.*#replace \1 => \1 v'"$staging"'#p' "$gomod"
  } > "$work/go.mod"
  cat > "$work/tools.go" <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
  (cd "$work" && go mod tidy -e >/dev/null 2>&1 || true
   cd "$work" && go get "k8s.io/kubernetes/cmd/kube-apiserver@v${KUBE_VERSION}" >/dev/null
   # Stamp the version like kubernetes' own build does: the API server derives its
   # compatibility version from it, and clients (kubectl, helm) read it.
   v=k8s.io/component-base/version
   minor=$(echo "$KUBE_VERSION" | cut -d. -f2)
   CGO_ENABLED=0 go build -trimpath \
     -ldflags "-X $v.gitVersion=v${KUBE_VERSION} -X $v.gitMajor=1 -X $v.gitMinor=${minor} -X $v.gitTreeState=clean -X $v.buildDate=1970-01-01T00:00:00Z" \
     -o "$OUT/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv "$OUT/kube-apiserver.tmp" "$OUT/kube-apiserver"
  rm -rf "$work"; trap - EXIT
fi

if [ ! -x "$OUT/etcd" ]; then
  log "building etcd v${ETCD_VERSION} (first time only, ~2 minutes)"
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
  cat > "$work/go.mod" <<GOMOD
module meshguard.local/etcd-wrapper

go $(go env GOVERSION | sed 's/^go//')

require go.etcd.io/etcd/server/v3 v${ETCD_VERSION}
GOMOD
  cat > "$work/main.go" <<'GO'
// Command etcd is etcd's own main, built from go.etcd.io/etcd/server/v3.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  (cd "$work" && go mod tidy >/dev/null && CGO_ENABLED=0 go build -trimpath -o "$OUT/etcd.tmp" .)
  mv "$OUT/etcd.tmp" "$OUT/etcd"
  rm -rf "$work"; trap - EXIT
fi
echo "$OUT"
