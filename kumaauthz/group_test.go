package kumaauthz

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

func TestGroupPolicies(t *testing.T) {
	ps := policiesFromYAML(t, `
kind: MeshTrafficPermission
metadata: {name: mesh-wide, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]
---
kind: MeshTrafficPermission
metadata: {name: other-mesh, namespace: kuma-system, labels: {kuma.io/mesh: other}}
spec:
  from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]
---
kind: MeshTrafficPermission
metadata: {name: dev, namespace: kuma-system}
spec:
  targetRef: {kind: MeshSubset, tags: {env: dev}}
  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]
---
kind: MeshTrafficPermission
metadata: {name: backend, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: backend}
  from: [{targetRef: {kind: MeshService, name: web}, default: {action: Allow}}]
---
kind: MeshTrafficPermission
metadata: {name: backend-v1, namespace: kuma-system}
spec:
  targetRef: {kind: MeshServiceSubset, name: backend, tags: {env: dev}}
  from: [{targetRef: {kind: MeshService, name: api}, default: {action: Allow}}]
---
kind: MeshTrafficPermission
metadata: {name: owner, namespace: team-a}
spec:
  targetRef: {kind: MeshService, name: backend}
  from: [{targetRef: {kind: MeshService, name: cron}, default: {action: Allow}}]
---
kind: MeshTrafficPermission
metadata: {name: route, namespace: kuma-system}
spec:
  targetRef: {kind: MeshHTTPRoute, name: r1}
  from: [{targetRef: {kind: MeshService, name: web}, default: {action: Allow}}]
`)
	groups := GroupPolicies(ps, "kuma-system")
	var got []string
	for _, g := range groups {
		var names []string
		for _, p := range g.Policies {
			names = append(names, p.Name)
		}
		got = append(got, g.Target.Scope()+": "+strings.Join(names, " "))
	}
	want := []string{
		"all proxies in mesh default: mesh-wide",
		"proxies with tags env=dev in mesh default: mesh-wide dev",
		"proxies of MeshService backend in mesh default: mesh-wide backend",
		"proxies of MeshService backend in namespace team-a of mesh default: mesh-wide backend owner",
		"proxies of MeshService backend with tags env=dev in mesh default: mesh-wide dev backend backend-v1",
		"requests routed by MeshHTTPRoute r1 in mesh default: route",
		"all proxies in mesh other: other-mesh",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("groups (-want +got):\n%s", d)
	}
}

