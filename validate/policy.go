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
	if !v.ref(*r, tp, placeTop, v.kind.TopLevel, CodeTopKind) {
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

// policy runs the rules every targetRef policy shares on a kind's typed spec.
func (v *validator) policy(s api.Targeted, p *field.Path) {
	v.top(s.Top(), p)
	tk := topKind(s.Top())
	for i, r := range s.ToRefs() {
		ip := p.Child("to").Index(i).Child("targetRef")
		if r == nil {
			v.err(field.Required(ip, "each 'to' item needs a targetRef naming the destination"), CodeRefField)
			continue
		}
		v.ref(*r, ip, placeTo, v.kind.ToKinds(tk), CodeToKind)
	}
	for i, r := range s.FromRefs() {
		if r == nil {
			continue // implied Mesh (Kuma's policy-on-namespace MADR sugar)
		}
		ip := p.Child("from").Index(i).Child("targetRef")
		if v.ref(*r, ip, placeFrom, v.kind.From, CodeFromKind) {
			v.deprecatedRef(*r, ip, placeFrom)
		}
	}
	v.requireSomething(s.HasConf(), p)
}

// requireSomething reports a policy that configures nothing at all.
func (v *validator) requireSomething(has bool, p *field.Path) {
	names := v.kind.Sections.Names()
	for _, n := range names {
		if _, present := v.spec[n]; present && n != "targetRef" {
			has = true // present but malformed: its own error says what is wrong
		}
	}
	if has {
		return
	}
	var want []string
	for _, n := range names {
		if n != "targetRef" {
			want = append(want, "'"+n+"'")
		}
	}
	v.err(field.Required(p, fmt.Sprintf("%s configures nothing; add %s", v.kind.Kind, strings.Join(want, " or "))), CodeSpecShape)
}
