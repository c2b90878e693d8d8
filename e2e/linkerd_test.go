//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkerdThroughAPIServer applies the Linkerd examples with kubectl: the valid
// set is stored untouched (meshguard never mutates Linkerd objects), and each
// expectation of the invalid set shows up in kubectl's output with its field path
// and code (the default-inbound-policy annotation file through the chart's
// annotations.meshguard.io webhook; more of it in linkerd_annotation_test.go). An
// object Linkerd's CRD refuses never reaches the webhook; its expectations must then
// come from meshguard lint, next to the API server's schema denial.
func TestLinkerdThroughAPIServer(t *testing.T) {
	valid := load(t, repo("examples/linkerd/valid"))
	namespaces(t, valid)
	if _, _, err := kubectl(t, "", "apply", "-f", repo("examples/linkerd/valid")); err != nil {
		t.Fatalf("valid Linkerd examples refused: %v", err)
	}
	for _, o := range valid {
		if !strings.HasPrefix(o.GetAPIVersion(), "policy.linkerd.io/") {
			continue
		}
		stored := get2(t, o.GetAPIVersion(), o.GetKind(), o.GetNamespace(), o.GetName())
		if len(stored.GetLabels()) != len(o.GetLabels()) {
			t.Errorf("%s %s/%s was mutated: labels %v", o.GetKind(), o.GetNamespace(), o.GetName(), stored.GetLabels())
		}
	}
	files, _ := filepath.Glob(repo("examples/linkerd/invalid/*.yaml"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			stderr := applyDenied(t, f)
			var viaLint []expectation
			for _, e := range expectations(t, f) {
				if !strings.Contains(stderr, e.path) || !strings.Contains(stderr, e.code) {
					viaLint = append(viaLint, e)
				}
			}
			if len(viaLint) > 0 && !schemaDenial(stderr) {
				t.Errorf("kubectl output lacks %v, and the API server refused nothing by its schema:\n%s", viaLint, stderr)
			}
			lintReports(t, f, viaLint)
		})
	}
}
