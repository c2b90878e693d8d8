package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestOwnedLabelsWithoutMutation covers the webhook-only rules: when the mutating
// stage was skipped (failurePolicy Ignore, a bypass), validation still refuses labels
// that disagree with what meshguard computes, and mesh moves on UPDATE.
func TestOwnedLabelsWithoutMutation(t *testing.T) {
	s := settings(api.ModeZone, "zone-1")
	reg := api.DefaultRegistry()
	validateRaw := func(doc string, req api.Request) []got {
		o := mustObj(t, doc)
		return errorsOnly(Validate(o, reg.Lookup(o.GroupVersionKind()), s, req))
	}
	spoofed := `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
  namespace: frontend-ns
  labels: {k8s.kuma.io/namespace: backend-ns, kuma.io/policy-role: producer, kuma.io/zone: zone-2, kuma.io/env: universal}
spec:
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: backend-ns}
      default: {idleTimeout: 1h}`
	want := []got{
		{CodeOwnedLabel, "metadata.labels[k8s.kuma.io/namespace]", SeverityError},
		{CodeOwnedLabel, "metadata.labels[kuma.io/policy-role]", SeverityError},
		{CodeZoneLabel, "metadata.labels[kuma.io/env]", SeverityError},
		{CodeZoneLabel, "metadata.labels[kuma.io/zone]", SeverityError},
	}
	if diff := cmp.Diff(want, validateRaw(spoofed, api.Request{Operation: api.OpCreate})); diff != "" {
		t.Errorf("spoofed labels (-want +got):\n%s", diff)
	}
	if got := validateRaw(spoofed, api.Request{Operation: api.OpCreate, Privileged: true}); len(got) != 0 {
		t.Errorf("privileged writers are trusted with owned labels, got %v", got)
	}
	if got := validateRaw(spoofed, api.Request{Operation: api.OpDelete}); len(got) != 0 {
		t.Errorf("DELETE is always allowed, got %v", got)
	}

	old := mustObj(t, mtGood)
	moved := labelled("kuma.io/mesh: other")
	wantMove := []got{{CodeMeshChanged, "metadata.labels[kuma.io/mesh]", SeverityError}}
	if diff := cmp.Diff(wantMove, validateRaw(moved, api.Request{Operation: api.OpUpdate, Old: old})); diff != "" {
		t.Errorf("mesh move (-want +got):\n%s", diff)
	}
	same := labelled("kuma.io/mesh: default")
	if got := validateRaw(same, api.Request{Operation: api.OpUpdate, Old: old}); len(got) != 0 {
		t.Errorf("an absent label means the default mesh; got %v", got)
	}
}

// TestSystemOnlyTargets covers Kuma's "only in the system namespace" top-level kinds.
func TestSystemOnlyTargets(t *testing.T) {
	doc := func(kind, ns, target string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: ` + kind + `
metadata: {name: x, namespace: ` + ns + `}
spec:
  targetRef: ` + target + `
  to:
    - targetRef: {kind: Mesh}
      default: {http: {requestTimeout: 1s}}`
	}
	cases := []struct {
		name string
		doc  string
		want []got
	}{
		{"MeshTimeout on a gateway from an app namespace", doc("MeshTimeout", "app-ns", "{kind: MeshGateway, name: edge}"),
			[]got{{CodeGatewayConsumer, "spec.targetRef.kind", SeverityError}}},
		{"MeshTimeout on a route from an app namespace", doc("MeshTimeout", "app-ns", "{kind: MeshHTTPRoute, name: r}"),
			[]got{{CodeTopKind, "spec.targetRef.kind", SeverityError}}},
		{"MeshTimeout on a gateway from the system namespace", doc("MeshTimeout", "kuma-system", "{kind: MeshGateway, name: edge}"), nil},
		{"MeshHealthCheck (clusters only) on a gateway, producer", `apiVersion: kuma.io/v1alpha1
kind: MeshHealthCheck
metadata: {name: x, namespace: app-ns}
spec:
  targetRef: {kind: MeshGateway, name: edge}
  to:
    - targetRef: {kind: MeshService, name: app}
      default: {interval: 10s, tcp: {}}`, nil},
		{"MeshTrace on a gateway from an app namespace", `apiVersion: kuma.io/v1alpha1
kind: MeshTrace
metadata: {name: x, namespace: app-ns}
spec:
  targetRef: {kind: MeshGateway, name: edge}
  default: {backends: []}`, []got{{CodeGatewayRoute, "spec.targetRef.kind", SeverityError}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := errorsOnly(lintOne(t, tc.doc, api.DefaultSettings(), api.Request{}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTargetRefFieldRules is Kuma's ValidateTargetRef table, one row per field rule.
func TestTargetRefFieldRules(t *testing.T) {
	mk := func(ref string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: x, namespace: kuma-system}
spec:
  targetRef: ` + ref + `
  to:
    - targetRef: {kind: Mesh}
      default: {idleTimeout: 1s}`
	}
	cases := []struct {
		ref  string
		want []got
	}{
		{"{kind: Mesh, tags: {a: b}}", []got{{CodeRefField, "spec.targetRef.tags", SeverityError}}},
		{"{kind: Mesh, proxyTypes: [Sidecar]}", nil},
		{"{kind: Mesh, proxyTypes: [Ingress]}", []got{{CodeRefField, "spec.targetRef.proxyTypes[0]", SeverityError}}},
		{"{kind: MeshSubset, tags: {version: v1}}", nil},
		{"{kind: MeshSubset, name: x}", []got{{CodeRefField, "spec.targetRef.name", SeverityError}}},
		{"{kind: MeshSubset, tags: {version: 'a/b'}}", []got{{CodeTag, "spec.targetRef.tags[version]", SeverityError}}},
		{"{kind: MeshServiceSubset, name: web, tags: {version: '*'}}", nil},
		{"{kind: MeshServiceSubset, tags: {version: v1}}", []got{{CodeRefField, "spec.targetRef.name", SeverityError}}},
		{"{kind: MeshService}", []got{{CodeRefField, "spec.targetRef.name", SeverityError}}},
		{"{kind: MeshService, name: Web}", []got{{CodeRefField, "spec.targetRef.name", SeverityError}}},
		{"{kind: MeshService, name: web, tags: {a: b}}", []got{{CodeRefField, "spec.targetRef.tags", SeverityError}}},
		{"{kind: Dataplane, labels: {app: web}}", nil},
		{"{kind: Dataplane, name: web, labels: {app: web}}", []got{{CodeRefField, "spec.targetRef.labels", SeverityError}}},
		{"{kind: MeshGateway}", []got{{CodeRefField, "spec.targetRef.name", SeverityError}}},
		{"{kind: MeshGateway, name: edge, namespace: x}", []got{{CodeRefField, "spec.targetRef.namespace", SeverityError}}},
		{"{kind: Pod, name: x}", []got{{CodeTopKind, "spec.targetRef.kind", SeverityError}}},
		{"{name: x}", []got{{CodeRefField, "spec.targetRef.kind", SeverityError}}},
	}
	for _, tc := range cases {
		t.Run(tc.ref, func(t *testing.T) {
			got := errorsOnly(lintOne(t, mk(tc.ref), api.DefaultSettings(), api.Request{}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
