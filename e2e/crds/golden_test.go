package crds

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/meshguard/meshguard/api"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

var update = flag.Bool("update", false, "rewrite e2e/testdata/crds.yaml from the registry")

const goldenPath = "../testdata/crds.yaml"

// TestCRDFileIsFresh keeps the committed CRDs in step with api: a kind or field added
// to the registry without regenerating would make the e2e API server prune it.
func TestCRDFileIsFresh(t *testing.T) {
	installed, err := Installed(api.DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteYAML(&buf, installed); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(goldenPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v; run `go generate ./e2e/crds`", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("e2e/testdata/crds.yaml is stale; run `go generate ./e2e/crds` or `go test ./e2e/crds -run TestCRDFileIsFresh -update`")
	}
}

// TestWriteYAMLIsStable: the output does not depend on the order of the input.
func TestWriteYAMLIsStable(t *testing.T) {
	crds := CRDs(api.DefaultRegistry())
	rev := make([]*apiextensionsv1.CustomResourceDefinition, len(crds))
	for i, c := range crds {
		rev[len(crds)-1-i] = c
	}
	var a, b bytes.Buffer
	if err := WriteYAML(&a, crds); err != nil {
		t.Fatal(err)
	}
	if err := WriteYAML(&b, rev); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("WriteYAML output depends on input order")
	}
	if n := bytes.Count(a.Bytes(), []byte("\n---\n")); n != len(crds) {
		t.Fatalf("%d documents, want %d", n, len(crds))
	}
	for _, unwanted := range []string{"\nstatus:", "creationTimestamp: null"} {
		if bytes.Contains(a.Bytes(), []byte(unwanted)) {
			t.Errorf("output contains %q", unwanted)
		}
	}
}
