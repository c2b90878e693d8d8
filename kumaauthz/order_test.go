package kumaauthz

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
)

// policiesFromYAML reads a multi-document YAML stream of MeshTrafficPermissions.
func policiesFromYAML(t testing.TB, docs string) []Policy {
	t.Helper()
	var out []Policy
	for _, doc := range strings.Split(docs, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		p, err := PolicyFromObject(&unstructured.Unstructured{Object: obj})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func pol(name, ns, origin, role string, top api.TargetRef) Policy {
	t := top
	return Policy{Name: name, Namespace: ns, Mesh: "default", Origin: origin, Role: api.PolicyRole(role),
		Spec: api.MeshTrafficPermissionSpec{TargetRef: &t}}
}

func TestComparePolicies(t *testing.T) {
	mesh := api.TargetRef{Kind: api.RefMesh}
	svc := api.TargetRef{Kind: api.RefMeshService, Name: "backend"}
	tests := []struct {
		name string
		in   []Policy
		want []string // least specific first
	}{
		{"kind first", []Policy{
			pol("a", "kuma-system", "", "", api.TargetRef{Kind: api.RefDataplane, Labels: map[string]string{"app": "x"}}),
			pol("b", "kuma-system", "", "", api.TargetRef{Kind: api.RefMeshServiceSubset, Name: "backend", Tags: map[string]string{"v": "1"}}),
			pol("c", "kuma-system", "", "", svc),
			pol("d", "kuma-system", "", "", api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{"v": "1"}}),
			pol("e", "kuma-system", "", "", mesh),
			pol("f", "kuma-system", "", "", api.TargetRef{Kind: api.RefDataplane, Name: "dp-1"}),
		}, []string{"kuma-system/e", "kuma-system/a", "kuma-system/f", "kuma-system/d", "kuma-system/c", "kuma-system/b"}},
		// Kuma 2.14 ranks Dataplane right after Mesh (api/common/v1alpha1's order
		// map); among Dataplane refs, labels < labels with sectionName < name <
		// name with sectionName.
		{"Dataplane refs", []Policy{
			pol("a", "kuma-system", "", "", api.TargetRef{Kind: api.RefDataplane, Name: "dp-1", SectionName: "http"}),
			pol("b", "kuma-system", "", "", api.TargetRef{Kind: api.RefDataplane, Name: "dp-1"}),
			pol("c", "kuma-system", "", "", api.TargetRef{Kind: api.RefDataplane, Labels: map[string]string{"app": "x"}, SectionName: "http"}),
			pol("d", "kuma-system", "", "", api.TargetRef{Kind: api.RefDataplane, Labels: map[string]string{"app": "x"}}),
			pol("e", "kuma-system", "", "", api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{"v": "1"}}),
		}, []string{"kuma-system/d", "kuma-system/c", "kuma-system/b", "kuma-system/a", "kuma-system/e"}},
		{"a missing origin is between global and zone", []Policy{
			pol("a", "kuma-system", api.OriginZone, "", mesh),
			pol("b", "kuma-system", "", "", mesh),
			pol("c", "kuma-system", api.OriginGlobal, "", mesh),
		}, []string{"kuma-system/c", "kuma-system/b", "kuma-system/a"}},
		{"display name, not the synced name", []Policy{
			displayed(pol("a-5f7c", "kuma-system", api.OriginGlobal, "", mesh), "zz"),
			displayed(pol("z-91b2", "kuma-system", api.OriginGlobal, "", mesh), "aa"),
		}, []string{"kuma-system/a-5f7c", "kuma-system/z-91b2"}},
		{"workload-owner after consumer", []Policy{
			pol("a", "app-ns", "", "workload-owner", mesh),
			pol("b", "app-ns", "", "consumer", mesh),
		}, []string{"app-ns/b", "app-ns/a"}},
		{"global less specific than zone", []Policy{
			pol("a", "kuma-system", api.OriginZone, "", mesh),
			pol("z", "kuma-system", api.OriginGlobal, "", mesh),
		}, []string{"kuma-system/z", "kuma-system/a"}},
		{"kind beats origin", []Policy{
			pol("a", "kuma-system", api.OriginGlobal, "", svc),
			pol("b", "kuma-system", api.OriginZone, "", mesh),
		}, []string{"kuma-system/b", "kuma-system/a"}},
		{"system < producer < consumer", []Policy{
			pol("a", "consumer-ns", "", "consumer", mesh),
			pol("a", "producer-ns", "", "producer", mesh),
			pol("a", "kuma-system", "", "system", mesh),
		}, []string{"kuma-system/a", "producer-ns/a", "consumer-ns/a"}},
		{"role derived from namespace", []Policy{
			pol("a", "app-ns", "", "", mesh),
			pol("z", "kuma-system", "", "", mesh),
		}, []string{"kuma-system/z", "app-ns/a"}},
		{"smaller name is more specific, comes later", []Policy{
			pol("aaa", "kuma-system", "", "", mesh),
			pol("bbb", "kuma-system", "", "", mesh),
		}, []string{"kuma-system/bbb", "kuma-system/aaa"}},
		{"the MeshTrafficPermission MADR names: global-2 before global", []Policy{
			pol("global", "kuma-system", "", "", mesh),
			pol("global-2", "kuma-system", "", "", mesh),
			pol("backend", "kuma-system", "", "", svc),
		}, []string{"kuma-system/global-2", "kuma-system/global", "kuma-system/backend"}},
		{"absent targetRef is Mesh", []Policy{
			pol("a", "kuma-system", "", "", svc),
			{Name: "b", Namespace: "kuma-system", Mesh: "default"},
		}, []string{"kuma-system/b", "kuma-system/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := append([]Policy{}, tt.in...)
			SortPolicies(ps, "kuma-system")
			var got []string
			for _, p := range ps {
				got = append(got, p.Ref())
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("order (-want +got):\n%s", d)
			}
			// Sorting must not depend on the input order.
			rev := append([]Policy{}, tt.in...)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			SortPolicies(rev, "kuma-system")
			for i := range rev {
				if rev[i].Ref() != got[i] {
					t.Fatalf("order depends on input order: %v", rev[i].Ref())
				}
			}
		})
	}
}

