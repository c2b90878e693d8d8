package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
)

// TestOwnPolicy checks the tour's stand-in for a user's first own policy: it lints
// clean (so only a missing namespace could refuse it), and no example names its
// namespace (so the tour never created it and the step shows auto-provisioning).
func TestOwnPolicy(t *testing.T) {
	docs := lint.Load([]string{"-"}, strings.NewReader(ownPolicy))
	fs, sum := lint.Lint(docs, lint.Options{Settings: api.DefaultSettings(), Namespace: "default", Registry: api.DefaultRegistry()})
	if sum.Documents != 1 || len(fs) != 0 {
		t.Errorf("ownPolicy: %d documents, findings %+v", sum.Documents, fs)
	}
	ns := docs[0].Object.GetNamespace()
	for _, dir := range []string{"valid", "invalid"} {
		examples, err := readDocs(filepath.Join("..", "..", "examples", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range examples {
			if d.namespace() == ns {
				t.Errorf("%s uses namespace %s, which the tour creates before the own-policy step", d.ref(), ns)
			}
		}
	}
}
