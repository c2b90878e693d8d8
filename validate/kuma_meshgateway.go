package validate

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// proxyOwnedTag reports the tags a gateway's own and its listeners' tags must not set:
// they are properties of data plane proxies Kuma computes itself.
func proxyOwnedTag(k string) bool {
	switch k {
	case "kuma.io/external-service-name", "kuma.io/protocol", "kuma.io/service", "kuma.io/zone":
		return true
	}
	return false
}

// dnsDomainRE is Kuma's domain rule for gateway hostnames: dot-separated lower-case
// DNS labels.
var dnsDomainRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// meshGateway applies Kuma's MeshGateway validator: selectors that name a service,
// gateway tags that do not claim proxy properties, and listeners that Kuma can
// program side by side on one port.
func (v *validator) meshGateway(s *api.MeshGatewaySpec, p *field.Path) {
	crossMesh := false
	if s.Conf != nil {
		for _, l := range s.Conf.Listeners {
			crossMesh = crossMesh || l.CrossMesh
		}
	}
	v.kumaSelectors(s.Selectors, p.Child("selectors"), crossMesh, CodeMeshGateway)
	v.gatewayTags(s.Tags, p.Child("tags"), false, CodeMeshGateway)
	cp := p.Child("conf")
	if s.Conf == nil {
		v.err(field.Required(cp, "a gateway needs conf with at least one listener"), CodeMeshGateway)
		return
	}
	lp := cp.Child("listeners")
	if len(s.Conf.Listeners) == 0 {
		v.err(field.Required(lp, "list at least one listener (port and protocol)"), CodeMeshGateway)
	}
	for i, l := range s.Conf.Listeners {
		v.gatewayListener(l, lp.Index(i))
	}
	v.gatewayCollapsible(s.Conf.Listeners, lp)
}

// kumaSelectors checks the selectors of an old-style resource: at least one, each with
// tags naming a kuma.io/service; a cross-mesh gateway takes exactly one.
func (v *validator) kumaSelectors(sel []api.KumaSelector, p *field.Path, atMostOne bool, code string) {
	if len(sel) == 0 {
		v.err(field.Required(p, "list at least one selector of the gateway's proxies (match: {kuma.io/service: ...})"), code)
	}
	for i, s := range sel {
		v.gatewayTags(s.Match, p.Index(i).Child("match"), true, code)
		if i > 0 && atMostOne {
			v.err(field.Forbidden(p.Index(i), "a cross-mesh gateway takes exactly one selector; remove this one"), code)
		}
	}
}

// gatewayTags checks a tag selector as Kuma's ValidateSelector does. selector: the
// tags pick proxies, so there is at least one and kuma.io/service is among them;
// otherwise the tags describe the gateway and must not set the proxy tags Kuma owns.
func (v *validator) gatewayTags(tags map[string]string, p *field.Path, selector bool, code string) {
	if selector && len(tags) == 0 {
		v.err(field.Required(p, "list at least one tag, among them kuma.io/service"), code)
	}
	for _, k := range sortedKeys(tags) {
		val := tags[k]
		if k == "" {
			v.err(field.Invalid(p, k, "a tag name must not be empty"), code)
		}
		if !tagChars(k, true) {
			v.err(field.Invalid(p.Key(k), k, "a tag name may only contain letters, digits, '.', '-', '_', ':' and '/'"), code)
		}
		if !selector && proxyOwnedTag(k) {
			v.err(field.Forbidden(p.Key(k), fmt.Sprintf("the tag %q is a property of the gateway's proxies that Kuma sets itself; remove it", k)), code)
		}
		if val == "" {
			v.err(field.Invalid(p.Key(k), val, "a tag value must not be empty"), code)
		} else if val != "*" && !tagChars(val, true) {
			v.err(field.Invalid(p.Key(k), val, `a tag value may only contain letters, digits, '.', '-', '_', ':' and '/', or be "*"`), code)
		}
	}
	if _, ok := tags["kuma.io/service"]; selector && !ok && len(tags) > 0 {
		v.err(field.Required(p.Key("kuma.io/service"), "the selector must name the service with the kuma.io/service tag"), code)
	}
}

// gatewayListener checks one listener: hostname syntax, port, a protocol, and a TLS
// configuration that fits the protocol and cross-mesh use.
func (v *validator) gatewayListener(l api.MeshGatewayListener, p *field.Path) {
	if l.Hostname != "" {
		v.gatewayHostname(l.Hostname, p.Child("hostname"), CodeMeshGateway)
	}
	if l.Port == 0 || l.Port > 65535 {
		v.err(field.Invalid(p.Child("port"), l.Port, "a listener needs a port in 1-65535"), CodeMeshGateway)
	}
	proto, ok := api.MeshGatewayProtocols().Name(l.Protocol)
	if !ok {
		v.err(field.NotSupported(p.Child("protocol"), string(l.Protocol), []string{"HTTP", "HTTPS", "TCP", "TLS"}), CodeMeshGateway)
	}
	tp := p.Child("tls")
	switch proto {
	case "NONE":
		v.err(field.Required(p.Child("protocol"), "set the listener's protocol: HTTP, HTTPS, TCP or TLS"), CodeMeshGateway)
	case "HTTPS":
		mode, _ := api.MeshGatewayTLSModes().Name(modeOf(l.TLS))
		switch {
		case l.CrossMesh:
			v.err(field.Invalid(p.Child("protocol"), proto, "a cross-mesh listener cannot use HTTPS (cross-mesh traffic is already mTLS); use HTTP"), CodeMeshGateway)
		case l.TLS == nil:
			v.err(field.Required(tp, "an HTTPS listener needs tls with mode TERMINATE and a certificate"), CodeMeshGateway)
		case mode == "PASSTHROUGH":
			v.err(field.Invalid(tp.Child("mode"), mode, "an HTTPS listener terminates TLS; use mode TERMINATE, or protocol TLS to pass TLS through"), CodeMeshGateway)
		}
	}
	if l.TLS != nil {
		v.gatewayTLS(*l.TLS, l.CrossMesh, tp)
	}
	v.gatewayTags(l.Tags, p.Child("tags"), false, CodeMeshGateway)
}

