package main

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/internal/benchcorpus"
)

// writeDiffSets writes two sets of n MeshTrafficPermissions shaped like
// hack/genmanifests' (3% mesh-wide, 17% namespace-wide, the rest on one app's
// Dataplanes, one to four `from` items naming callers by service and sometimes
// version) into old/ and new/ under dir. new/ is old/ with a review's worth of
// change: one mesh-wide item's action flipped (so every group of proxies has to
// be compared), every hundredth Allow turned into Deny and every tenth Deny
// into Allow.
func writeDiffSets(tb testing.TB, dir string, n int) (oldDir, newDir string) {
	tb.Helper()
	r := rand.New(rand.NewSource(int64(n)))
	nsN, apps := max(2, n/120), 40
	pickNS := func() int {
		if r.Intn(4) == 0 {
			return r.Intn(min(nsN, 3))
		}
		return r.Intn(nsN)
	}
	pickApp := func() int { return int(float64(apps) * r.Float64() * r.Float64() * r.Float64()) }
	var b strings.Builder
	for i := 0; i < n; i++ {
		switch x := r.Intn(100); {
		case x < 3:
			fmt.Fprintf(&b, "---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: mesh-mtp-%d\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n  from:\n", i)
		case x < 20:
			fmt.Fprintf(&b, "---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: ns-mtp-%d\n  namespace: team-%03d\nspec:\n  targetRef:\n    kind: Mesh\n  from:\n", i, pickNS())
		default:
			app := pickApp()
			fmt.Fprintf(&b, "---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: app-%02d-mtp-%d\n  namespace: team-%03d\nspec:\n  targetRef:\n    kind: Dataplane\n    labels:\n      app: app-%02d\n  from:\n", app, i, pickNS(), app)
		}
		for k := 1 + r.Intn(4); k > 0; k-- {
			action := []string{"Allow", "Allow", "Allow", "Allow", "Deny"}[r.Intn(5)]
			svc := fmt.Sprintf("app-%02d_team-%03d_svc_8080", pickApp(), pickNS())
			switch z := r.Intn(20); {
			case z < 12:
				fmt.Fprintf(&b, "    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: %s\n      default:\n        action: %s\n", svc, action)
			case z < 16:
				fmt.Fprintf(&b, "    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: %s\n          version: v%d\n      default:\n        action: %s\n", svc, r.Intn(3), action)
			case z < 19:
				fmt.Fprintf(&b, "    - targetRef:\n        kind: MeshService\n        name: %s\n      default:\n        action: %s\n", svc, action)
			default:
				fmt.Fprintf(&b, "    - targetRef:\n        kind: Mesh\n      default:\n        action: %s\n", action)
			}
		}
	}
	old := b.String()
	// The change: the first mesh-wide policy's first action flipped, then every
	// hundredth Allow denied and every tenth Deny allowed.
	i := strings.Index(old, "name: mesh-mtp-")
	j := i + strings.Index(old[i:], "action: ")
	k := j + strings.Index(old[j:], "\n")
	flipped := "action: Allow"
	if old[j:k] == flipped {
		flipped = "action: Deny"
	}
	nw := old[:j] + flipped + old[k:]
	every := func(s, from, to string, nth int) string {
		parts := strings.Split(s, from)
		var c strings.Builder
		c.WriteString(parts[0])
		for n, p := range parts[1:] {
			if n%nth == 0 {
				c.WriteString(to)
			} else {
				c.WriteString(from)
			}
			c.WriteString(p)
		}
		return c.String()
	}
	nw = every(every(nw, "action: Allow\n", "action: Deny\n", 100), "action: Deny\n", "action: Allow\n", 10)
	oldDir, newDir = filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for d, content := range map[string]string{oldDir: old, newDir: nw} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "mtp.yaml"), []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return oldDir, newDir
}

// BenchmarkDiff10k runs `meshguard diff -o json` on two sets of 10,000
// MeshTrafficPermissions (docs/performance.md, "meshguard diff"): reading,
// defaulting and validating both sets, and the diff.
func BenchmarkDiff10k(b *testing.B) {
	oldDir, newDir := writeDiffSets(b, b.TempDir(), 10000)
	start, n := benchcorpus.CPUNanos(), 0
	for b.Loop() {
		n++
		out, errOut, code := cli(b, "", "diff", "-o", "json", oldDir, newDir)
		if code != exitOK || !strings.Contains(out, `"widens": true`) {
			b.Fatalf("exit %d: %.300s %s", code, out, errOut)
		}
	}
	// CPU next to wall time: the shared machine is often loaded far beyond its
	// cores, which inflates ns/op but not the work done.
	b.ReportMetric(float64(benchcorpus.CPUNanos()-start)/float64(n), "cpu-ns/op")
}

// TestDiffSetsGenerator checks the benchmark's generator on a small size: the
// sets are valid and the change is seen.
func TestDiffSetsGenerator(t *testing.T) {
	oldDir, newDir := writeDiffSets(t, t.TempDir(), 300)
	out, errOut, code := cli(t, "", "diff", oldDir, newDir)
	if code != exitOK || errOut != "" || !strings.Contains(out, "widened") || !strings.Contains(out, "narrowed") {
		t.Errorf("exit %d, stderr %q:\n%.2000s", code, errOut, out)
	}
}
