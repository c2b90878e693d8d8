package kumaauthz

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// On Kuma 2.14 a MeshIdentity changes what MeshTrafficPermissions do to the
// proxies it gives an identity (kumahq/kuma #16910, #18740): their inbounds are
// programmed from the `rules` (SPIFFE-matcher) policies only, `from` policies
// are not programmed at all, and with no `rules` policy the inbound denies every
// client (an RBAC matcher without entries), even on a mesh without mTLS. This
// file reads MeshIdentities and picks the one Kuma gives a proxy, as Kuma's
// IdentityProviderManager does (meshidentity BestMatched, then the Ready
// condition).

// Identity is a MeshIdentity reduced to what choosing a proxy's identity needs.
type Identity struct {
	Name, Namespace string
	// Mesh is the kuma.io/mesh label (Universal: the mesh field), "default" when
	// unset: a MeshIdentity only gives identities in its own mesh.
	Mesh string
	// Selects is false when spec.selector.dataplane is absent: Kuma then selects
	// no proxy. MatchLabels empty (with Selects) selects every proxy of the mesh.
	Selects     bool
	MatchLabels map[string]string
	// NotReady says why the identity is not issued: its status carries a Ready
	// condition that is not True. Objects written without status (manifests
	// before they are applied) are taken to become Ready, as a Bundled or Spire
	// provider does once the control plane has initialised it.
	NotReady string
	// TrustDomain and Path are spec.spiffeID's templates ("": Kuma's
	// defaults), from which SpiffeIDOf renders the SPIFFE ID of a proxy.
	TrustDomain, Path string
}

// Ref names the identity as policies are named: "namespace/name", or the name.
func (id Identity) Ref() string {
	if id.Namespace == "" {
		return id.Name
	}
	return id.Namespace + "/" + id.Name
}

// Ready reports whether Kuma issues this identity to the proxies it selects.
func (id Identity) Ready() bool { return id.NotReady == "" }

// selects reports whether the identity's selector matches the labels.
func (id Identity) selects(labels map[string]string) bool {
	if !id.Selects {
		return false
	}
	for k, v := range id.MatchLabels {
		if w, ok := labels[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// IdentityFromObject reads a MeshIdentity object (Kubernetes or Universal form).
func IdentityFromObject(u *unstructured.Unstructured) (Identity, error) {
	if u == nil || u.GetKind() != api.KindMeshIdentity {
		return Identity{}, fmt.Errorf("not a %s", api.KindMeshIdentity)
	}
	id := Identity{Name: u.GetName(), Namespace: u.GetNamespace(), Mesh: u.GetLabels()[api.LabelMesh]}
	if id.Mesh == "" {
		id.Mesh, _, _ = unstructured.NestedString(u.Object, "mesh")
	}
	if id.Mesh == "" {
		id.Mesh = api.DefaultMeshName
	}
	var spec api.MeshIdentitySpec
	if s, ok := u.Object["spec"]; ok && s != nil {
		if err := api.Decode(s, &spec); err != nil {
			return Identity{}, fmt.Errorf("%s %s: spec: %v", api.KindMeshIdentity, id.Ref(), err)
		}
	}
	if sp := spec.SpiffeID; sp != nil {
		if sp.TrustDomain != nil {
			id.TrustDomain = *sp.TrustDomain
		}
		if sp.Path != nil {
			id.Path = *sp.Path
		}
	}
	if spec.Selector != nil && spec.Selector.Dataplane != nil {
		id.Selects = true
		if m := spec.Selector.Dataplane.MatchLabels; m != nil {
			id.MatchLabels = copyTags(*m)
		}
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		if cm["type"] != "Ready" {
			continue
		}
		if cm["status"] == "True" {
			id.NotReady = ""
			break
		}
		id.NotReady = fmt.Sprintf("its status is Ready=%v (%v)", cm["status"], cm["reason"])
	}
	return id, nil
}

// betterIdentity orders candidates as Kuma's BestMatched does: more matchLabels
// first, then the smaller name.
func betterIdentity(a, b Identity) int {
	return cmp.Or(cmp.Compare(len(b.MatchLabels), len(a.MatchLabels)), cmp.Compare(a.Name, b.Name))
}

// IdentityOf is the MeshIdentity Kuma chooses for a proxy of mesh with the given
// Dataplane labels (nil when none selects it). The proxy only gets an identity
// when the chosen one is Ready: a more specific MeshIdentity that is not Ready
// leaves the proxy without one even if another would be.
func IdentityOf(ids []Identity, mesh string, labels map[string]string) *Identity {
	var best *Identity
	for i := range ids {
		id := &ids[i]
		if id.Mesh != mesh || !id.selects(labels) {
			continue
		}
		if best == nil || betterIdentity(*id, *best) < 0 {
			best = id
		}
	}
	return best
}

// IdentityLabels are the labels Kuma puts on the Dataplane of a proxy, which a
// MeshIdentity selects by: the proxy's Labels when known (a Dataplane or a
// workload of the input), else its tags; with its mesh, namespace and zone.
func (p Proxy) IdentityLabels() map[string]string {
	src := p.Labels
	if src == nil {
		src = p.Tags
	}
	out := make(map[string]string, len(src)+3)
	for k, v := range src {
		out[k] = v
	}
	setIfAbsent(out, api.LabelMesh, p.Mesh)
	setIfAbsent(out, api.LabelNamespace, p.Namespace)
	setIfAbsent(out, api.ZoneTag, p.Zone)
	return out
}

func setIfAbsent(m map[string]string, k, v string) {
	if _, ok := m[k]; !ok && v != "" {
		m[k] = v
	}
}

// IdentityWords says in words why a proxy with identity id ignores `from`
// policies, for notes and deciders.
func IdentityWords(id *Identity) string {
	return fmt.Sprintf("%s %s selects the proxy, so Kuma programs only `rules` MeshTrafficPermissions on its inbounds: `from` policies are not programmed",
		api.KindMeshIdentity, id.Ref())
}

// identityPolicies splits the policies selected for a proxy with a ready
// identity: the `rules` policies it keeps, and notes for the `from` ones.
func identityPolicies(sorted []Policy, id *Identity) ([]Policy, []string) {
	var keep []Policy
	var notes []string
	for _, p := range sorted {
		if p.IsRulesForm() {
			keep = append(keep, p)
			continue
		}
		if len(p.Spec.From) > 0 {
			notes = append(notes, fmt.Sprintf("%s uses `from`, which is not programmed: %s", p.Ref(), IdentityWords(id)))
		}
	}
	return slices.Clip(keep), notes
}
