package validate

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// lenientGatewaySince is the Linkerd release from which admission admits a Gateway API
// route whose spec its Gateway API types cannot read (linkerd/linkerd2#15118), so that
// routes of other controllers using newer features (an HTTPRoute CORS filter) are not
// blocked: the releases before it refuse such a route.
const lenientGatewaySince = api.LinkerdV220

// linkerdHTTPFilterTypes are the HTTPRoute filter types the Gateway API types of a
// Linkerd release know (its gateway-api crate, experimental channel): version-2.18 to
// version-2.20 were built on Gateway API v1.2.1's, which predate CORS (v1.3) and
// ExternalAuth (v1.4); edge-26.8.3 on v1.5.1's (linkerd/linkerd2#15567), which know
// every type the embedded bundles allow. GRPCRoute's filter types did not change.
func linkerdHTTPFilterTypes(version string) []string {
	known := []string{"RequestHeaderModifier", "ResponseHeaderModifier", "RequestMirror", "RequestRedirect", "URLRewrite", "ExtensionRef"}
	if api.LinkerdBefore(version, api.LinkerdEdge) {
		return known
	}
	return append(known, "CORS", "ExternalAuth")
}

// gwUnreadable finds the first filter of a Gateway API HTTPRoute whose type the
// Linkerd release's Gateway API types do not know, at rules[i].filters[j] or a
// backendRef's filters; nil when Linkerd reads the whole spec.
func (v *validator) gwUnreadable(s *api.GatewayHTTPRouteSpec, p *field.Path) (*field.Path, string) {
	known := linkerdHTTPFilterTypes(v.s.LinkerdVersion)
	for i, r := range s.Rules {
		rp := p.Child("rules").Index(i)
		for j, f := range r.Filters {
			if f.Type != "" && !slices.Contains(known, f.Type) {
				return rp.Child("filters").Index(j).Child("type"), f.Type
			}
		}
		for j, b := range r.BackendRefs {
			fs, _ := b.Filters.([]any)
			for k, f := range fs {
				m, _ := f.(map[string]any)
				if t, _ := m["type"].(string); t != "" && !slices.Contains(known, t) {
					return rp.Child("backendRefs").Index(j).Child("filters").Index(k).Child("type"), t
				}
			}
		}
	}
	return nil, ""
}

// gwReadable reports whether Linkerd's admission goes on to check a Gateway API
// HTTPRoute: when its types cannot read a filter, the releases before version-2.20
// refuse the route (MG364) and the later ones admit it unchecked, as meshguard then
// does.
func (v *validator) gwReadable(s *api.GatewayHTTPRouteSpec, p *field.Path) bool {
	fp, t := v.gwUnreadable(s, p)
	if fp == nil {
		return true
	}
	if api.LinkerdBefore(v.s.LinkerdVersion, lenientGatewaySince) {
		v.err(field.NotSupported(fp, t, linkerdHTTPFilterTypes(v.s.LinkerdVersion)), CodeLinkerdRouteFilter)
		v.res.Errors[len(v.res.Errors)-1].Detail = fmt.Sprintf("Linkerd %s cannot read a %s filter (its Gateway API types are v1.2.1's) and refuses the route; "+
			"version-2.20 admits it unchecked (linkerd/linkerd2#15118)", v.s.LinkerdVersion, t)
	}
	return false
}
