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
#
# Progress goes to stderr, one line per stage with the elapsed time; the go tool's own
# output (hundreds of "go: downloading" lines) goes to a log that is printed only when
# a stage fails.
set -euo pipefail
export GOTOOLCHAIN=local
KUBE_VERSION=${KUBE_VERSION:-1.36.3}
ETCD_VERSION=${ETCD_VERSION:-3.6.5}
CACHE=${MESHGUARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/meshguard}
OUT="$CACHE/controlplane/k8s-v${KUBE_VERSION}_etcd-v${ETCD_VERSION}_r2"
mkdir -p "$OUT"
START=$SECONDS
log() { printf 'build-control-plane [%3dm%02ds] %s\n' $(((SECONDS - START) / 60)) $(((SECONDS - START) % 60)) "$*" >&2; }

# stage NAME CMD...: runs CMD with its output in $work/build.log, and says how long it took.
stage() {
  local name=$1 t0=$SECONDS; shift
  log "$name ..."
  if ! "$@" >>"$work/build.log" 2>&1; then
    log "$name failed; the go tool said:"
    tail -n 40 "$work/build.log" >&2
    exit 1
  fi
  log "$name done in $((SECONDS - t0))s"
}

if [ ! -x "$OUT/kube-apiserver" ]; then
  # Measured on a 2-core VM with empty Go caches: ~15 s download, 3.5-11 min compile.
  log "kube-apiserver v${KUBE_VERSION} is not cached: building it once for this machine (3 to 11 minutes on 2 cores)"
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
  staging="0.${KUBE_VERSION#1.}"
  resolve() ( cd "$work" && go mod download -json "k8s.io/kubernetes@v${KUBE_VERSION}" >"$work/kube.json" )
  stage "1/4 fetching k8s.io/kubernetes v${KUBE_VERSION}" resolve
  gomod=$(sed -n 's/.*"GoMod": "\(.*\)".*/\1/p' "$work/kube.json")
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
  # Stage bodies run in subshells: they cd into $work, which is removed afterwards.
  deps() (
    cd "$work"
    go mod tidy -e || true
    go get "k8s.io/kubernetes/cmd/kube-apiserver@v${KUBE_VERSION}"
  )
  stage "2/4 downloading kube-apiserver's modules" deps
  compile() (
    # Stamp the version like kubernetes' own build does: the API server derives its
    # compatibility version from it, and clients (kubectl, helm) read it.
    local v=k8s.io/component-base/version minor
    minor=$(echo "$KUBE_VERSION" | cut -d. -f2)
    cd "$work" && CGO_ENABLED=0 go build -trimpath \
      -ldflags "-X $v.gitVersion=v${KUBE_VERSION} -X $v.gitMajor=1 -X $v.gitMinor=${minor} -X $v.gitTreeState=clean -X $v.buildDate=1970-01-01T00:00:00Z" \
      -o "$OUT/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  )
  stage "3/4 compiling kube-apiserver (the long part)" compile
  mv "$OUT/kube-apiserver.tmp" "$OUT/kube-apiserver"
  rm -rf "$work"; trap - EXIT
fi

if [ ! -x "$OUT/etcd" ]; then
  log "etcd v${ETCD_VERSION} is not cached: building it once (about 2 minutes)"
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
  etcd() ( cd "$work" && go mod tidy && CGO_ENABLED=0 go build -trimpath -o "$OUT/etcd.tmp" . )
  stage "4/4 downloading and compiling etcd" etcd
  mv "$OUT/etcd.tmp" "$OUT/etcd"
  rm -rf "$work"; trap - EXIT
  log "control plane ready in $OUT"
fi
echo "$OUT"
