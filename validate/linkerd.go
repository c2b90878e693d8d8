package validate

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// Enumerations Linkerd's proxy and policy controller accept. An unknown value makes
// the policy controller fail to index the object, which then silently has no effect.
var (
	proxyProtocols = []string{"unknown", "opaque", "TLS", "HTTP/1", "HTTP/2", "gRPC"}
	// InboundPolicies are the default inbound policies (Server accessPolicy and the
	// config.linkerd.io/default-inbound-policy annotation).
	InboundPolicies = []string{"all-unauthenticated", "all-authenticated", "cluster-unauthenticated",
		"cluster-authenticated", "deny", "audit"}
)

// linkerdSpec runs the structural check (silent when Linkerd's CRD answered) and then
// Linkerd's own admission rules (and the ones its policy index applies) on the typed
// spec.
func (v *validator) linkerdSpec(obj *unstructured.Unstructured) {
	raw := obj.Object["spec"]
	if v.kind.Deprecated != "" && v.deprecatedHere(obj) {
		v.warn(field.Invalid(field.NewPath("apiVersion"), v.kind.Group+"/"+v.kind.Version,
			fmt.Sprintf("%s/%s %s is deprecated; use %s (the API server converts it, but new fields are only in the newer version)",
				v.kind.Group, v.kind.Version, v.kind.Kind, v.kind.Deprecated)), CodeLinkerdDeprecated)
	}
	p := field.NewPath("spec")
	if raw == nil {
		v.err(field.Required(p, "a "+v.kind.Kind+" needs a spec"), CodeSpecShape)
		return
	}
	spec, ok := raw.(map[string]any)
	if !ok {
		v.err(field.TypeInvalid(p, api.TypeName(raw), "spec must be an object"), api.CodeWrongType)
		return
	}
	typed, ok := v.decodeSpec(spec, p)
	if !ok {
		return
	}
	v.res.Spec = typed
	v.spec = spec
	v.runKindRules(typed, p)
}

// deprecatedHere reports whether the release the settings select deprecates obj's
// version: Linkerd's own kinds in every release, a Gateway API route version only
// in the bundles whose CRD says so (TLSRoute v1alpha2 is deprecated in v1.5, not in
// v1.4).
func (v *validator) deprecatedHere(obj *unstructured.Unstructured) bool {
	if v.kind.Group != api.GatewayGroup || v.s.Schemas == nil {
		return true
	}
	return v.s.Schemas.Deprecation(obj.GroupVersionKind()) != ""
}

// lkNetworkAuthentication checks a NetworkAuthentication's networks.
func (v *validator) lkNetworkAuthentication(s *api.NetworkAuthenticationSpec, p *field.Path) {
	if len(s.Networks) == 0 {
		v.err(field.Required(p.Child("networks"), "list at least one network (cidr, optional except); Linkerd rejects a NetworkAuthentication without networks"), CodeLinkerdNetworksEmpty)
	}
	v.lkNetworks(s.Networks, p.Child("networks"))
}

// lkServer checks a Server of any version; hasExt says whether the version has
// externalWorkloadSelector (v1beta2 and later).
func (v *validator) lkServer(pod, ext *api.LabelSelector, hasExt bool, port any, proto, access string, p *field.Path) {
	switch {
	case pod != nil && ext != nil:
		v.err(field.Invalid(p.Child("externalWorkloadSelector"), "both selectors",
			"set exactly one of podSelector and externalWorkloadSelector; a Server selects pods or external workloads, not both"), CodeLinkerdServerSelector)
	case pod == nil && ext == nil && hasExt:
		v.err(field.Required(p.Child("podSelector"),
			"set exactly one of podSelector and externalWorkloadSelector ({} selects every pod in the namespace)"), CodeLinkerdServerSelector)
	case pod == nil && ext == nil:
		v.err(field.Required(p.Child("podSelector"), "set podSelector ({} selects every pod in the namespace)"), CodeLinkerdServerSelector)
	}
	v.lkSelector(pod, p.Child("podSelector"))
	v.lkSelector(ext, p.Child("externalWorkloadSelector"))
	v.lkPort(port, p.Child("port"))
	if proto != "" && !contains(proxyProtocols, proto) {
		v.err(field.NotSupported(p.Child("proxyProtocol"), proto, proxyProtocols), CodeLinkerdProxyProtocol)
		v.res.Errors[len(v.res.Errors)-1].Detail = enumDetail("proxyProtocol", proto, proxyProtocols)
	}
	if access != "" && !contains(InboundPolicies, access) {
		v.err(field.NotSupported(p.Child("accessPolicy"), access, InboundPolicies), CodeLinkerdAccessPolicy)
		v.res.Errors[len(v.res.Errors)-1].Detail = enumDetail("accessPolicy", access, InboundPolicies)
	}
}

// lkPort checks a Server port: a number in 1-65535 or an IANA_SVC_NAME port name that
// a container port could have (Linkerd's Port is NonZeroU16 or a string).
func (v *validator) lkPort(port any, p *field.Path) {
	switch x := port.(type) {
	case nil:
		v.err(field.Required(p, "set the port number or the container port name the Server describes"), CodeLinkerdPort)
	case string:
		if msgs := validation.IsValidPortName(x); len(msgs) > 0 {
			v.err(field.Invalid(p, x, "not a valid port name ("+strings.Join(msgs, "; ")+"); use a container port's name or a number"), CodeLinkerdPort)
		}
	case int64, float64:
		n, _ := x.(int64)
		if f, ok := x.(float64); ok {
			n = int64(f)
			if float64(n) != f {
				n = 0
			}
		}
		if n < 1 || n > 65535 {
			v.err(field.Invalid(p, port, "a port number must be an integer from 1 to 65535"), CodeLinkerdPort)
		}
	default:
		v.err(field.TypeInvalid(p, api.TypeName(port), "port must be a number or a port name, not "+api.TypeName(port)), api.CodeWrongType)
	}
}

