// Package kumaauthz is Kuma's authorization engine: it turns MeshTrafficPermission policies into the Envoy RBAC
// configuration a Kuma proxy would be programmed with, so that users
// see what a policy change does before it reaches a proxy. It groups policies by the
// proxies they select, merges them in Kuma's order, builds network RBAC `rules` /
// `shadow_rules` (Kuma's MeshTrafficPermission MADR) or the `matcher` tree (Kuma's SPIFFE-matches MADR) from the real Envoy
// types, and reports what the merged result makes visible (dead items, deny-all,
// allow-all). It has no cluster access: everything is computed from the objects.
package kumaauthz

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// Policy is a MeshTrafficPermission reduced to what ordering, grouping and
// compilation need. It is built from an object by PolicyFromObject, or directly by
// tests and tools that already hold typed specs.
type Policy struct {
	Name      string
	Namespace string
	// Mesh is the `kuma.io/mesh` label, "default" when unset (Kuma's MeshTrafficPermission MADR: mesh as label).
	Mesh string
	// Origin is the `kuma.io/origin` label ("global", "zone" or empty).
	Origin string
	// Zone is the `kuma.io/zone` label; zone-originated namespaced policies only
	// select proxies of their zone.
	Zone string
	// Role is the `kuma.io/policy-role` label; empty means "derive from namespace".
	Role api.PolicyRole
	// DisplayName is the `kuma.io/display-name` label: the name a policy synced
	// from another control plane had there, which Kuma sorts by (SortName).
	DisplayName string
	Spec        api.MeshTrafficPermissionSpec
}