// The the MeshTrafficPermission MADR policies sorted by the later seeds' rules give global-2's item
// before global's; the decision for a zone us-east client therefore changes from
// DENY_WITH_SHADOW_ALLOW (Kuma's MeshTrafficPermission MADR's list) to DENY. docs/rbac.md explains why the
// later seeds win.
func TestSeed000PoliciesMergedOrder(t *testing.T) {
	ps := policiesFromYAML(t, seed000YAML)
	groups := GroupPolicies(ps, "kuma-system")
	var backend *Group
	for i := range groups {
		if groups[i].Target.Kind == api.RefMeshService {
			backend = &groups[i]
		}
	}
	if backend == nil {
		t.Fatalf("no backend group in %v", groups)
	}
	var got []string
	for _, it := range MergeFrom(backend.Policies) {
		got = append(got, it.Policy+" "+it.Path()+" "+it.From.Default.Action)
	}
	want := []string{
		"kuma-system/global-2 spec.from[0] DENY_WITH_SHADOW_ALLOW",
		"kuma-system/global spec.from[0] DENY",
		"kuma-system/backend spec.from[0] ALLOW",
		"kuma-system/backend spec.from[1] ALLOW_WITH_SHADOW_DENY",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("merged list (-want +got):\n%s", d)
	}
}

const seed000YAML = `
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: global, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: DENY}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: global-2, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: MeshSubset, tags: {kuma.io/zone: us-east}}
      default: {action: DENY_WITH_SHADOW_ALLOW}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: backend, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: backend}
  from:
    - targetRef: {kind: MeshSubset, tags: {env: dev}}
      default: {action: ALLOW}
    - targetRef: {kind: MeshService, name: web}
      default: {action: ALLOW_WITH_SHADOW_DENY}
`

// displayed is p with a kuma.io/display-name label (a policy synced from the
// global control plane keeps its name there as this label).
func displayed(p Policy, name string) Policy {
	p.DisplayName = name
	return p
}
