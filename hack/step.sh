#!/usr/bin/env bash
# step.sh "WHAT" "HOW LONG" CMD [ARG...]
#
# Runs one step of `make test` / `make demo` so that a first run on a fresh machine talks:
# a line saying what starts and how long it usually takes, a line a minute while it runs
# (the go tool is silent while it compiles), and its elapsed time at the end. The command's
# own output passes through unchanged; its exit code is the step's.
set -uo pipefail
what=$1 usual=$2; shift 2
start=$SECONDS
elapsed() { printf '%dm%02ds' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)); }
echo "==> $what${usual:+ ($usual)}" >&2
(
  nap=
  trap 'kill $nap 2>/dev/null; exit 0' TERM
  while :; do
    sleep 60 & nap=$!
    wait "$nap"
    echo "    ... $what: still running, $(elapsed) so far" >&2
  done
) &
ticker=$!
"$@"
rc=$?
kill "$ticker" 2>/dev/null; wait "$ticker" 2>/dev/null
if [ "$rc" -eq 0 ]; then
  echo "==> $what: done in $(elapsed)" >&2
else
  echo "==> $what: FAILED after $(elapsed) (exit $rc)" >&2
fi
exit "$rc"
