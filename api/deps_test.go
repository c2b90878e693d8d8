package api_test

import (
	"os/exec"
	"strings"
	"testing"
)

// notLinkedByAPI are the packages api must not link: the API server's CRD
// validation and CEL (about 300 packages), which every engine package above api
// would drag in. The schema layer reaches the engine as an api.SchemaSet that
// package schema implements.
var notLinkedByAPI = []string{
	"github.com/meshguard/meshguard/schema",
	"k8s.io/apiextensions-apiserver/",
	"k8s.io/apiserver/",
	"github.com/google/cel-go/",
	"cel.dev/expr",
}

// TestAPILinksNoSchemaLibrary keeps api free of the API server's schema library.
func TestAPILinksNoSchemaLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps named %d packages; is this package api?", len(deps))
	}
	for _, pkg := range deps {
		for _, bad := range notLinkedByAPI {
			if pkg == strings.TrimSuffix(bad, "/") || strings.HasPrefix(pkg, bad) {
				t.Errorf("api links %s; the schema layer belongs behind api.SchemaSet (package schema)", pkg)
			}
		}
	}
}
