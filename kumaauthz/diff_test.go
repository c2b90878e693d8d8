package kumaauthz

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// diffLines renders DiffPolicies' result one line per change, for comparisons.
func diffLines(t *testing.T, old, nw string, opts DiffOptions) []string {
	t.Helper()
	ds, err := DiffPolicies(policiesFromYAML(t, old), policiesFromYAML(t, nw), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range ds {
		if d.Incomplete != "" {
			out = append(out, d.Scope+": "+d.Incomplete)
		}
		for _, c := range d.Changes {
			out = append(out, d.Scope+": "+c.Kind+" ["+strings.Join(c.Clients, "; ")+"] "+decisionLine(c.Old)+" -> "+decisionLine(c.New))
		}
	}
	return out
}

func decisionLine(d ClassDecision) string {
	s := "DENY"
	if d.Allow {
		s = "ALLOW"
	}
	if d.ShadowAllow != d.Allow {
		s += "/shadow " + map[bool]string{true: "ALLOW", false: "DENY"}[d.ShadowAllow]
	}
	return s + " by " + d.By.String()
}

// The MeshTrafficPermission MADR's worked example (global, global-2, backend):
// the owner takes web off probation and the operator turns the shadow-mode zone
// rule into a plain deny. The latter changes nothing: in merge order the smaller
// name is the more specific, so global (Mesh, DENY) comes after global-2 and
// decides for every client global-2 matches (docs/rbac.md).
const seed000Old = `kind: MeshTrafficPermission
metadata: {name: global, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: Mesh}, default: {action: DENY}}
---
kind: MeshTrafficPermission
metadata: {name: global-2, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: MeshSubset, tags: {kuma.io/zone: us-east}}, default: {action: DENY_WITH_SHADOW_ALLOW}}
---
kind: MeshTrafficPermission
metadata: {name: backend, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: backend}
  from:
    - {targetRef: {kind: MeshSubset, tags: {env: dev}}, default: {action: ALLOW}}
    - {targetRef: {kind: MeshService, name: web}, default: {action: ALLOW_WITH_SHADOW_DENY}}
`

func TestDiffSeed000(t *testing.T) {
	nw := strings.Replace(seed000Old, "action: ALLOW_WITH_SHADOW_DENY", "action: ALLOW", 1)
	nw = strings.Replace(nw, "{kuma.io/zone: us-east}}, default: {action: DENY_WITH_SHADOW_ALLOW}", "{kuma.io/zone: us-east}}, default: {action: DENY}", 1)
	got := diffLines(t, seed000Old, nw, DiffOptions{})
	want := []string{
		"proxies of MeshService backend in mesh default: shadow [kuma.io/service=web] ALLOW/shadow DENY by kuma-system/backend spec.from[1] (ALLOW_WITH_SHADOW_DENY) -> ALLOW by kuma-system/backend spec.from[1] (ALLOW)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// Widening the example: env=dev clients of any zone to every proxy.
	wide := seed000Old + "---\nkind: MeshTrafficPermission\nmetadata: {name: dev-everywhere, namespace: kuma-system}\nspec:\n  targetRef: {kind: Mesh}\n  from:\n    - {targetRef: {kind: MeshSubset, tags: {env: dev}}, default: {action: ALLOW}}\n"
	got = diffLines(t, seed000Old, wide, DiffOptions{})
	want = []string{
		"all proxies in mesh default: widened [env=dev] DENY by kuma-system/global spec.from[0] (DENY) -> ALLOW by kuma-system/dev-everywhere spec.from[0] (ALLOW)",
		// backend already let env=dev in (its own item decides, later in the list).
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("widening (-want +got):\n%s", d)
	}
}

// Seed 001's stories SO3 (block a malicious client that was allowed) and MO4
// (/metrics only): the SPIFFE model tells paths apart.
func TestDiffSeed001(t *testing.T) {
	old := operator + `spec:
  default:
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/"}
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/observability"}
        path: {type: Prefix, value: /metrics}
`
	nw := old + "---\n" + owner + "spec:\n" + backendDP + `  default:
    deny:
      - spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/malicious"}
`
	got := diffLines(t, old, nw, DiffOptions{})
	want := []string{
		"Dataplanes with labels app=backend in mesh default: narrowed [spiffeID=spiffe://trust-domain.mesh/ns/default/sa/malicious] ALLOW by kuma-system/by-mesh-operator spec.default.allow[0] (allow) -> DENY by kuma-system/by-backend-owner spec.default.deny[0] (deny)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SO3 (-want +got):\n%s", d)
	}
	// MO4: observability narrowed to /metrics everywhere.
	nw = strings.Replace(old, `      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/"}
`, "", 1)
	got = diffLines(t, old, nw, DiffOptions{})
	want = []string{
		// IDs of the trust domain outside observability ("*": no longer prefix or
		// exact ID of the group applies); IDs of other domains were denied before.
		"all proxies in mesh default: narrowed [spiffeID=spiffe://trust-domain.mesh/*] ALLOW by kuma-system/by-mesh-operator spec.default.allow[0] (allow) -> DENY by no item matches (default deny)",
		"all proxies in mesh default: narrowed [spiffeID=spiffe://trust-domain.mesh/ns/observability*; path!=/metrics*] ALLOW by kuma-system/by-mesh-operator spec.default.allow[0] (allow) -> DENY by no item matches (default deny)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("MO4 (-want +got):\n%s", d)
	}
}

// A mesh-wide deny, namespace allows and a workload-owner override, diffed
// with a bound too small for the owner's group: it is reported as not compared.
func TestDiffBound(t *testing.T) {
	old := `kind: MeshTrafficPermission
metadata: {name: deny-all, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: Mesh}, default: {action: Deny}}
`
	nw := old + `---
kind: MeshTrafficPermission
metadata: {name: owner, namespace: shop}
spec:
  targetRef: {kind: Dataplane, labels: {app: api}}
  from:
    - {targetRef: {kind: MeshSubset, tags: {env: dev, version: v1}}, default: {action: Allow}}
    - {targetRef: {kind: MeshSubset, tags: {env: prod, version: v2}}, default: {action: Allow}}
    - {targetRef: {kind: MeshService, name: web}, default: {action: Deny}}
`
	got := diffLines(t, old, nw, DiffOptions{MaxClasses: 2})
	want := []string{"Dataplanes with labels app=api in namespace shop of mesh default: more than 2 client classes to compare (the bound); this group was not compared"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	got = diffLines(t, old, nw, DiffOptions{})
	want = []string{
		"Dataplanes with labels app=api in namespace shop of mesh default: widened [kuma.io/service!=web; env=dev; version=v1] DENY by kuma-system/deny-all spec.from[0] (Deny) -> ALLOW by shop/owner spec.from[0] (Allow)",
		"Dataplanes with labels app=api in namespace shop of mesh default: widened [kuma.io/service!=web; env=prod; version=v2] DENY by kuma-system/deny-all spec.from[0] (Deny) -> ALLOW by shop/owner spec.from[1] (Allow)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// A group whose members encode alike on both sides is not compared, however
// they were decoded (an absent list and an empty one encode alike), and one
// past the bound is then not reported either.
func TestDiffSameMembersByEncoding(t *testing.T) {
	ps := policiesFromYAML(t, `kind: MeshTrafficPermission
metadata: {name: owner, namespace: shop}
spec:
  targetRef: {kind: Dataplane, labels: {app: api}}
  from:
    - {targetRef: {kind: MeshSubset, tags: {env: dev}}, default: {action: Allow}}
`)
	emptied := ps[0]
	emptied.Spec.Rules = []api.MTPRule{}
	if !samePolicy(&ps[0], &emptied) {
		t.Error("nil and empty rules: want the same policy")
	}
	changed := ps[0]
	changed.Spec.From = []api.MTPFrom{{TargetRef: ps[0].Spec.From[0].TargetRef, Default: api.MTPConf{Action: "Deny"}}}
	if samePolicy(&ps[0], &changed) {
		t.Error("another action: want another policy")
	}
	ds, err := DiffPolicies(ps, []Policy{emptied}, DiffOptions{MaxClasses: 1, MaxGroupItems: 1})
	if err != nil || len(ds) != 0 {
		t.Errorf("DiffPolicies = %+v, %v; want no groups", ds, err)
	}
	ds, err = DiffPolicies(ps, []Policy{changed}, DiffOptions{})
	if err != nil || len(ds) != 1 {
		t.Errorf("DiffPolicies = %+v, %v; want one group", ds, err)
	}
}