// lkSelector validates a label selector as Kubernetes does (operators, values rules,
// label syntax); Linkerd indexes selectors with the same semantics.
func (v *validator) lkSelector(s *api.LabelSelector, p *field.Path) {
	if s == nil {
		return
	}
	ls := &metav1.LabelSelector{MatchLabels: s.MatchLabels}
	for _, e := range s.MatchExpressions {
		ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key, Operator: metav1.LabelSelectorOperator(e.Operator), Values: e.Values})
	}
	for _, e := range metav1validation.ValidateLabelSelector(ls, metav1validation.LabelSelectorValidationOptions{}, p) {
		v.err(e, CodeLinkerdSelector)
	}
}

func (v *validator) lkServerAuthorization(s *api.ServerAuthorizationSpec, p *field.Path) {
	sp := p.Child("server")
	switch {
	case s.Server == nil:
		v.err(field.Required(sp, "set server.name or server.selector: the Servers this authorization applies to"), CodeLinkerdServerRef)
	case s.Server.Name != "" && s.Server.Selector != nil:
		v.err(field.Invalid(sp, "name and selector", "set server.name or server.selector, not both"), CodeLinkerdServerRef)
	case s.Server.Name == "" && s.Server.Selector == nil:
		v.err(field.Required(sp, "set server.name or server.selector: the Servers this authorization applies to"), CodeLinkerdServerRef)
	default:
		v.lkSelector(s.Server.Selector, sp.Child("selector"))
	}
	cp := p.Child("client")
	c := s.Client
	if c == nil {
		v.err(field.Required(cp, "set client.meshTLS (authenticated clients) or client.unauthenticated: true"), CodeLinkerdClient)
		return
	}
	switch {
	case c.MeshTLS != nil && c.Unauthenticated:
		v.err(field.Invalid(cp.Child("unauthenticated"), true,
			"unauthenticated must be false when meshTLS is set; use two ServerAuthorizations to admit both"), CodeLinkerdClient)
	case c.MeshTLS == nil && !c.Unauthenticated:
		v.err(field.Required(cp.Child("meshTLS"),
			"set client.meshTLS or client.unauthenticated: true; Linkerd cannot index an authorization that admits no client"), CodeLinkerdClient)
	}
	if m := c.MeshTLS; m != nil {
		if m.UnauthenticatedTLS && len(m.Identities)+len(m.ServiceAccounts) > 0 {
			v.err(field.Invalid(cp.Child("meshTLS", "unauthenticatedTLS"), true,
				"unauthenticatedTLS must be false when identities or serviceAccounts are set; drop it or the identity lists"), CodeLinkerdUnauthTLS)
		}
		v.lkIdentities(m.Identities, cp.Child("meshTLS", "identities"))
		for i, sa := range m.ServiceAccounts {
			if sa.Name == "" {
				v.err(field.Required(cp.Child("meshTLS", "serviceAccounts").Index(i).Child("name"), "name the ServiceAccount"), CodeLinkerdClient)
			}
		}
	}
	v.lkNetworks(c.Networks, cp.Child("networks"))
}

func (v *validator) lkMeshTLSAuthentication(s *api.MeshTLSAuthenticationSpec, p *field.Path) {
	switch {
	case len(s.Identities) > 0 && len(s.IdentityRefs) > 0:
		v.err(field.Invalid(p.Child("identityRefs"), "identities and identityRefs",
			"set identities or identityRefs, not both; use two MeshTLSAuthentications"), CodeLinkerdMeshTLSAuthn)
	case len(s.Identities) == 0 && len(s.IdentityRefs) == 0:
		v.err(field.Required(p.Child("identities"), "set identities (e.g. \"*\" or SPIFFE IDs) or identityRefs (ServiceAccounts or Namespaces)"), CodeLinkerdMeshTLSAuthn)
	}
	v.lkIdentities(s.Identities, p.Child("identities"))
	for i, r := range s.IdentityRefs {
		rp := p.Child("identityRefs").Index(i)
		switch {
		case refIs(r.Group, r.Kind, "", api.KindServiceAccount):
		case refIs(r.Group, r.Kind, "", api.KindNamespace):
			if r.Namespace != "" {
				v.err(field.Forbidden(rp.Child("namespace"), "a Namespace is cluster-scoped; drop namespace and name the namespace in name"), CodeLinkerdMeshTLSAuthn)
			}
		default:
			v.err(field.NotSupported(rp.Child("kind"), r.Kind, []string{api.KindServiceAccount, api.KindNamespace}), CodeLinkerdMeshTLSAuthn)
		}
	}
}

// refIs reports whether group/kind names group/want the way Linkerd compares them:
// case-insensitively, with no group (or "core") meaning the core group.
func refIs(group, kind, wantGroup, want string) bool {
	if group == "" || strings.EqualFold(group, "core") {
		group = ""
	}
	return strings.EqualFold(group, wantGroup) && strings.EqualFold(kind, want)
}

// enumDetail names the allowed values and, for a case slip, the intended one.
func enumDetail(name, got string, allowed []string) string {
	for _, a := range allowed {
		if strings.EqualFold(a, got) {
			return fmt.Sprintf("unknown %s %q: did you mean %q? (values are case-sensitive)", name, got, a)
		}
	}
	return fmt.Sprintf("unknown %s %q; use one of %s", name, got, strings.Join(allowed, ", "))
}
