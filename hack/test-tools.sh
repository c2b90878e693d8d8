#!/usr/bin/env bash
# Puts the outside tools the integration tests run on PATH, so that `make test`
# exercises them on a fresh machine instead of skipping: kubeconform (go install
# from the Go module proxy into ~/.cache/meshguard/bin) and pre-commit (the Debian
# package, when apt-get is there and we are root). Prints the directory to add to
# PATH. A tool that cannot be had is reported, and its tests skip saying so.
set -u
bin="${XDG_CACHE_HOME:-$HOME/.cache}/meshguard/bin"
mkdir -p "$bin"
if ! command -v kubeconform >/dev/null && [ ! -x "$bin/kubeconform" ]; then
	echo "test-tools: installing kubeconform v0.8.0 into $bin" >&2
	GOBIN="$bin" GOFLAGS=-mod=mod go install github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0 >&2 ||
		echo "test-tools: kubeconform could not be installed; its tests will skip" >&2
fi
if ! command -v pre-commit >/dev/null; then
	if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
		echo "test-tools: installing pre-commit (apt-get)" >&2
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pre-commit; } >/dev/null 2>&1 ||
			echo "test-tools: pre-commit could not be installed; its tests will skip" >&2
	else
		echo "test-tools: pre-commit is not installed (apt-get install pre-commit); its tests will skip" >&2
	fi
fi
echo "$bin"
