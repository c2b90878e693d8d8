package validate

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// gatewayHTTPRouteTargetSince is the Linkerd release from which an
// AuthorizationPolicy may target a Gateway API HTTPRoute (linkerd/linkerd2#13962):
// version-2.18's admission took a Server, a policy.linkerd.io HTTPRoute, a Gateway API
// GRPCRoute or the Namespace only.
const gatewayHTTPRouteTargetSince = api.LinkerdV219

// lkAuthorizationPolicy applies Linkerd's admission rules: the target is a Server, an
// HTTPRoute (a Gateway API one from version-2.19), a GRPCRoute or the policy's own Namespace; at most one authentication
// of each kind, and not a MeshTLSAuthentication with a ServiceAccount.
func (v *validator) lkAuthorizationPolicy(s *api.AuthorizationPolicySpec, raw map[string]any, p *field.Path) {
	tp := p.Child("targetRef")
	if t := s.TargetRef; t == nil {
		v.err(field.Required(tp, "set targetRef: a Server, an HTTPRoute, a Gateway API GRPCRoute or this policy's Namespace"), CodeLinkerdPolicyTarget)
	} else {
		switch {
		case refIs(t.Group, t.Kind, api.GatewayGroup, api.KindHTTPRoute) && api.LinkerdBefore(v.s.LinkerdVersion, gatewayHTTPRouteTargetSince):
			v.err(field.Invalid(tp.Child("group"), t.Group, fmt.Sprintf("Linkerd %s does not take a Gateway API HTTPRoute as an AuthorizationPolicy target "+
				"(version-2.19 does, linkerd/linkerd2#13962): target its parent Server, a policy.linkerd.io HTTPRoute or a Gateway API GRPCRoute",
				v.s.LinkerdVersion)), CodeLinkerdPolicyTarget)
		case refIs(t.Group, t.Kind, api.LinkerdGroup, api.KindServer),
			refIs(t.Group, t.Kind, api.LinkerdGroup, api.KindHTTPRoute), refIs(t.Group, t.Kind, api.GatewayGroup, api.KindHTTPRoute),
			refIs(t.Group, t.Kind, api.GatewayGroup, api.KindGRPCRoute):
		case refIs(t.Group, t.Kind, "", api.KindNamespace):
			if v.ns != "" && t.Name != v.ns {
				v.err(field.Invalid(tp.Child("name"), t.Name,
					fmt.Sprintf("an AuthorizationPolicy may only target its own namespace; use %q or create the policy in %q", v.ns, t.Name)), CodeLinkerdPolicyTarget)
			}
		default:
			v.lkTargetGroupOrKind(t.Group, t.Kind, tp)
		}
	}
	rp := p.Child("requiredAuthenticationRefs")
	if _, ok := raw["requiredAuthenticationRefs"]; !ok {
		v.err(field.Required(rp, "list the required authentications ([] admits every client, unauthenticated included)"), CodeLinkerdAuthnRefs)
	}
	var mtls, sa, net int
	for i, r := range s.RequiredAuthenticationRefs {
		ip := rp.Index(i)
		switch {
		case refIs(r.Group, r.Kind, api.LinkerdGroup, api.KindMeshTLSAuthentication):
			mtls++
			if mtls > 1 {
				v.err(field.Duplicate(ip, r.Name), CodeLinkerdAuthnRefs)
				v.res.Errors[len(v.res.Errors)-1].Detail = "only a single MeshTLSAuthentication may be set; merge their identities into one"
			} else if sa > 0 {
				v.err(field.Invalid(ip.Child("kind"), r.Kind, "a MeshTLSAuthentication and a ServiceAccount may not be set together; list the ServiceAccount in the MeshTLSAuthentication's identityRefs"), CodeLinkerdAuthnRefs)
			}
		case refIs(r.Group, r.Kind, "", api.KindServiceAccount):
			sa++
			if sa > 1 {
				v.err(field.Duplicate(ip, r.Name), CodeLinkerdAuthnRefs)
				v.res.Errors[len(v.res.Errors)-1].Detail = "only a single ServiceAccount may be set; use a MeshTLSAuthentication with identityRefs for several"
			} else if mtls > 0 {
				v.err(field.Invalid(ip.Child("kind"), r.Kind, "a MeshTLSAuthentication and a ServiceAccount may not be set together; list the ServiceAccount in the MeshTLSAuthentication's identityRefs"), CodeLinkerdAuthnRefs)
			}
		case refIs(r.Group, r.Kind, api.LinkerdGroup, api.KindNetworkAuthentication):
			net++
			if net > 1 {
				v.err(field.Duplicate(ip, r.Name), CodeLinkerdAuthnRefs)
				v.res.Errors[len(v.res.Errors)-1].Detail = "only a single NetworkAuthentication may be set; merge their networks into one"
			}
		default:
			v.err(field.Invalid(ip.Child("kind"), canonicalKind(r.Group, r.Kind),
				"unsupported authentication kind; use MeshTLSAuthentication or NetworkAuthentication (group policy.linkerd.io) or ServiceAccount (no group)"), CodeLinkerdAuthnRefs)
		}
	}
}

func canonicalKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

// lkNetworks checks CIDRs the way Linkerd's admission does: every except lies inside
// its cidr and does not cover it whole (that would admit no one).
func (v *validator) lkNetworks(nets []api.Network, p *field.Path) {
	for i, n := range nets {
		np := p.Index(i)
		cidr, ok := parseNet(n.Cidr)
		if !ok {
			v.err(field.Invalid(np.Child("cidr"), n.Cidr, "not a CIDR; write an address with a prefix length, e.g. 10.0.0.0/8 or fd00::/8"), CodeLinkerdNetwork)
			continue
		}
		for j, e := range n.Except {
			ep := np.Child("except").Index(j)
			ex, ok := parseNet(e)
			switch {
			case !ok:
				v.err(field.Invalid(ep, e, "not a CIDR; write an address with a prefix length, e.g. 10.0.1.0/24"), CodeLinkerdNetwork)
			case ex.Bits() <= cidr.Bits() && ex.Contains(cidr.Addr()):
				v.err(field.Invalid(ep, e, fmt.Sprintf("cidr %q is completely negated by this exception; narrow the exception or drop the network", n.Cidr)), CodeLinkerdNetwork)
			case ex.Bits() < cidr.Bits() || !cidr.Contains(ex.Addr()):
				v.err(field.Invalid(ep, e, fmt.Sprintf("cidr %q does not include this exception; an exception must lie inside its cidr", n.Cidr)), CodeLinkerdNetwork)
			}
		}
	}
}

