package validate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// roleRules are the policy-on-namespace MADR's validation statements for namespace-scoped policies: no
// `from` together with `to`, and no producer items mixed with consumer items.
func (v *validator) roleRules(rr api.RoleResult, shape api.Shape, p *field.Path) {
	if rr.FromAndTo {
		v.err(field.Forbidden(p.Child("from"), fmt.Sprintf(
			"a policy in namespace %q cannot have both 'from' and 'to': Kuma cannot give it a role. Split it into one policy with 'from' and one with 'to' (or create it in the system namespace %q)",
			v.ns, v.s.SystemNamespace)), CodeFromAndTo)
	}
	if len(rr.Producers) == 0 || len(rr.Consumers) == 0 {
		return
	}
	msg := fmt.Sprintf("'to' mixes producer items %s (services in this namespace %q) with consumer items %s (anything else); a policy is either producer or consumer. Split it into two policies",
		indexList(rr.Producers), v.ns, indexList(rr.Consumers))
	for _, i := range rr.Consumers {
		r := shape.To[i]
		ip := p.Child("to").Index(i).Child("targetRef")
		var e *field.Error
		switch {
		case r.Namespace != "":
			e = field.Invalid(ip.Child("namespace"), r.Namespace, msg)
		case !r.Present:
			e = field.Invalid(ip, nil, msg)
		case r.Labels && r.Name == "":
			e = field.Invalid(ip.Child("labels"), "labels", msg)
		default:
			e = field.Invalid(ip.Child("kind"), r.Kind, msg)
		}
		v.err(e, CodeMixedRoles)
	}
}

func indexList(idx []int) string {
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = fmt.Sprintf("to[%d]", x)
	}
	return strings.Join(parts, ", ")
}

// topKind is the effective top-level kind: an absent targetRef means Mesh.
func topKind(r *api.TargetRef) api.RefKind {
	if r == nil || r.Kind == "" {
		return api.RefMesh
	}
	return r.Kind
}

// top checks the top-level targetRef and the MeshGateway placement rules of the policy-on-namespace MADR.
func (v *validator) top(r *api.TargetRef, p *field.Path) {
	tp := p.Child("targetRef")
	if r == nil {
		return // implied Mesh (Kuma's policy-on-namespace MADR sugar)
	}
	if !v.ref(*r, tp, placeTop, v.kind.TopLevelIn(v.s.KumaVersion), CodeTopKind) {
		return
	}
	v.deprecatedRef(*r, tp, placeTop)
	if v.system() {
		return
	}
	if r.Kind == api.RefMeshGateway && v.role == api.RoleConsumer && !v.kind.Route {
		v.err(field.Forbidden(tp.Child("kind"), fmt.Sprintf(
			"a consumer policy (namespace %q, 'to' pointing at other namespaces) cannot target a MeshGateway: MeshGateway is cluster-scoped. Target the gateway from the system namespace %q, or make this a producer policy",
			v.ns, v.s.SystemNamespace)), CodeGatewayConsumer)
		return
	}
	if !api.ContainsRef(v.kind.SystemOnly, r.Kind) {
		return
	}
	switch {
	case r.Kind == api.RefMeshGateway && v.kind.Route:
		v.err(field.Forbidden(tp.Child("kind"), fmt.Sprintf(
			"a %s that targets a MeshGateway decides which traffic enters the mesh and can only be created in the system namespace %q by the mesh operator; move it to %q",
			v.kind.Kind, v.s.SystemNamespace, v.s.SystemNamespace)), CodeGatewayRoute)
	case r.Kind == api.RefMeshGateway:
		v.err(field.Forbidden(tp.Child("kind"), fmt.Sprintf(
			"from an application namespace only policies that configure just Envoy clusters (MeshCircuitBreaker, MeshHealthCheck, MeshLoadBalancingStrategy, MeshAccessLog) may target a MeshGateway; create this %s in the system namespace %q, or target a route of the gateway",
			v.kind.Kind, v.s.SystemNamespace)), CodeGatewayRoute)
	default:
		e := field.NotSupported(tp.Child("kind"), string(r.Kind), refKindStrings(without(v.kind.TopLevel, v.kind.SystemOnly)))
		e.Detail = fmt.Sprintf("%s can target a %s only from the system namespace %q; in namespace %q supported values are: %s",
			v.kind.Kind, r.Kind, v.s.SystemNamespace, v.ns, quoteJoin(refKindStrings(without(v.kind.TopLevel, v.kind.SystemOnly))))
		v.err(e, CodeTopKind)
	}
}

