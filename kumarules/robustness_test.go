package kumarules

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// TestMalformedSpecsGiveErrorsNotPanics feeds the engine specs of the wrong shape,
// as a user's file can hold before validation: every entry point answers with an
// error or an empty result, never a panic.
func TestMalformedSpecsGiveErrorsNotPanics(t *testing.T) {
	e := New(api.DefaultRegistry())
	specs := []map[string]any{
		{"to": "x"}, {"to": []any{1}}, {"from": []any{"x"}}, {"rules": 3},
		{"targetRef": 3, "to": []any{map[string]any{"targetRef": "x", "default": 5}}},
		{"rules": []any{map[string]any{"matches": 3, "default": []any{1}}}},
		{"to": []any{map[string]any{"targetRef": map[string]any{"kind": "MeshHTTPRoute", "name": "none"}}}},
		{"targetRef": map[string]any{"kind": "MeshHTTPRoute", "name": "none"}, "to": []any{map[string]any{"default": map[string]any{}}}},
	}
	for _, typ := range []string{"MeshTimeout", "MeshTrafficPermission", "MeshHTTPRoute", "MeshTrace", "MeshTCPRoute"} {
		for _, spec := range specs {
			p := []Policy{{Meta: Meta{Type: typ, Name: "p", Mesh: "default"}, Spec: spec}}
			_, _ = e.BuildFromRules(p)
			_, _ = e.BuildToRules(p, p)
			_, _ = e.BuildSingleItemRules(p)
			_, _ = e.BuildInboundRules(p)
			_, _ = e.BuildResourceRules(p, p)
			_, _ = e.MatchedPolicies(typ, Dataplane{Meta: Meta{Mesh: "default"}, Inbounds: []Inbound{{Port: 1}}}, p)
		}
	}
	if _, err := e.BuildToRules([]Policy{{Meta: Meta{Type: "MeshTimeout", Name: "p"}, Spec: map[string]any{"to": "x"}}}, nil); err == nil {
		t.Error("a `to` that is not a list gave no error")
	}
}

func TestDataplaneFromObject(t *testing.T) {
	u, ferr := api.FromUniversal(map[string]any{"type": "Dataplane", "name": "dp-1", "mesh": "m",
		"labels": map[string]any{"k8s.kuma.io/namespace": "ns"},
		"networking": map[string]any{"address": "10.0.0.1", "gateway": map[string]any{"tags": map[string]any{"kuma.io/service": "gw"}},
			"inbound": []any{map[string]any{"port": 8080, "name": "http", "tags": map[string]any{"kuma.io/service": "web"}}}}}, api.DefaultRegistry())
	if ferr != nil {
		t.Fatal(ferr)
	}
	dp, err := DataplaneFromObject(u)
	if err != nil {
		t.Fatal(err)
	}
	if dp.Mesh != "m" || dp.Namespace != "ns" || dp.Gateway != gatewayDelegated || dp.GatewayTags["kuma.io/service"] != "gw" {
		t.Errorf("dataplane = %+v", dp)
	}
	if len(dp.Inbounds) != 1 || dp.Inbounds[0].listener() != "10.0.0.1:8080" || dp.Inbounds[0].SectionName() != "http" {
		t.Errorf("inbounds = %+v, want one at the dataplane's address, section http", dp.Inbounds)
	}
	if _, err := DataplaneFromObject(&unstructured.Unstructured{Object: map[string]any{"kind": "Mesh"}}); err == nil {
		t.Error("a Mesh read as a Dataplane")
	}
}

func TestComputeResourceRuleFallsBack(t *testing.T) {
	ms := KRI{Type: refMeshService, Mesh: "m", Name: "backend"}
	rules := map[string]ResourceRule{
		KRI{Type: api.KindMesh, Name: "m"}.String(): {Conf: []any{"mesh"}},
		ms.String(): {Conf: []any{"service"}},
	}
	port := ms
	port.Section = "http"
	if r := ComputeResourceRule(rules, port); r == nil || r.Conf[0] != "service" {
		t.Errorf("port without its own rule: %v, want the service's", r)
	}
	other := KRI{Type: refMeshExternalService, Mesh: "m", Name: "ext"}
	if r := ComputeResourceRule(rules, other); r == nil || r.Conf[0] != "mesh" {
		t.Errorf("resource without a rule: %v, want the mesh's", r)
	}
	if r := ComputeResourceRule(rules, KRI{Type: "Dataplane", Mesh: "m", Name: "dp"}); r != nil {
		t.Errorf("a Dataplane got %v, want none", r)
	}
}
