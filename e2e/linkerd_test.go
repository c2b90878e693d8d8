//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLinkerdThroughAPIServer applies the Linkerd examples with kubectl: the valid
// set is stored untouched (meshguard never mutates Linkerd objects), and each
// expectation of the invalid set shows up in kubectl's output with its field path
// and code (the default-inbound-policy annotation file through the chart's
// annotations.meshguard.io webhook; more of it in linkerd_annotation_test.go).
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
	expectRE := regexp.MustCompile(`(?m)^# expect: (MG\d+) (\S+)$`)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			namespaces(t, load(t, f))
			raw, _ := os.ReadFile(f)
			_, stderr, err := kubectl(t, "", "apply", "-f", f)
			if err == nil {
				t.Fatal("kubectl apply succeeded; want denials")
			}
			for _, m := range expectRE.FindAllStringSubmatch(string(raw), -1) {
				if !strings.Contains(stderr, m[2]) || !strings.Contains(stderr, m[1]) {
					t.Errorf("kubectl output lacks %s at %s", m[1], m[2])
				}
			}
		})
	}
}