func modeOf(t *api.MeshGatewayTLS) api.ProtoEnum {
	if t == nil {
		return ""
	}
	return t.Mode
}

// gatewayTLS checks a listener's TLS block: a mode, and for TERMINATE one or two
// certificates (RSA and/or ECDSA); a cross-mesh listener's TLS is the mesh's, so
// its block must be empty.
func (v *validator) gatewayTLS(t api.MeshGatewayTLS, crossMesh bool, p *field.Path) {
	mode, ok := api.MeshGatewayTLSModes().Name(t.Mode)
	if !ok {
		v.err(field.NotSupported(p.Child("mode"), string(t.Mode), []string{"TERMINATE", "PASSTHROUGH"}), CodeMeshGateway)
		return
	}
	if crossMesh {
		if mode != "NONE" || len(t.Certificates) > 0 {
			v.err(field.Forbidden(p, "a cross-mesh listener uses the mesh's mTLS; remove tls"), CodeMeshGateway)
		}
		return
	}
	switch {
	case mode == "NONE":
		v.err(field.Required(p.Child("mode"), "set the TLS mode: TERMINATE or PASSTHROUGH"), CodeMeshGateway)
	case mode == "TERMINATE" && len(t.Certificates) == 0:
		v.err(field.Required(p.Child("certificates"), "TLS termination needs a certificate (a secret, file or inline data source)"), CodeMeshGateway)
	case mode == "TERMINATE" && len(t.Certificates) > 2:
		v.err(field.TooMany(p.Child("certificates"), len(t.Certificates), 2), CodeMeshGateway)
	}
}

// gatewayHostname checks a gateway hostname as Kuma does: "*", "*.domain" or a
// lower-case domain of at most 253 characters.
func (v *validator) gatewayHostname(h string, p *field.Path, code string) {
	if h == "*" {
		return
	}
	if len(h) > 253 {
		v.err(field.TooLong(p, "", 253), code)
	}
	if rest, ok := strings.CutPrefix(h, "*."); ok {
		if !dnsDomainRE.MatchString(rest) {
			v.err(field.Invalid(p, h, "a wildcard hostname is '*.' followed by a lower-case domain name"), code)
		}
		return
	}
	if !dnsDomainRE.MatchString(h) {
		v.err(field.Invalid(p, h, "a hostname is '*', '*.domain' or a lower-case domain name (letters, digits, '-' and '.')"), code)
	}
}

// gatewayCollapsible checks that the listeners sharing a port can be served by one
// Envoy listener, as Kuma requires: one protocol per port, one listener per hostname
// and port (no hostname is "*"), and one connection limit per port.
func (v *validator) gatewayCollapsible(ls []api.MeshGatewayListener, p *field.Path) {
	type key struct {
		port uint32
		host string
	}
	protocols := map[uint32]map[api.ProtoEnum]bool{}
	hosts := map[key][]int{}
	limits := map[uint32]map[uint32]bool{}
	for i, l := range ls {
		if protocols[l.Port] == nil {
			protocols[l.Port] = map[api.ProtoEnum]bool{}
			limits[l.Port] = map[uint32]bool{}
		}
		name, _ := api.MeshGatewayProtocols().Name(l.Protocol)
		protocols[l.Port][api.ProtoEnum(name)] = true
		h := l.Hostname
		if h == "" {
			h = "*"
		}
		hosts[key{l.Port, h}] = append(hosts[key{l.Port, h}], i)
		if l.Resources != nil && l.Resources.ConnectionLimit != 0 {
			limits[l.Port][l.Resources.ConnectionLimit] = true
		}
	}
	for i, l := range ls {
		if len(protocols[l.Port]) > 1 {
			v.err(field.Invalid(p.Index(i).Child("protocol"), string(l.Protocol), fmt.Sprintf(
				"other listeners on port %d use another protocol; one port serves one protocol", l.Port)), CodeMeshGateway)
		}
		h := l.Hostname
		if h == "" {
			h = "*"
		}
		if len(hosts[key{l.Port, h}]) > 1 {
			v.err(field.Invalid(p.Index(i).Child("hostname"), h, fmt.Sprintf(
				"another listener on port %d has the same hostname (no hostname is \"*\"); merge them or give each its own hostname", l.Port)), CodeMeshGateway)
		}
		if len(limits[l.Port]) > 1 && l.Resources != nil && l.Resources.ConnectionLimit != 0 {
			v.err(field.Invalid(p.Index(i).Child("resources", "connectionLimit"), l.Resources.ConnectionLimit, fmt.Sprintf(
				"the listeners on port %d set different connection limits; Kuma programs one limit per port", l.Port)), CodeMeshGateway)
		}
	}
}
