package kumarules

import (
	"strings"
	"testing"
)

func pol(name, top string, labels map[string]string) Policy {
	ref := map[string]any{"kind": top}
	if strings.HasPrefix(top, "Dataplane/") {
		ref = map[string]any{"kind": refDataplane}
		switch top {
		case "Dataplane/name":
			ref["name"] = "dp"
		case "Dataplane/name+section":
			ref["name"], ref["sectionName"] = "dp", "http"
		case "Dataplane/labels":
			ref["labels"] = map[string]any{"app": "x"}
		}
	}
	return Policy{Meta: Meta{Type: "MeshTimeout", Name: name, Mesh: "default", Labels: labels},
		Spec: map[string]any{"targetRef": ref}}
}

func TestSortIsKumasMergeOrder(t *testing.T) {
	ps := []Policy{
		pol("k-mss", refMeshServiceSubset, nil),
		pol("j-ms", refMeshService, nil),
		pol("i-subset", refMeshSubset, nil),
		pol("h-dp-section", "Dataplane/name+section", nil),
		pol("g-dp-name", "Dataplane/name", nil),
		pol("f-dp-labels", "Dataplane/labels", nil),
		pol("e-zone", refMesh, map[string]string{"kuma.io/origin": "zone"}),
		pol("d-no-origin", refMesh, nil),
		pol("c-consumer", refMesh, map[string]string{"kuma.io/origin": "global", "kuma.io/policy-role": "consumer"}),
		pol("b-global-a", refMesh, map[string]string{"kuma.io/origin": "global"}),
		pol("b-global-b", refMesh, map[string]string{"kuma.io/origin": "global"}),
		pol("a-display", refMesh, map[string]string{"kuma.io/origin": "global", "kuma.io/display-name": "zz"}),
	}
	Sort(ps)
	var got []string
	for _, p := range ps {
		got = append(got, p.Name)
	}
	want := "a-display b-global-b b-global-a c-consumer d-no-origin e-zone f-dp-labels g-dp-name h-dp-section i-subset j-ms k-mss"
	if strings.Join(got, " ") != want {
		t.Errorf("order:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestSubsetRelations(t *testing.T) {
	a := Subset{{Key: "app", Value: "a"}}
	notA := Subset{{Key: "app", Value: "a", Not: true}}
	b := Subset{{Key: "app", Value: "b"}}
	ab := Subset{{Key: "app", Value: "a"}, {Key: "v", Value: "1"}}
	if !a.Includes(ab) || ab.Includes(a) || !(Subset{}).Includes(a) {
		t.Error("Includes: app=a includes app=a,v=1 and not the other way; the empty subset includes all")
	}
	if !notA.Includes(b) || notA.Includes(a) || a.Includes(notA) {
		t.Error("Includes: app!=a includes app=b, not app=a; app=a never includes a negation")
	}
	if a.Intersects(b) || !a.Intersects(ab) || !notA.Intersects(a) {
		t.Error("Intersects: only positive tags of one key with different values exclude each other")
	}
	if !ab.ContainsElement(map[string]string{"app": "a", "v": "1", "x": "y"}) || ab.ContainsElement(map[string]string{"app": "a"}) {
		t.Error("ContainsElement: every positive tag must be on the proxy")
	}
	if !notA.ContainsElement(map[string]string{"other": "x"}) || notA.ContainsElement(map[string]string{"app": "a"}) {
		t.Error("ContainsElement: an all-negative subset contains proxies without the key")
	}
}

func TestBuildRulesRejectsKindsWithoutTags(t *testing.T) {
	items := []Item{{Policy: Meta{Type: "MeshTimeout", Name: "x"}, Ref: TargetRef{Kind: refMeshGateway, Name: "gw"}, Conf: map[string]any{}}}
	_, err := BuildRules(items, false)
	if err == nil || !strings.Contains(err.Error(), "MeshGateway") {
		t.Errorf("err = %v, want one naming MeshGateway", err)
	}
}
