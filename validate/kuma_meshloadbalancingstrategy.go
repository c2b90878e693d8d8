package validate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshLoadBalancingStrategy is Kuma 2.14's meshloadbalancingstrategy validator
// beyond the schema and the rules every policy shares: which destinations a conf
// may have (only Mesh with a loadBalancer on a MeshGateway, only hashPolicies for a
// MeshHTTPRoute), and the contents of each conf.
func (v *validator) meshLoadBalancingStrategy(s *api.MeshLoadBalancingStrategySpec, p *field.Path) {
	top := topKind(s.TargetRef)
	for i, it := range s.To {
		ip := p.Child("to").Index(i)
		var kind api.RefKind
		if it.TargetRef != nil {
			kind = it.TargetRef.Kind
		}
		c := it.Default
		if top == api.RefMeshGateway && c != nil && c.LoadBalancer != nil && (kind == api.RefMeshService || kind == api.RefMeshMultiZoneService) {
			e := field.NotSupported(ip.Child("targetRef", "kind"), string(kind), []string{string(api.RefMesh)})
			e.Detail = "on a MeshGateway a loadBalancer can be set only for all destinations at once (to kind Mesh); " +
				"use kind Mesh, or drop loadBalancer here and keep hashPolicies/localityAwareness"
			v.err(e, CodeLoadBalancingConf)
		}
		// Kuma also says a MeshExternalService destination needs a Mesh
		// top-level target, but no top-level target supports that kind in 'to'
		// (the shared rules' MG111 already refuses it): one finding is enough.
		if c == nil {
			continue
		}
		v.lbConf(c, it.TargetRef, ip.Child("default"))
	}
}

// lbConf checks one conf; ref is its item's destination.
func (v *validator) lbConf(c *api.MeshLoadBalancingStrategyConf, ref *api.TargetRef, p *field.Path) {
	const code = CodeLoadBalancingConf
	if ref != nil && ref.Kind == api.RefMeshHTTPRoute {
		v.lbHashPolicies(c.HashPolicies, p.Child("hashPolicies"))
		const why = "a MeshHTTPRoute destination takes only hashPolicies; set %s on a MeshService or Mesh destination instead"
		if c.LoadBalancer != nil {
			v.err(field.Forbidden(p.Child("loadBalancer"), fmt.Sprintf(why, "loadBalancer")), code)
		}
		if c.LocalityAwareness != nil {
			v.err(field.Forbidden(p.Child("localityAwareness"), fmt.Sprintf(why, "localityAwareness")), code)
		}
		return
	}
	if lb := c.LoadBalancer; lb != nil {
		v.lbBalancer(lb, p.Child("loadBalancer"))
	}
	if la := c.LocalityAwareness; la != nil {
		lp := p.Child("localityAwareness")
		v.lbLocalZone(la.LocalZone, lp.Child("localZone"))
		v.lbCrossZone(la.CrossZone, ref, lp.Child("crossZone"))
	}
	v.lbHashPolicies(c.HashPolicies, p.Child("hashPolicies"))
	if c.HashPolicies != nil && c.LoadBalancer != nil {
		const dup = "hashPolicies are already set at the root of this conf; keep one list (the root one or the balancer's)"
		if rh := c.LoadBalancer.RingHash; rh != nil && rh.HashPolicies != nil {
			v.err(field.Forbidden(p.Child("loadBalancer", "ringHash", "hashPolicies"), dup), code)
		}
		if mg := c.LoadBalancer.Maglev; mg != nil && mg.HashPolicies != nil {
			v.err(field.Forbidden(p.Child("loadBalancer", "maglev", "hashPolicies"), dup), code)
		}
	}
}

// lbBalancer checks the parameters of the balancer its type selects; Kuma ignores
// the sections of the other types.
func (v *validator) lbBalancer(lb *api.LoadBalancer, p *field.Path) {
	switch lb.Type {
	case "RingHash":
		if lb.RingHash != nil {
			v.lbHashPolicies(lb.RingHash.HashPolicies, p.Child("ringHash", "hashPolicies"))
		}
	case "Maglev":
		if lb.Maglev != nil {
			v.lbHashPolicies(lb.Maglev.HashPolicies, p.Child("maglev", "hashPolicies"))
		}
	case "LeastRequest":
		if lr := lb.LeastRequest; lr != nil && lr.ActiveRequestBias != nil {
			bp := p.Child("leastRequest", "activeRequestBias")
			if d, ok := v.shapingDecimal(*lr.ActiveRequestBias, bp, CodeLoadBalancingConf); ok && d.IsNegative() {
				v.err(field.Invalid(bp, lr.ActiveRequestBias.String(), "must be 0 or greater (e.g. \"1.0\")"), CodeLoadBalancingConf)
			}
		}
	}
}

// lbHashPolicies checks that each hash policy sets the section its type needs.
func (v *validator) lbHashPolicies(hp *[]api.HashPolicy, p *field.Path) {
	if hp == nil {
		return
	}
	for i, h := range *hp {
		ip := p.Index(i)
		missing := ""
		switch h.Type {
		case "Header":
			if h.Header == nil {
				missing = "header"
			}
		case "Cookie":
			if h.Cookie == nil {
				missing = "cookie"
			} else if h.Cookie.Path != nil && !strings.HasPrefix(*h.Cookie.Path, "/") {
				v.err(field.Invalid(ip.Child("cookie", "path"), *h.Cookie.Path, "must be an absolute path starting with \"/\""), CodeLoadBalancingConf)
			}
		case "QueryParameter":
			if h.QueryParameter == nil {
				missing = "queryParameter"
			}
		case "FilterState":
			if h.FilterState == nil {
				missing = "filterState"
			}
		case "Connection", "SourceIP":
			if h.Connection == nil {
				missing = "connection"
			}
		}
		if missing != "" {
			v.err(field.Required(ip.Child(missing), fmt.Sprintf("a hash policy of type %s needs its %q section", h.Type, missing)), CodeLoadBalancingConf)
		}
	}
}
