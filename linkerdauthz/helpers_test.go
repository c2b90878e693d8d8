package linkerdauthz

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// objects parses a multi-document YAML string; documents without a namespace get
// "default", as the linter gives them.
func objects(t testing.TB, in string) []unstructured.Unstructured {
	t.Helper()
	var out []unstructured.Unstructured
	for _, doc := range strings.Split(in, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		m := map[string]any{}
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("bad test YAML: %v\n%s", err, doc)
		}
		u := unstructured.Unstructured{Object: m}
		if u.GetNamespace() == "" && u.GetKind() != "Namespace" {
			u.SetNamespace("default")
		}
		out = append(out, u)
	}
	return out
}

// find returns the non-default preview with ref.
func find(t testing.TB, ps []Preview, ref string) Preview {
	t.Helper()
	for _, p := range ps {
		if !p.Default && p.Ref() == ref {
			return p
		}
	}
	t.Fatalf("no preview %s in %+v", ref, ps)
	return Preview{}
}

// words renders the clients of p as "words | via" for compact comparisons.
func words(p Preview) []string {
	var out []string
	for _, c := range p.Clients {
		out = append(out, ClientWords(c)+" | "+c.Via)
	}
	return out
}