func without(all, drop []api.RefKind) []api.RefKind {
	var out []api.RefKind
	for _, k := range all {
		if !api.ContainsRef(drop, k) {
			out = append(out, k)
		}
	}
	return out
}

// policy runs the rules every targetRef policy shares on a kind's typed spec: the
// top-level targetRef, which sections may be combined or appear with that target,
// each item's targetRef, default and matches, and that the spec configures something.
// The per-kind options are the kind's api.KumaRules (Kuma's validator of each policy).
func (v *validator) policy(s api.Targeted, p *field.Path) {
	top := s.Top()
	v.top(top, p)
	tk := topKind(top)
	items := s.Items()
	n := map[string]int{}
	for _, it := range items {
		n[it.Section]++
	}
	skip := v.sectionRules(top, n, p)
	v.refusedSections = skip
	for _, it := range items {
		if skip[it.Section] {
			continue
		}
		ip := p.Child(it.Section).Index(it.Index)
		switch it.Section {
		case "to":
			if it.Ref == nil {
				if v.schemaAnswered {
					break // the CRD requires it and has said so
				}
				v.err(field.Required(ip.Child("targetRef"), "each 'to' item needs a targetRef naming the destination"), CodeRefField)
				break
			}
			if v.ref(*it.Ref, ip.Child("targetRef"), placeTo, v.kind.ToKindsIn(tk, v.s.KumaVersion), CodeToKind) {
				v.externalToUnderMesh(*it.Ref, tk, ip.Child("targetRef", "kind"))
			}
		case "from":
			if it.Ref != nil && v.ref(*it.Ref, ip.Child("targetRef"), placeFrom, v.kind.From, CodeFromKind) {
				v.deprecatedRef(*it.Ref, ip.Child("targetRef"), placeFrom)
			}
		case "rules":
			v.ruleMatches(it.Matches, ip.Child("matches"))
		}
		if v.kind.Shared.ItemDefault && !it.HasDefault {
			v.err(field.Required(ip.Child("default"), fmt.Sprintf(
				"each '%s' item needs a 'default' with the %s configuration; Kuma refuses an item without one", it.Section, v.kind.Kind)), CodeSpecShape)
		}
	}
	if v.toRequired(n, p) {
		return
	}
	v.requireSections(s, n, p)
}

// externalToUnderMesh refuses, under a Kuma release before the kind's
// ExternalToMeshOnlyBefore (Kuma 2.13's MeshHealthCheck and MeshCircuitBreaker), a
// `to` MeshExternalService under a top-level targetRef other than Mesh: those
// releases configure it on the Zone Egress, shared by every client of the mesh.
func (v *validator) externalToUnderMesh(ref api.TargetRef, top api.RefKind, p *field.Path) {
	before := v.kind.Shared.ExternalToMeshOnlyBefore
	if before == "" || ref.Kind != api.RefMeshExternalService || top == api.RefMesh || !api.KumaBefore(v.s.KumaVersion, before) {
		return
	}
	v.err(field.Invalid(p, string(ref.Kind), fmt.Sprintf(
		"kind MeshExternalService is only allowed with targetRef.kind: Mesh as it is configured on the Zone Egress and shared by all clients in the mesh "+
			"(Kuma %s; Kuma %s accepts it): target the Mesh at top level, or upgrade", v.s.KumaVersion, before)), CodeToKind)
}

// toRequired refuses, under a Kuma release before the kind's ToRequiredBefore
// (Kuma 2.13's MeshRetry and MeshLoadBalancingStrategy), a policy without `to`
// items, and then reports true: the "configures nothing" warning would say Kuma
// accepts it.
func (v *validator) toRequired(n map[string]int, p *field.Path) bool {
	before := v.kind.Shared.ToRequiredBefore
	if before == "" || n["to"] > 0 || v.refusedSections["to"] || !api.KumaBefore(v.s.KumaVersion, before) {
		return false
	}
	v.err(field.Required(p.Child("to"), fmt.Sprintf(
		"needs at least one item: Kuma %s refuses a %s without 'to' (Kuma %s accepts an empty one to disable the configuration); list the destinations it configures",
		v.s.KumaVersion, v.kind.Kind, before)), CodeSpecShape)
	return true
}