// parseNet parses a CIDR (or a bare address, a single-host network) and masks host bits.
func parseNet(s string) (netip.Prefix, bool) {
	if pr, err := netip.ParsePrefix(s); err == nil {
		return pr.Masked(), true
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// dnsLikeIdentity is Linkerd's DNS_LIKE_IDENTITY_REGEX: lowercase DNS labels, the
// first of which may be a `*` glob.
var dnsLikeIdentity = regexp.MustCompile(`^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// lkIdentities checks client identities as Linkerd's validation.rs does.
func (v *validator) lkIdentities(ids []string, p *field.Path) {
	for i, id := range ids {
		if msg := linkerdIdentityError(id); msg != "" {
			v.err(field.Invalid(p.Index(i), id, msg), CodeLinkerdIdentity)
		}
	}
}

func linkerdIdentityError(id string) string {
	rest, ok := strings.CutPrefix(id, "spiffe://")
	if !ok {
		if dnsLikeIdentity.MatchString(id) {
			return ""
		}
		return "an identity is a SPIFFE ID (spiffe://trust.domain/path) or a DNS-like name such as web.prod.serviceaccount.identity.linkerd.cluster.local, whose first label may be * (\"*\" alone admits every authenticated client)"
	}
	td, path, _ := strings.Cut(rest, "/")
	if td == "" {
		return "the SPIFFE ID has no trust domain"
	}
	if strings.Trim(td, "abcdefghijklmnopqrstuvwxyz0123456789-._") != "" {
		return "SPIFFE trust domain characters are limited to lowercase letters, numbers, dots, dashes and underscores"
	}
	if !strings.Contains(rest, "/") {
		return ""
	}
	for _, seg := range strings.Split(path, "/") {
		switch {
		case seg == "":
			return "a SPIFFE path has no empty segments and no trailing slash"
		case seg == "." || seg == "..":
			return "a SPIFFE path has no dot segments"
		case strings.Trim(seg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") != "":
			return "SPIFFE path characters are limited to letters, numbers, dots, dashes and underscores"
		}
	}
	return ""
}

// DefaultInboundPolicyAnnotation sets a namespace's or workload's default inbound
// policy in Linkerd (Linkerd's policy design, "Default behavior").
const DefaultInboundPolicyAnnotation = "config.linkerd.io/default-inbound-policy"

// annotationPaths are where an object of gvk carries pod annotations: the object
// itself, and for workloads their pod template (which is what the proxy injector
// reads). ok is false for kinds that carry neither a namespace's nor pods' defaults.
func annotationPaths(gvk schema.GroupVersionKind) (paths [][]string, ok bool) {
	if gvk == (schema.GroupVersionKind{Version: "v1", Kind: api.KindNamespace}) {
		return [][]string{{"metadata"}}, true
	}
	tmpl, ok := api.PodTemplatePathOf(gvk)
	switch {
	case !ok:
		return nil, false
	case tmpl == nil:
		return [][]string{{"metadata"}}, true
	}
	return [][]string{{"metadata"}, append(tmpl, "metadata")}, true
}

// InboundPolicyAnnotationKind reports whether objects of gvk may carry the
// config.linkerd.io/default-inbound-policy annotation that DefaultInboundPolicy
// checks (a Namespace, a Pod or a workload with a pod template).
func InboundPolicyAnnotationKind(gvk schema.GroupVersionKind) bool {
	_, ok := annotationPaths(gvk)
	return ok
}

// DefaultInboundPolicy checks the config.linkerd.io/default-inbound-policy annotation
// of a Namespace or workload (and its pod template). A value Linkerd does not know
// makes the proxy injector fall back to the cluster default: a silent widening or
// narrowing of access. These are not registry kinds (meshguard never mutates or
// otherwise validates core kinds), so both doors call it directly: the linter for
// every such document, the validating webhook for the requests its separate
// annotations.meshguard.io entry sends (only objects that carry the annotation).
func DefaultInboundPolicy(obj *unstructured.Unstructured) field.ErrorList {
	if obj == nil {
		return nil
	}
	gvk := obj.GroupVersionKind()
	paths, ok := annotationPaths(gvk)
	if !ok {
		return nil
	}
	var out field.ErrorList
	for _, path := range paths {
		raw, found, err := unstructured.NestedFieldNoCopy(obj.Object, append(path, "annotations")...)
		if err != nil || !found {
			continue
		}
		ann, _ := raw.(map[string]any)
		val, present := ann[DefaultInboundPolicyAnnotation]
		if !present {
			continue
		}
		fp := field.NewPath(path[0], path[1:]...).Child("annotations").Key(DefaultInboundPolicyAnnotation)
		s, isString := val.(string)
		if !isString || !contains(InboundPolicies, s) {
			e := field.NotSupported(fp, val, InboundPolicies).WithOrigin(CodeLinkerdInboundAnnotation)
			e.Detail = enumDetail("default inbound policy", fmt.Sprint(val), InboundPolicies)
			out = append(out, e)
		}
	}
	return out
}

// lkTargetGroupOrKind reports an AuthorizationPolicy target Linkerd refuses at the
// field that is wrong: the group when the kind is one Linkerd accepts in another
// group (a Server without group: policy.linkerd.io), else the kind.
func (v *validator) lkTargetGroupOrKind(group, kind string, tp *field.Path) {
	var groups []string
	for _, g := range []string{api.LinkerdGroup, api.GatewayGroup} {
		if refIs(g, kind, g, api.KindServer) || refIs(g, kind, g, api.KindHTTPRoute) ||
			(g == api.GatewayGroup && refIs(g, kind, g, api.KindGRPCRoute)) {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		v.err(field.Invalid(tp.Child("kind"), canonicalKind(group, kind),
			"target a Server or HTTPRoute (group policy.linkerd.io), an HTTPRoute or GRPCRoute (group gateway.networking.k8s.io) or this policy's Namespace (no group)"), CodeLinkerdPolicyTarget)
		return
	}
	want := "set group: " + strings.Join(groups, " or ")
	if group == "" {
		v.err(field.Required(tp.Child("group"), fmt.Sprintf("a %s target needs its group; %s", kind, want)), CodeLinkerdPolicyTarget)
		return
	}
	v.err(field.Invalid(tp.Child("group"), group, fmt.Sprintf("Linkerd has no %s in this group; %s", kind, want)), CodeLinkerdPolicyTarget)
}
