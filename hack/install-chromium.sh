#!/usr/bin/env bash
# Installs headless Chromium for the HTML page's real-browser test (mapview):
# the Debian package `chromium`, with apt-get, when we are root. Idempotent: a
# chromium already on PATH (or named by $MESHGUARD_CHROMIUM) is used as it is.
# Prints the browser's path on standard output, or nothing when it cannot be had
# (then the browser tests skip and say why). Progress goes to standard error.
#
# Called from the Makefile's unit-test setup (hack/test-tools.sh), the way
# hack/build-control-plane.sh is for the e2e suite. First install: about a
# minute (the package and its libraries, ~100 MB); later runs return at once.
set -u
find_browser() {
	if [ -n "${MESHGUARD_CHROMIUM:-}" ] && [ -x "${MESHGUARD_CHROMIUM}" ]; then
		echo "$MESHGUARD_CHROMIUM"
		return 0
	fi
	local b
	for b in chromium chromium-browser google-chrome-stable google-chrome headless-shell; do
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}
if find_browser; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-chromium: no chromium and no apt-get; install Chromium (or set MESHGUARD_CHROMIUM); the browser tests will skip" >&2
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-chromium: no chromium, and not root to apt-get install it (sudo apt-get install chromium); the browser tests will skip" >&2
	exit 0
fi
echo "install-chromium: installing chromium (apt-get; first run about a minute)" >&2
log=$(mktemp)
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
	echo "install-chromium: apt-get install chromium failed; the browser tests will skip. apt-get said:" >&2
	tail -n 20 "$log" >&2
	rm -f "$log"
	exit 0
fi
rm -f "$log"
find_browser || echo "install-chromium: chromium installed but not on PATH; the browser tests will skip" >&2
exit 0