// Ref names the policy the way previews and action names do: "namespace/name", or
// just the name for cluster-less (Universal) policies.
func (p Policy) Ref() string {
	if p.Namespace == "" {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
}

// SortName is the name Kuma orders policies by: the kuma.io/display-name label
// when set, else the name.
func (p Policy) SortName() string {
	if p.DisplayName != "" {
		return p.DisplayName
	}
	return p.Name
}

// EffectiveRole is the role used for ordering and scoping: the label when set,
// otherwise system for the system namespace (or no namespace) and workload-owner
// elsewhere, which is what Kuma computes for a MeshTrafficPermission (Kuma's policy-on-namespace MADR).
func (p Policy) EffectiveRole(systemNamespace string) api.PolicyRole {
	if p.Role != "" {
		return p.Role
	}
	if p.Namespace == "" || p.Namespace == systemNamespace {
		return api.RoleSystem
	}
	return api.RoleWorkloadOwner
}

// IsRulesForm reports whether the policy uses the SPIFFE-matches MADR's SPIFFE matchers
// (`spec.default` or `spec.rules`) instead of the `from` list.
func (p Policy) IsRulesForm() bool {
	return p.Spec.Default != nil || len(p.Spec.Rules) > 0
}

// TopRef is the top-level targetRef with Kuma's default applied: absent means Mesh.
func (p Policy) TopRef() api.TargetRef {
	if p.Spec.TargetRef == nil || p.Spec.TargetRef.Kind == "" {
		return api.TargetRef{Kind: api.RefMesh}
	}
	return *p.Spec.TargetRef
}

// PolicyFromObject reads a MeshTrafficPermission object. It never panics: any shape
// problem (wrong kind, wrong field types, unknown action, missing from targetRef)
// is returned as one error naming the field, so a caller can show it next to the
// object instead of compiling something the API server would not store.
func PolicyFromObject(u *unstructured.Unstructured) (Policy, error) {
	p, err := policyMeta(u)
	if err != nil {
		return Policy{}, err
	}
	spec, ok := u.Object["spec"]
	if !ok || spec == nil {
		return Policy{}, fmt.Errorf("%s: spec is required", p.Ref())
	}
	if err := api.Decode(spec, &p.Spec); err != nil {
		return Policy{}, specError(p, spec, err)
	}
	return p.finish()
}

// specError words why spec does not decode. The typed decode names only the first
// wrong field, in Go's terms; api.Check names every wrong field by its path, so it
// runs here, for a spec that failed, rather than on every policy read (the stored
// policies of a preview, a lint run's): a spec that decodes has no field it would
// refuse.
func specError(p Policy, spec any, decodeErr error) error {
	res := api.Check(reflect.TypeOf(api.MeshTrafficPermissionSpec{}), spec, field.NewPath("spec"))
	if len(res.Errors) > 0 {
		return fmt.Errorf("%s: %s", p.Ref(), res.Errors.ToAggregate().Error())
	}
	return fmt.Errorf("%s: spec: %v", p.Ref(), decodeErr)
}

// PolicyFromSpec is PolicyFromObject for a spec already decoded (and checked) by
// the caller, such as the one validate.Result.Spec holds: the object's metadata is
// read from u and spec is used as is instead of decoding u's spec again. spec is
// shared, not copied; compilation only reads it.
func PolicyFromSpec(u *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) (Policy, error) {
	p, err := policyMeta(u)
	if err != nil {
		return Policy{}, err
	}
	if spec == nil {
		return Policy{}, fmt.Errorf("%s: spec is required", p.Ref())
	}
	p.Spec = *spec
	return p.finish()
}

// policyMeta reads the kind, name, namespace and labels of a MeshTrafficPermission.
func policyMeta(u *unstructured.Unstructured) (Policy, error) {
	if u == nil || u.Object == nil {
		return Policy{}, fmt.Errorf("no object")
	}
	if k := u.GetKind(); k != api.KindMeshTrafficPermission {
		return Policy{}, fmt.Errorf("kind is %q, only %s can be compiled to RBAC", k, api.KindMeshTrafficPermission)
	}
	labels := u.GetLabels()
	p := Policy{
		Name:        u.GetName(),
		Namespace:   u.GetNamespace(),
		Mesh:        labels[api.LabelMesh],
		Origin:      labels[api.LabelOrigin],
		Zone:        labels[api.LabelZone],
		Role:        api.PolicyRole(labels[api.LabelPolicyRole]),
		DisplayName: labels[api.LabelDisplayName],
	}
	if p.Name == "" {
		return Policy{}, fmt.Errorf("metadata.name is required")
	}
	if p.Mesh == "" {
		p.Mesh = api.DefaultMeshName
	}
	switch p.Role {
	case "", api.RoleSystem, api.RoleProducer, api.RoleConsumer, api.RoleWorkloadOwner:
	default:
		return Policy{}, fmt.Errorf("metadata.labels[%s]: unknown policy role %q", api.LabelPolicyRole, p.Role)
	}
	return p, nil
}

// finish checks a policy whose spec is decoded.
func (p Policy) finish() (Policy, error) {
	if err := p.check(); err != nil {
		return Policy{}, fmt.Errorf("%s: %v", p.Ref(), err)
	}
	return p, nil
}

// check refuses what compilation cannot give a meaning to.
func (p Policy) check() error {
	for i, f := range p.Spec.From {
		path := field.NewPath("spec", "from").Index(i)
		if f.TargetRef == nil || f.TargetRef.Kind == "" {
			return fmt.Errorf("%s.targetRef.kind is required", path)
		}
		switch f.TargetRef.Kind {
		case api.RefMesh, api.RefMeshSubset, api.RefMeshService, api.RefMeshServiceSubset:
		default:
			return fmt.Errorf("%s.targetRef.kind %q cannot select clients (use Mesh, MeshSubset, MeshService or MeshServiceSubset)", path, f.TargetRef.Kind)
		}
		if _, err := ParseAction(f.Default.Action); err != nil {
			return fmt.Errorf("%s.default.action: %v", path, err)
		}
	}
	return nil
}

// Action is one `from[].default.action`. Its two bits say what the enforced rules
// and the shadow rules do with a client whose deciding item has this action.
type Action uint8

// The four actions of the MeshTrafficPermission MADR.
const (
	Allow Action = iota
	Deny
	AllowWithShadowDeny
	DenyWithShadowAllow
)

// String is the MeshTrafficPermission MADR's spelling, used in previews and messages.
func (a Action) String() string {
	switch a {
	case Allow:
		return "ALLOW"
	case Deny:
		return "DENY"
	case AllowWithShadowDeny:
		return "ALLOW_WITH_SHADOW_DENY"
	case DenyWithShadowAllow:
		return "DENY_WITH_SHADOW_ALLOW"
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Allows reports whether the enforced rules let the client in.
func (a Action) Allows() bool { return a == Allow || a == AllowWithShadowDeny }

// ShadowAllows reports whether the shadow rules (what would happen if the shadow
// actions took effect) let the client in.
func (a Action) ShadowAllows() bool { return a == Allow || a == DenyWithShadowAllow }

// ParseAction accepts the MeshTrafficPermission MADR's spellings and Kuma's CamelCase ones. Kuma's API
// has no DenyWithShadowAllow (its enum is Allow;Deny;AllowWithShadowDeny), so only
// the seed spelling DENY_WITH_SHADOW_ALLOW exists for that action.
func ParseAction(s string) (Action, error) {
	switch s {
	case "ALLOW", "Allow":
		return Allow, nil
	case "DENY", "Deny":
		return Deny, nil
	case "ALLOW_WITH_SHADOW_DENY", "AllowWithShadowDeny":
		return AllowWithShadowDeny, nil
	case "DENY_WITH_SHADOW_ALLOW":
		return DenyWithShadowAllow, nil
	case "":
		return 0, fmt.Errorf("action is required")
	}
	return 0, fmt.Errorf("unknown action %q (want one of %s)", s,
		strings.Join([]string{"ALLOW", "DENY", "ALLOW_WITH_SHADOW_DENY", "DENY_WITH_SHADOW_ALLOW", "Allow", "Deny", "AllowWithShadowDeny"}, ", "))
}
