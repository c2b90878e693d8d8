#!/usr/bin/env bash
# Release artefacts in $DIST (default dist/): for each of $TARGETS a tar.gz with
# static, reproducible meshguard and meshguard-render binaries (the renderer
# meshguard runs for Helm charts and kustomizations; it must sit next to meshguard
# or on PATH), a CycloneDX SBOM of each (hack/sbom: NAME.cdx.json for meshguard,
# NAME.render.cdx.json for meshguard-render), one checksum file over them all, and
# the krew manifest filled from deploy/krew/.
#
#   VERSION=v0.2.0 bash hack/release.sh          # make release VERSION=v0.2.0
#   TARGETS=linux/amd64 DIST=/tmp/d bash hack/release.sh
#
# Reproducible: the same commit, VERSION and Go give byte-identical archives on any
# machine: CGO off, -trimpath, no VCS stamp (version and commit come from -ldflags,
# so an untracked file in the checkout changes nothing), no build id, and archives with
# sorted names, owner 0 and the commit's time (SOURCE_DATE_EPOCH).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}
DIST=${DIST:-dist}
TARGETS=${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
GO=${GO:-go}

mkdir -p "$DIST"
DIST=$(cd "$DIST" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/meshguard-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$GO" build -o "$work/sbom" ./hack/sbom

files=()
for t in $TARGETS; do
  os=${t%/*} arch=${t#*/}
  name="meshguard_${VERSION}_${os}_${arch}"
  mkdir -p "$work/$name"
  echo "release: $name"
  for cmd in meshguard meshguard-render; do
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath -buildvcs=false \
      -ldflags "-s -w -buildid= -X main.version=$VERSION -X main.commit=$COMMIT" \
      -o "$work/$name/$cmd" "./cmd/$cmd"
  done
  tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    -C "$work/$name" -cf - meshguard meshguard-render | gzip -n -9 >"$DIST/$name.tar.gz"
  "$work/sbom" "$work/$name/meshguard" "$VERSION" >"$DIST/$name.cdx.json"
  "$work/sbom" "$work/$name/meshguard-render" "$VERSION" >"$DIST/$name.render.cdx.json"
  files+=("$name.tar.gz" "$name.cdx.json" "$name.render.cdx.json")
done

sums="meshguard_${VERSION}_checksums.txt"
(cd "$DIST" && sha256sum "${files[@]}" >"$sums")

# The krew manifest: {{VERSION}} and {{SHA256_<os>_<arch>}} filled in; only for a
# full release (krew wants every platform it lists).
krew=(-e "s/{{VERSION}}/$VERSION/g")
for t in $TARGETS; do
  os=${t%/*} arch=${t#*/}
  sum=$(sha256sum "$DIST/meshguard_${VERSION}_${os}_${arch}.tar.gz" | cut -d' ' -f1)
  krew+=(-e "s/{{SHA256_${os}_${arch}}}/$sum/g")
done
sed "${krew[@]}" deploy/krew/meshguard.yaml >"$work/meshguard.krew.yaml"
if grep -q '{{' "$work/meshguard.krew.yaml"; then
  echo "release: not every krew platform was built; no krew manifest written"
else
  cp "$work/meshguard.krew.yaml" "$DIST/meshguard.krew.yaml"
fi
echo "release: $DIST/$sums"
cat "$DIST/$sums"
