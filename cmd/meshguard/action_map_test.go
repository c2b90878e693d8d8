package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeMap is a meshguard that records its arguments and answers `map` as the
// map command's interface says (-o html: a page, -o markdown: a table), or,
// with NO_MAP set, has no map command, as releases before it.
const fakeMap = `#!/bin/sh
echo "$*" >>"$MESHGUARD_CALLS"
if [ "$1 $2" = "map --help" ]; then [ -n "$NO_MAP" ] && exit 1; echo "usage: meshguard map"; exit 0; fi
prev= fmt=
for a in "$@"; do [ "$prev" = -o ] && fmt=$a; prev=$a; done
case "$fmt" in
  html) echo '<!DOCTYPE html><title>meshguard access map</title>' ;;
  markdown) echo '| destination | client | change |' ;;
esac
exit "${MAP_EXIT:-0}"
`

// TestActionMap runs the action's map step against a meshguard that records
// its calls: the page of the paths on a push, the page and the job summary of
// the change on a pull request, a notice and nothing else when the installed
// meshguard has no map command, and a warning, never a failed step, when map
// fails.
func TestActionMap(t *testing.T) {
	needTool(t, "bash", "apt-get install bash")
	script, err := filepath.Abs(filepath.Join(repoRoot, "action", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "meshguard"), []byte(fakeMap), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, base, extra string
		calls             []string
		page, summary     bool
		log               string
	}{
		{name: "no map command", extra: "NO_MAP=1", calls: []string{"map --help"}, log: "no map command"},
		{name: "push", calls: []string{"map --help", "map -o html good other"}, page: true, log: "access map written to"},
		{name: "pull request", base: "abc123", calls: []string{"map --help", "map --git-base abc123 -o html good other",
			"map --git-base abc123 -o markdown good other"}, page: true, summary: true},
		{name: "map fails", base: "abc123", extra: "MAP_EXIT=2", calls: []string{"map --help", "map --git-base abc123 -o html good other",
			"map --git-base abc123 -o markdown good other"}, page: true, summary: true, log: "::warning::meshguard map exited 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			calls := filepath.Join(tmp, "calls")
			env := actionEnv(t, bin, tmp, "INPUT_PATHS=good other", "INPUT_BASE="+tc.base, "MESHGUARD_CALLS="+calls, tc.extra)
			log, code := sh(t, t.TempDir(), env, "bash", script, "map")
			if code != 0 || !strings.Contains(log, tc.log) {
				t.Errorf("map step: exit %d, want 0 and %q in the log:\n%s", code, tc.log, log)
			}
			if got := strings.Split(strings.TrimSpace(readFile(t, calls)), "\n"); strings.Join(got, "\n") != strings.Join(tc.calls, "\n") {
				t.Errorf("meshguard called with\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.calls, "\n"))
			}
			page := filepath.Join(tmp, "meshguard-map", "meshguard-map.html")
			outputs := readFile(t, filepath.Join(tmp, "output"))
			if got := strings.Contains(outputs, "html-file="+page+"\n"); got != tc.page {
				t.Errorf("output html-file: %t, want %t (outputs %q)", got, tc.page, outputs)
			}
			if tc.page && !strings.HasPrefix(readFile(t, page), "<!DOCTYPE html>") {
				t.Errorf("the page attached is not the map's HTML")
			}
			summary := readFile(t, filepath.Join(tmp, "summary"))
			if got := strings.Contains(summary, "## meshguard access map change\n| destination | client | change |"); got != tc.summary {
				t.Errorf("job summary has the change: %t, want %t:\n%s", got, tc.summary, summary)
			}
		})
	}
}

// actionMapReal runs the map step with meshguard itself (bin, which
// TestActionScript builds) on a pull request that adds a permission, once
// meshguard has the map command.
func actionMapReal(t *testing.T, bin string) {
	t.Run("map step with meshguard", func(t *testing.T) {
		needTool(t, "git", "apt-get install git")
		if out, code := sh(t, t.TempDir(), nil, filepath.Join(bin, "meshguard"), "map", "--help"); code != 0 {
			t.Skipf("this meshguard has no map command yet (TestActionMap covers the step):\n%s", out)
		}
		script, err := filepath.Abs(filepath.Join(repoRoot, "action", "run.sh"))
		if err != nil {
			t.Fatal(err)
		}
		work := t.TempDir()
		for _, f := range []string{"policies.yaml", "workloads.yaml"} {
			copyFile(t, filepath.Join(repoRoot, "examples/check/kuma", f), filepath.Join(work, "mesh", f))
		}
		gitRepo(t, work)
		copyFile(t, filepath.Join(repoRoot, "examples/valid/04-workload-owner.yaml"), filepath.Join(work, "mesh/owner.yaml"))
		tmp := t.TempDir()
		log, code := sh(t, work, actionEnv(t, bin, tmp, "INPUT_PATHS=mesh", "INPUT_BASE=HEAD"), "bash", script, "map")
		page := readFile(t, filepath.Join(tmp, "meshguard-map", "meshguard-map.html"))
		summary := readFile(t, filepath.Join(tmp, "summary"))
		if code != 0 || strings.Contains(log, "::warning::") || !strings.HasPrefix(page, "<!DOCTYPE html>") ||
			!strings.Contains(page, `data-kind="change"`) || !strings.Contains(summary, "## meshguard access map change") {
			t.Errorf("map step with meshguard: exit %d\n%s\nsummary:\n%s", code, log, summary)
		}
	})
}