func TestApplies(t *testing.T) {
	meshT := Target{Kind: api.RefMesh, Mesh: "default"}
	tests := []struct {
		name   string
		policy Target
		group  Target
		want   bool
	}{
		{"mesh covers service", meshT, Target{Kind: api.RefMeshService, Name: "b", Mesh: "default"}, true},
		{"other mesh", meshT, Target{Kind: api.RefMesh, Mesh: "m2"}, false},
		{"namespaced policy, other namespace", Target{Kind: api.RefMesh, Mesh: "default", Namespace: "a"},
			Target{Kind: api.RefMesh, Mesh: "default", Namespace: "b"}, false},
		{"namespaced policy, mesh-wide group", Target{Kind: api.RefMesh, Mesh: "default", Namespace: "a"}, meshT, false},
		{"subset containment", Target{Kind: api.RefMeshSubset, Tags: map[string]string{"a": "1"}, Mesh: "default"},
			Target{Kind: api.RefMeshSubset, Tags: map[string]string{"a": "1", "b": "2"}, Mesh: "default"}, true},
		{"subset not contained", Target{Kind: api.RefMeshSubset, Tags: map[string]string{"a": "1", "b": "2"}, Mesh: "default"},
			Target{Kind: api.RefMeshSubset, Tags: map[string]string{"a": "1"}, Mesh: "default"}, false},
		{"service tag subset covers service", Target{Kind: api.RefMeshSubset, Tags: map[string]string{api.ServiceTag: "b"}, Mesh: "default"},
			Target{Kind: api.RefMeshService, Name: "b", Mesh: "default"}, true},
		{"dataplane labels", Target{Kind: api.RefDataplane, Tags: map[string]string{"app": "x"}, Mesh: "default"},
			Target{Kind: api.RefDataplane, Name: "dp", Tags: map[string]string{"app": "x"}, Mesh: "default"}, true},
		{"proxy policy not on route", meshT, Target{Kind: api.RefMeshHTTPRoute, Name: "r", Mesh: "default"}, false},
		{"gateway target only applies to itself", Target{Kind: api.RefMeshGateway, Name: "gw", Mesh: "default"}, meshT, false},
		{"mesh policy covers gateway target", meshT, Target{Kind: api.RefMeshGateway, Name: "gw", Mesh: "default"}, true},
		{"subset policy not on gateway target", Target{Kind: api.RefMeshSubset, Tags: map[string]string{"a": "1"}, Mesh: "default"}, Target{Kind: api.RefMeshGateway, Name: "gw", Mesh: "default"}, false},
		{"gateway target on itself", Target{Kind: api.RefMeshGateway, Name: "gw", Mesh: "default"}, Target{Kind: api.RefMeshGateway, Name: "gw", Mesh: "default"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Applies(tt.policy, tt.group); got != tt.want {
				t.Errorf("Applies = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPolicyFromObject(t *testing.T) {
	tests := []struct {
		name    string
		obj     map[string]any
		wantErr string
	}{
		{"nil object", nil, "no object"},
		{"wrong kind", map[string]any{"kind": "MeshTimeout", "metadata": map[string]any{"name": "x"}}, "only MeshTrafficPermission"},
		{"no name", map[string]any{"kind": api.KindMeshTrafficPermission, "spec": map[string]any{}}, "metadata.name"},
		{"metadata not a map", map[string]any{"kind": api.KindMeshTrafficPermission, "metadata": "x", "spec": map[string]any{}}, "metadata.name"},
		{"spec missing", map[string]any{"kind": api.KindMeshTrafficPermission, "metadata": map[string]any{"name": "x"}}, "spec is required"},
		{"spec not a map", map[string]any{"kind": api.KindMeshTrafficPermission, "metadata": map[string]any{"name": "x"}, "spec": []any{1}}, "must be an object"},
		{"from not a list", map[string]any{"kind": api.KindMeshTrafficPermission, "metadata": map[string]any{"name": "x"}, "spec": map[string]any{"from": "Mesh"}}, "spec.from"},
		{"bad action", map[string]any{"kind": api.KindMeshTrafficPermission, "metadata": map[string]any{"name": "x"}, "spec": map[string]any{"from": []any{
			map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Maybe"}}}}}, `unknown action "Maybe"`},
		{"missing from targetRef", map[string]any{"kind": api.KindMeshTrafficPermission, "metadata": map[string]any{"name": "x"}, "spec": map[string]any{"from": []any{
			map[string]any{"default": map[string]any{"action": "Allow"}}}}}, "spec.from[0].targetRef.kind is required"},
		{"bad role", map[string]any{"kind": api.KindMeshTrafficPermission, "metadata": map[string]any{"name": "x", "labels": map[string]any{api.LabelPolicyRole: "boss"}}, "spec": map[string]any{}}, "unknown policy role"},
		{"ok", map[string]any{"kind": api.KindMeshTrafficPermission, "metadata": map[string]any{"name": "x", "namespace": "kuma-system"}, "spec": map[string]any{"from": []any{
			map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Allow"}}}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u *unstructured.Unstructured
			if tt.obj != nil {
				u = &unstructured.Unstructured{Object: tt.obj}
			}
			p, err := PolicyFromObject(u)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Mesh != "default" || p.Ref() != "kuma-system/x" {
					t.Errorf("got %+v", p)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want it to mention %q", err, tt.wantErr)
			}
		})
	}
}

// FuzzPolicyFromObject: any JSON value under spec or metadata gives a Policy or an
// error, never a panic.
func FuzzPolicyFromObject(f *testing.F) {
	f.Add([]byte(`{"kind":"MeshTrafficPermission","metadata":{"name":"x"},"spec":{"from":[{"targetRef":{"kind":"Mesh"},"default":{"action":"Allow"}}]}}`))
	f.Add([]byte(`{"kind":"MeshTrafficPermission","metadata":{"name":"x","labels":{"kuma.io/mesh":3}},"spec":{"default":{"allow":[{"spiffeId":{"type":"Prefix","value":"spiffe://a/"}}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return
		}
		p, err := PolicyFromObject(u)
		if err != nil {
			return
		}
		if _, err := BuildPreviews([]Policy{p}, Options{}); err != nil && !strings.Contains(err.Error(), "match type") && !strings.Contains(err.Error(), "Prefix needs") {
			t.Fatalf("valid policy does not compile: %v", err)
		}
	})
}
