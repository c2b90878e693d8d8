package lint

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestUniversalDocuments: Kuma Universal-format documents (as kumactl apply takes
// them, and as kumactl get -o yaml lists them) are linted beside manifests, by
// the rules Kuma's Universal control plane applies, with findings on the lines
// they were written on.
func TestUniversalDocuments(t *testing.T) {
	const in = `type: MeshTimeout
name: both
mesh: default
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: Mesh
      default:
        connectionTimeout: 5s
        conectTimeout: 1s
  rules:
    - default:
        idleTimeout: 1h
---
type: Dataplane
name: web-1
mesh: default
networking:
  address: 10.0.0.1
  inbound:
    - port: 70000
      tags:
        kuma.io/service: web
---
type: MeshRetry
mesh: default
spec: {}
---
items:
  - type: MeshTrace
    name: listed
    mesh: default
    spec:
      targetRef:
        kind: Mesh
      default:
        sampling:
          overall: 150
next: null
total: 1
`
	s := api.DefaultSettings()
	o := Options{Settings: s, Namespace: "shop", Registry: api.DefaultRegistry()}
	docs := LoadBytes("u.yaml", []byte(in))
	for _, d := range docs {
		if d.Object != nil && d.Object.GetNamespace() != "" {
			t.Errorf("%s %s got namespace %q: a Universal object has none", d.Object.GetKind(), d.Object.GetName(), d.Object.GetNamespace())
		}
	}
	fs, sum := Lint(docs, o)
	type at struct {
		Line     int
		Code     string
		Severity string
	}
	var got []at
	for _, f := range fs {
		got = append(got, at{f.Line, f.Code, f.Severity})
		if f.Code == api.CodeUnknownField && !strings.Contains(f.Message, "Universal control plane accepts the document and drops the field") {
			t.Errorf("MG001 on a Universal document must say Kuma drops the field: %q", f.Message)
		}
	}
	want := []at{
		{7, "MG124", "error"},    // rules beside to: spec.to
		{12, "MG001", "warning"}, // conectTimeout: dropped, not refused
		{23, "MG186", "error"},   // port 70000: spec.networking.inbound[0].port, at the top level
		{27, "MG000", "error"},   // no name
		{38, "MG131", "error"},   // no backends, in a kumactl get list
		{40, "MG131", "error"},   // sampling above 100
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s\n%+v", diff, fs)
	}
	if sum.Documents != 4 {
		t.Errorf("%d documents, want 4 (the list's item counts, the list does not)", sum.Documents)
	}
}
