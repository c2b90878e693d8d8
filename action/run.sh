#!/usr/bin/env bash
# The shell steps of meshguard's GitHub Action (action.yml), one subcommand per step,
# kept here so they can be tested outside GitHub (cmd/meshguard/action_test.go).
#
#   run.sh install   install meshguard at $MESHGUARD_VERSION (a tag, "latest", or
#                    "path": use the meshguard already on PATH)
#   run.sh lint      meshguard lint $INPUT_FLAGS $INPUT_PATHS: text to the log, SARIF to
#                    $INPUT_SARIF_FILE; outputs exit-code and sarif-file
#   run.sh diff      meshguard diff --git-base $INPUT_BASE as markdown into the job
#                    summary, only when the installed meshguard has a diff command
#   run.sh finish    exit with the lint's exit code ($LINT_EXIT_CODE), after the upload
#
# GitHub sets GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY and RUNNER_TEMP; the test
# sets them to temporary files. Paths and flags are split on whitespace.
set -euo pipefail

out() { echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }

install() {
  local v="${MESHGUARD_VERSION:-latest}"
  if [ "$v" = path ]; then
    command -v meshguard >/dev/null || { echo "::error::version: path, but no meshguard on PATH"; exit 2; }
  else
    local bin="${RUNNER_TEMP:-/tmp}/meshguard-bin"
    mkdir -p "$bin"
    GOBIN="$bin" go install "github.com/meshguard/meshguard/cmd/meshguard@$v"
    echo "$bin" >>"${GITHUB_PATH:-/dev/null}"
    export PATH="$bin:$PATH"
  fi
  meshguard version
}

lint() {
  local paths flags sarif="${INPUT_SARIF_FILE:-meshguard.sarif}"
  read -ra paths <<<"${INPUT_PATHS:-.}"
  read -ra flags <<<"${INPUT_FLAGS:-}"
  local code=0
  # Text for the log (colour off: logs are not terminals), then SARIF for code scanning.
  meshguard lint --color never "${flags[@]}" "${paths[@]}" || code=$?
  meshguard lint -o sarif "${flags[@]}" "${paths[@]}" >"$sarif" 2>/dev/null || true
  out exit-code "$code"
  if [ -s "$sarif" ]; then out sarif-file "$sarif"; fi
  case "$code" in
    0) echo "meshguard: no findings at or above --fail-on" ;;
    1) echo "::error::meshguard lint found problems (see the log above and the code-scanning alerts)" ;;
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

finish() { exit "${LINT_EXIT_CODE:-0}"; }

case "${1:-}" in
  install | lint | diff | finish) "$1" ;;
  *) echo "usage: run.sh install|lint|diff|finish" >&2; exit 2 ;;
esac
