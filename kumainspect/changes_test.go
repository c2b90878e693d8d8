package kumainspect

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// effectsStore reads the effects mesh with edit applied to its text.
func effectsStore(t *testing.T, edit func(string) string) *Store {
	t.Helper()
	b, err := os.ReadFile("testdata/effects/mesh.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Decode(strings.NewReader(edit(string(b))), "mesh.yaml", api.DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(objs, api.DefaultRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAffected: a change of policies alone narrows the proxies a diff computes to
// those a changed policy selects before or after; a change of anything else
// (a Dataplane, a MeshService) does not narrow.
func TestAffected(t *testing.T) {
	same := func(s string) string { return s }
	old := effectsStore(t, same)
	for _, tc := range []struct {
		name string
		edit func(string) string
		want map[[2]string]bool // nil: not narrowed
	}{
		{"nothing", same, map[[2]string]bool{}},
		{"web's retries", func(s string) string { return strings.Replace(s, "numRetries: 3", "numRetries: 4", 1) },
			map[[2]string]bool{{"default", "web-1"}: true}},
		{"a policy now selecting backend", func(s string) string { return strings.Replace(s, "name: ghost-1", "name: backend-1", 1) },
			map[[2]string]bool{{"default", "backend-1"}: true}},
		{"a mesh-wide timeout removed", func(s string) string {
			i := strings.Index(s, "type: MeshTimeout\nname: mt-b")
			j := strings.Index(s[i:], "---")
			return s[:i] + s[i+j+4:]
		}, map[[2]string]bool{{"default", "web-1"}: true, {"default", "backend-1"}: true}},
		{"a Dataplane", func(s string) string { return strings.Replace(s, "address: 10.0.0.2", "address: 10.0.0.3", 1) }, nil},
		{"a MeshService", func(s string) string {
			return strings.Replace(s, "kuma.io/service: payments", "kuma.io/service: pay", 1)
		}, nil},
	} {
		got, ok := Affected(old, effectsStore(t, tc.edit))
		if !ok {
			got = nil
		}
		if ok != (tc.want != nil) || (ok && !cmp.Equal(tc.want, got)) {
			t.Errorf("%s: affected %v (narrowed %v), want %v", tc.name, got, ok, tc.want)
		}
	}
}
