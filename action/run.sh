#!/usr/bin/env bash
# The shell steps of meshguard's GitHub Action (action.yml), one subcommand per step,
# kept here so they can be tested outside GitHub (cmd/meshguard/action_test.go).
#
#   run.sh install   install meshguard $MESHGUARD_VERSION (with meshguard-render, its
#                    renderer for charts and kustomizations): the release archive for this
#                    runner from $MESHGUARD_DOWNLOAD_URL/<version>/, checked against the
#                    release's SHA-256 checksums file; `go install` only when the release
#                    has no archive for this runner (or the version is "latest");
#                    "path" uses the meshguard already on PATH
#   run.sh lint      meshguard lint $INPUT_FLAGS $INPUT_PATHS, once: text to the log,
#                    SARIF to $INPUT_SARIF_FILE, Markdown to the job summary and, with
#                    $INPUT_ANNOTATIONS=true, workflow-command annotations;
#                    outputs exit-code and sarif-file
#   run.sh diff      meshguard diff --git-base $INPUT_BASE as markdown into the job
#                    summary, only when the installed meshguard has a diff command
#   run.sh map       meshguard map -o html $INPUT_PATHS into $RUNNER_TEMP/meshguard-map/ (the
#                    next step attaches it to the job; output html-file) and, on a pull
#                    request ($INPUT_BASE set), meshguard map --git-base $INPUT_BASE: the
#                    page of the change, and its markdown into the job summary; only when
#                    the installed meshguard has a map command, and never failing the job
#   run.sh finish    exit with the lint's exit code ($LINT_EXIT_CODE), after the upload
#
# GitHub sets GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY and RUNNER_TEMP; the test
# sets them to temporary files. Paths and flags are split on whitespace.
set -euo pipefail

out() { echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }

# platform prints the release's name for this runner: <os>_<arch> as hack/release.sh
# names its archives.
platform() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) os=$(uname -s | tr '[:upper:]' '[:lower:]') ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) arch=$(uname -m) ;;
  esac
  echo "${os}_${arch}"
}

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# download fetches a release file; a missing file is exit 22 (curl --fail).
download() { curl --fail --silent --show-error --location --retry 3 --output "$2" "$1"; }

# go_install builds meshguard and its renderer, meshguard-render (Helm charts and
# kustomizations render there); releases from before the renderer have none.
go_install() {
  echo "meshguard: building $1 with go install (slower than a release binary)"
  command -v go >/dev/null || { echo "::error::no release binary for this runner and no Go to build meshguard $1"; exit 1; }
  GOBIN="$2" go install "github.com/meshguard/meshguard/cmd/meshguard@$1"
  GOBIN="$2" go install "github.com/meshguard/meshguard/cmd/meshguard-render@$1" ||
    echo "::notice::meshguard $1 has no meshguard-render to install (it renders in its own process)"
}

install() {
  local v="${MESHGUARD_VERSION:?MESHGUARD_VERSION: the version input}"
  if [ "$v" = path ]; then
    command -v meshguard >/dev/null || { echo "::error::version: path, but no meshguard on PATH"; exit 2; }
    meshguard version
    return
  fi
  local bin="${RUNNER_TEMP:-/tmp}/meshguard-bin" work
  mkdir -p "$bin"
  work=$(mktemp -d "${RUNNER_TEMP:-/tmp}/meshguard-dl.XXXXXX")
  if [ "$v" = latest ]; then
    go_install latest "$bin"
  else
    local base="${MESHGUARD_DOWNLOAD_URL:-https://github.com/meshguard/meshguard/releases/download}"
    local name="meshguard_${v}_$(platform).tar.gz" sums="meshguard_${v}_checksums.txt"
    download "$base/$v/$sums" "$work/$sums" || { echo "::error::cannot download $base/$v/$sums (is $v a meshguard release?)"; exit 1; }
    local want
    want=$(awk -v f="$name" '$2 == f || $2 == "*" f { print $1 }' "$work/$sums")
    if [ -z "$want" ]; then
      echo "::notice::meshguard $v has no release binary for this runner ($name)"
      go_install "$v" "$bin"
    else
      download "$base/$v/$name" "$work/$name" || { echo "::error::cannot download $base/$v/$name"; exit 1; }
      local got
      got=$(sha256 "$work/$name")
      if [ "$got" != "$want" ]; then
        echo "::error::checksum mismatch for $name: SHA-256 $got, the release's $sums says $want; not installed"
        exit 1
      fi
      # Everything in the archive: meshguard and, next to it, meshguard-render.
      tar -xzf "$work/$name" -C "$bin"
      echo "meshguard: $name verified (SHA-256 $got)"
    fi
  fi
  rm -rf "$work"
  echo "$bin" >>"${GITHUB_PATH:-/dev/null}"
  "$bin/meshguard" version
}

