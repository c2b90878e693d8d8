package kumaauthz

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// identityFrom is a mesh-wide `from` Allow for web and a namespace-wide one for
// everyone of namespace shop's own proxies: what a mesh had before MeshIdentity.
const identityFrom = `kind: MeshTrafficPermission
metadata: {name: allow-web, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: MeshService, name: web}, default: {action: Allow}}
`

// identityRules adds a `rules` policy for namespace shop's proxies.
const identityRules = identityFrom + `---
kind: MeshTrafficPermission
metadata: {name: allow-spiffe, namespace: shop}
spec:
  targetRef: {kind: Mesh}
  rules:
    - default:
        allow:
          - spiffeID: {type: Prefix, value: spiffe://default.z.mesh.local/ns/shop/}
`

func meshIdentity(name string, labels map[string]string, notReady string) Identity {
	return Identity{Name: name, Namespace: "kuma-system", Mesh: "default", Selects: true, MatchLabels: labels, NotReady: notReady}
}

// TestDiffMeshIdentity: adding a MeshIdentity takes `from` policies off the
// proxies it selects (Kuma 2.14), so every client they let in loses access;
// removing it gives the access back (a widening); a MeshIdentity that is not
// Ready, selects nothing, or selects other proxies changes nothing; with one in
// both sets, only `rules` policies are compared.
func TestDiffMeshIdentity(t *testing.T) {
	all := meshIdentity("all", map[string]string{}, "")
	shop := meshIdentity("shop", map[string]string{"k8s.kuma.io/namespace": "shop"}, "")
	notReady := meshIdentity("all", nil, "its status is Ready=False (NotReady)")
	noSelector := Identity{Name: "none", Namespace: "kuma-system", Mesh: "default"}
	otherMesh := meshIdentity("other", nil, "")
	otherMesh.Mesh = "other"

	for _, tt := range []struct {
		name     string
		old, new string
		oldIDs   []Identity
		newIDs   []Identity
		want     []string
	}{
		{"added mesh-wide", identityFrom, identityFrom, nil, []Identity{all}, []string{
			"all proxies in mesh default: narrowed [kuma.io/service=web] ALLOW by kuma-system/allow-web spec.from[0] (Allow) -> DENY by no item matches (default deny)"}},
		{"removed mesh-wide", identityFrom, identityFrom, []Identity{all}, nil, []string{
			"all proxies in mesh default: widened [kuma.io/service=web] DENY by no item matches (default deny) -> ALLOW by kuma-system/allow-web spec.from[0] (Allow)"}},
		{"added for one namespace", identityFrom, identityFrom, nil, []Identity{shop}, []string{
			"all proxies in mesh default, those with labels k8s.kuma.io/namespace=shop: narrowed [kuma.io/service=web] ALLOW by kuma-system/allow-web spec.from[0] (Allow) -> DENY by no item matches (default deny)"}},
		{"not ready", identityFrom, identityFrom, nil, []Identity{notReady}, nil},
		{"no selector selects nothing", identityFrom, identityFrom, nil, []Identity{noSelector}, nil},
		{"another mesh", identityFrom, identityFrom, nil, []Identity{otherMesh}, nil},
		{"rules added under an identity", identityFrom, identityRules, []Identity{all}, []Identity{all}, []string{
			"all proxies in namespace shop of mesh default: widened [spiffeID=spiffe://default.z.mesh.local/ns/shop/*] DENY by no item matches (default deny) -> ALLOW by shop/allow-spiffe spec.rules[0].default.allow[0] (allow)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {

			got := diffLines(t, tt.old, tt.new, DiffOptions{OldIdentities: tt.oldIDs, NewIdentities: tt.newIDs})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestIdentityOf: Kuma's BestMatched (most matchLabels, then the smaller name)
// decides, and a best match that is not Ready leaves the proxy without identity
// even when another would do.
func TestIdentityOf(t *testing.T) {
	labels := map[string]string{"app": "web", "k8s.kuma.io/namespace": "shop", "kuma.io/mesh": "default"}
	all := meshIdentity("b-all", map[string]string{}, "")
	all2 := meshIdentity("a-all", nil, "")
	shop := meshIdentity("z-shop", map[string]string{"k8s.kuma.io/namespace": "shop"}, "")
	shopNotReady := meshIdentity("z-shop", map[string]string{"k8s.kuma.io/namespace": "shop"}, "not ready")
	other := meshIdentity("other", map[string]string{"app": "api"}, "")
	for _, tt := range []struct {
		name  string
		ids   []Identity
		want  string
		ready bool
	}{
		{"none", nil, "", false},
		{"selector elsewhere", []Identity{other}, "", false},
		{"mesh-wide", []Identity{all}, "kuma-system/b-all", true},
		{"ties: the smaller name", []Identity{all, all2}, "kuma-system/a-all", true},
		{"more labels win", []Identity{all, shop, all2}, "kuma-system/z-shop", true},
		{"best not ready", []Identity{all, shopNotReady}, "kuma-system/z-shop", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id := IdentityOf(tt.ids, "default", labels)
			got, ready := "", false
			if id != nil {
				got, ready = id.Ref(), id.Ready()
			}
			if got != tt.want || ready != tt.ready {
				t.Errorf("IdentityOf = %q (ready %v), want %q (ready %v)", got, ready, tt.want, tt.ready)
			}
		})
	}
}

// TestPreviewMeshIdentity: the preview of proxies a Ready MeshIdentity selects
// compiles their `rules` policies only (none: a matcher tree that denies every
// client) and names the `from` policies left out; a MeshIdentity selecting some
// of a group's proxies splits the group in two previews.
func TestPreviewMeshIdentity(t *testing.T) {
	all := meshIdentity("all", map[string]string{}, "")
	shop := meshIdentity("shop", map[string]string{"k8s.kuma.io/namespace": "shop"}, "")
	type view struct {
		Scope, Identity, Form string
		Items                 int
		Warning               bool
	}
	for _, tt := range []struct {
		name     string
		policies string
		ids      []Identity
		want     []view
	}{
		{"no identity", identityFrom, nil, []view{{"all proxies in mesh default", "", "expanded", 1, false}}},
		{"mesh-wide identity", identityFrom, []Identity{all}, []view{{"all proxies in mesh default", "kuma-system/all", "matcher", 0, true}}},
		{"identity for one namespace", identityFrom, []Identity{shop}, []view{
			{"all proxies in mesh default, those no other MeshIdentity selects", "", "expanded", 1, false},
			{"all proxies in mesh default, those with labels k8s.kuma.io/namespace=shop", "kuma-system/shop", "matcher", 0, true}}},
		{"identity with rules", identityRules, []Identity{all}, []view{
			{"all proxies in mesh default", "kuma-system/all", "matcher", 0, true},
			{"all proxies in namespace shop of mesh default", "kuma-system/all", "matcher", 1, true}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pvs, err := BuildPreviews(policiesFromYAML(t, tt.policies), Options{Form: FormExpanded, Identities: tt.ids})
			if err != nil {
				t.Fatal(err)
			}
			var got []view
			for _, pv := range pvs {
				warned := false
				for _, w := range pv.Warnings {
					warned = warned || strings.Contains(w, "is not programmed") || strings.Contains(w, "deny every client")
				}
				if pv.RBAC == nil {
					t.Fatalf("%s: no RBAC", pv.Scope)
				}
				if err := pv.RBAC.Validate(); err != nil {
					t.Errorf("%s: RBAC does not validate: %v", pv.Scope, err)
				}
				got = append(got, view{pv.Scope, pv.Identity, string(pv.Form), len(pv.Items), warned})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