// sectionRules applies Kuma's rules on whole sections: `rules` replaces to/from
// (the kinds say which), and some sections are refused with some top-level
// targets. It returns the sections whose items Kuma then does not look at.
func (v *validator) sectionRules(top *api.TargetRef, n map[string]int, p *field.Path) map[string]bool {
	sh := v.kind.SharedIn(v.s.KumaVersion)
	if n["rules"] > 0 {
		for _, sec := range []struct {
			s api.Section
			k string
		}{{api.SecTo, "to"}, {api.SecFrom, "from"}} {
			if sh.RulesExclude.Has(sec.s) && n[sec.k] > 0 {
				v.err(field.Forbidden(p.Child(sec.k), fmt.Sprintf(
					"'rules' replaces '%s' in %s: a policy with rules must leave '%s' empty. Move this configuration into rules, or split it into two policies",
					sec.k, v.kind.Kind, sec.k)), CodeSections)
			}
		}
	}
	skip := map[string]bool{}
	for _, sec := range []struct {
		k    string
		when api.Scope
	}{{"from", sh.FromForbidden}, {"to", sh.ToForbidden}, {"rules", sh.RulesForbidden}} {
		if n[sec.k] == 0 || !sec.when.Holds(top) {
			continue
		}
		skip[sec.k] = true
		v.err(field.Forbidden(p.Child(sec.k), scopeMessage(v.kind.Kind, sec.k, sec.when)), CodeSections)
	}
	return skip
}

func scopeMessage(kind, section string, when api.Scope) string {
	switch when {
	case api.ScopeGatewayOrRoute:
		return fmt.Sprintf("%s cannot have '%s' when the top-level targetRef is a MeshGateway or MeshHTTPRoute; remove '%s' or target the proxies instead", kind, section, section)
	case api.ScopeGateways:
		return fmt.Sprintf("%s cannot have '%s' when the policy may apply to gateways (MeshGateway, MeshHTTPRoute, or Mesh/MeshSubset without proxyTypes [Sidecar]); add proxyTypes: [Sidecar] to the top-level targetRef, or configure gateways with 'to'", kind, section)
	}
	return fmt.Sprintf("%s can only have '%s' when the policy applies to gateways: target a MeshGateway, or Mesh/MeshSubset with proxyTypes [Gateway]; for sidecars use 'from' or 'rules'", kind, section)
}

// requireSections reports a policy that configures nothing: an error where Kuma
// refuses it, a warning where Kuma accepts a policy that has no effect.
func (v *validator) requireSections(s api.Targeted, n map[string]int, p *field.Path) {
	sh := v.kind.SharedIn(v.s.KumaVersion)
	sections := v.kind.SectionsIn(v.s.KumaVersion)
	if sections&(api.SecTo|api.SecFrom|api.SecRules) == 0 {
		if s.HasDefault() {
			return
		}
		e := field.Required(p.Child("default"), fmt.Sprintf("%s configures nothing; add 'default'", v.kind.Kind))
		if sh.Default {
			v.err(e, CodeSpecShape)
		} else {
			v.warn(e, CodeNoEffect)
		}
		return
	}
	if n["to"]+n["from"]+n["rules"] > 0 {
		return
	}
	var want []string
	for _, name := range sections.Names() {
		if name != "targetRef" && name != "default" {
			want = append(want, "'"+name+"'")
		}
	}
	msg := fmt.Sprintf("%s configures nothing; add %s (an empty list counts as none)", v.kind.Kind, strings.Join(want, " or "))
	if sh.Require != 0 {
		v.err(field.Required(p, msg), CodeSpecShape)
		return
	}
	v.warn(field.Required(p, msg+"; Kuma accepts it, but it has no effect"), CodeNoEffect)
}

// requireSomething reports a policy that configures nothing at all (the kinds with
// a spec of their own: MeshTrafficPermission and the routes). Empty lists count as
// nothing, as in Kuma.
func (v *validator) requireSomething(has bool, p *field.Path) {
	if has {
		return
	}
	names := v.kind.SectionsIn(v.s.KumaVersion).Names()
	var want []string
	for _, n := range names {
		if n != "targetRef" {
			want = append(want, "'"+n+"'")
		}
	}
	v.err(field.Required(p, fmt.Sprintf("%s configures nothing; add %s (an empty list counts as none)", v.kind.Kind, strings.Join(want, " or "))), CodeSpecShape)
}