lint() {
  local paths flags sarif="${INPUT_SARIF_FILE:-meshguard.sarif}" tmp
  read -ra paths <<<"${INPUT_PATHS:-.}"
  read -ra flags <<<"${INPUT_FLAGS:-}"
  tmp=$(mktemp -d "${RUNNER_TEMP:-/tmp}/meshguard-lint.XXXXXX")
  # One run writes every report: text for the log (colour off: logs are not
  # terminals), SARIF for code scanning, Markdown for the job summary and, on
  # request, annotations (workflow commands, which need no Advanced Security).
  local outputs="text,sarif=$sarif,markdown=$tmp/summary.md"
  if [ "${INPUT_ANNOTATIONS:-false}" = true ]; then outputs+=",github=$tmp/annotations"; fi
  local code=0
  meshguard lint --color never -o "$outputs" "${flags[@]}" "${paths[@]}" || code=$?
  if [ -s "$tmp/annotations" ]; then cat "$tmp/annotations"; fi
  if [ -s "$tmp/summary.md" ]; then cat "$tmp/summary.md" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"; fi
  rm -rf "$tmp"
  out exit-code "$code"
  if [ -s "$sarif" ]; then out sarif-file "$sarif"; fi
  case "$code" in
    0) echo "meshguard: no findings at or above --fail-on" ;;
    1) echo "::error::meshguard lint found problems (see the log above, the job summary and the code-scanning alerts)" ;;
    *) echo "::error::meshguard lint could not read or render some input (exit $code)" ;;
  esac
}

diff() {
  if ! meshguard diff --help >/dev/null 2>&1; then
    echo "::notice::this meshguard has no diff command; no policy diff posted"
    return 0
  fi
  local paths
  read -ra paths <<<"${INPUT_PATHS:-.}"
  {
    echo "## meshguard policy diff"
    meshguard diff --git-base "${INPUT_BASE:?INPUT_BASE: the base commit to compare with}" -o markdown "${paths[@]}"
  } >>"${GITHUB_STEP_SUMMARY:-/dev/stdout}"
}

# map writes the access map's HTML page (the change's, on a pull request) for the
# job artifact, and the change's markdown into the job summary. The map informs the
# review; it never fails the job (lint does that), so problems are warnings.
map() {
  if ! meshguard map --help >/dev/null 2>&1; then
    echo "::notice::this meshguard has no map command; no access map written"
    return 0
  fi
  local paths args=() dir="${RUNNER_TEMP:-/tmp}/meshguard-map" code=0
  read -ra paths <<<"${INPUT_PATHS:-.}"
  if [ -n "${INPUT_BASE:-}" ]; then args=(--git-base "$INPUT_BASE"); fi
  mkdir -p "$dir"
  local html="$dir/meshguard-map.html"
  meshguard map ${args[@]+"${args[@]}"} -o html "${paths[@]}" >"$html" || code=$?
  if [ -s "$html" ]; then
    out html-file "$html"
    echo "meshguard: access map written to $html (attached to the job as an artifact)"
  else
    rm -f "$html"
  fi
  if [ "$code" != 0 ]; then echo "::warning::meshguard map exited $code; the access map may be missing or incomplete"; fi
  if [ -n "${INPUT_BASE:-}" ]; then
    local md="$dir/change.md"
    code=0
    meshguard map ${args[@]+"${args[@]}"} -o markdown "${paths[@]}" >"$md" || code=$?
    if [ -s "$md" ]; then
      { echo "## meshguard access map change"; cat "$md"; } >>"${GITHUB_STEP_SUMMARY:-/dev/stdout}"
    fi
    if [ "$code" != 0 ]; then echo "::warning::meshguard map -o markdown exited $code; the job summary may lack the access change"; fi
  fi
  return 0
}

finish() { exit "${LINT_EXIT_CODE:-0}"; }

case "${1:-}" in
  install | lint | diff | map | finish) "$1" ;;
  *) echo "usage: run.sh install|lint|diff|map|finish" >&2; exit 2 ;;
esac
