package validate

import (
	"fmt"
	"net"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// rfc1123SubdomainRE is the name rule of Kuma's identifiers (a lower-case RFC 1123
// subdomain).
var rfc1123SubdomainRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// dataplaneBackendKinds are the kinds an outbound or a reachable backend may name.
func dataplaneBackendKinds() []string {
	return []string{string(api.RefMeshExternalService), string(api.RefMeshMultiZoneService), string(api.RefMeshService)}
}

// dataplaneWithoutInboundsSince is the Kuma release whose Dataplane validator first
// accepts a proxy without inbounds (outbounds or zone listeners only) and inbounds
// without tags; under --kuma-version 2.13 both are refused, as Kuma 2.13 does.
const dataplaneWithoutInboundsSince = "2.14"

// dataplane applies Kuma's Dataplane validator: what each role (ordinary proxy,
// delegated gateway, builtin gateway) may define, the address, inbounds, outbounds,
// transparent proxying, probes, metrics and zone listeners.
func (v *validator) dataplane(s *api.DataplaneSpec, p *field.Path) {
	np := p.Child("networking")
	n := s.Networking
	if n == nil {
		v.err(field.Required(np, "a Dataplane needs networking (address and inbounds or a gateway)"), CodeDataplane)
		return
	}
	if n.Admin != nil {
		v.dataplaneAdmin(n, np.Child("admin", "port"))
	}
	kind := ""
	if n.Gateway != nil {
		var ok bool
		if kind, ok = api.DataplaneGatewayTypes().Name(n.Gateway.Type); !ok {
			v.err(field.NotSupported(np.Child("gateway", "type"), string(n.Gateway.Type), []string{"DELEGATED", "BUILTIN"}), CodeDataplane)
		}
	}
	forbid := func(p *field.Path, what string) {
		v.err(field.Forbidden(p, fmt.Sprintf("a %s gateway proxy has no %s; remove it", strings.ToLower(kind), what)), CodeDataplane)
	}
	switch kind {
	case "DELEGATED", "BUILTIN":
		if len(n.Inbound) > 0 {
			forbid(np.Child("inbound"), "inbounds")
		}
		if kind == "BUILTIN" && len(n.Outbound) > 0 {
			forbid(np.Child("outbound"), "outbounds")
		}
		if len(n.Listeners) > 0 {
			forbid(np.Child("listeners"), "zone listeners")
		}
		if kind == "BUILTIN" && s.Probes != nil {
			forbid(p.Child("probes"), "probes")
		}
		v.dataplaneGateway(n.Gateway, np.Child("gateway"))
		v.dataplaneNetworking(n, np)
		if kind == "DELEGATED" {
			v.dataplaneProbes(s.Probes, p.Child("probes"))
		}
	default:
		if len(n.Inbound) == 0 && api.KumaBefore(v.s.KumaVersion, dataplaneWithoutInboundsSince) {
			v.err(field.Required(np, fmt.Sprintf("has to contain at least one inbound interface or gateway (Kuma %s; Kuma %s accepts a Dataplane with outbounds or listeners only)",
				v.s.KumaVersion, dataplaneWithoutInboundsSince)), CodeDataplane)
		}
		v.dataplaneNetworking(n, np)
		v.dataplaneProbes(s.Probes, p.Child("probes"))
		if s.Metrics != nil {
			v.dataplaneMetrics(s.Metrics, p.Child("metrics"))
		}
		v.dataplaneListeners(n, np.Child("listeners"))
	}
}

// dataplaneAdmin checks that the Envoy admin port (on 127.0.0.1) is used by no
// inbound or outbound.
func (v *validator) dataplaneAdmin(n *api.DataplaneNetworking, p *field.Path) {
	port := n.Admin.Port
	loop := net.ParseIP("127.0.0.1")
	for _, in := range n.Inbound {
		dpIP, dpPort := in.Address, in.Port
		if dpIP == "" {
			dpIP = n.Address
		}
		wIP, wPort := in.ServiceAddress, in.ServicePort
		if wIP == "" {
			wIP = dpIP
		}
		if wPort == 0 {
			wPort = in.Port
		}
		if port == dpPort && overlaps(loop, dpIP) || port == wPort && overlaps(loop, wIP) {
			v.err(field.Invalid(p, port, "the admin port is used by an inbound; choose another admin port"), CodeDataplane)
			break
		}
	}
	for _, out := range n.Outbound {
		ip := out.Address
		if ip == "" {
			ip = "127.0.0.1"
		}
		if port == out.Port && overlaps(loop, ip) {
			v.err(field.Invalid(p, port, "the admin port is used by an outbound; choose another admin port"), CodeDataplane)
			break
		}
	}
}

// overlaps is Kuma's address overlap: equal, or either the wildcard address.
func overlaps(a net.IP, s string) bool {
	b := net.ParseIP(s)
	return a.IsUnspecified() || b.IsUnspecified() || a.Equal(b)
}

// dataplaneAddress checks a proxy or listener address: set, not a wildcard, an IP
// or a DNS name.
func (v *validator) dataplaneAddress(addr string, p *field.Path) {
	switch {
	case addr == "":
		v.err(field.Required(p, "set the proxy's address (an IP or a DNS name other zones and proxies reach it at)"), CodeDataplane)
		return
	case addr == "0.0.0.0" || addr == "::":
		v.err(field.Invalid(p, addr, "a wildcard is no address to reach the proxy at; give its IP or DNS name"), CodeDataplane)
	}
	if !isIP(addr) && !isDNSName(addr) {
		v.err(field.Invalid(p, addr, "must be an IP address or a DNS name"), CodeDataplane)
	}
}

// dataplanePort checks a port as Kuma does: 1-65535.
func (v *validator) dataplanePort(port uint32, p *field.Path) {
	if port == 0 || port > 65535 {
		v.err(field.Invalid(p, port, "a port is in 1-65535"), CodeDataplane)
	}
}

// dataplaneNetworking checks the address, every inbound and outbound, and the
// transparent proxying's reachable backends.
func (v *validator) dataplaneNetworking(n *api.DataplaneNetworking, p *field.Path) {
	v.dataplaneAddress(n.Address, p.Child("address"))
	for i, in := range n.Inbound {
		ip := p.Child("inbound").Index(i)
		v.dataplaneInbound(in, n.Address, ip)
		// Kuma 2.14 asks for kuma.io/service only of an inbound with tags (inbounds
		// without tags are its new setup); older releases ask it of every inbound.
		if _, ok := in.Tags["kuma.io/service"]; (len(in.Tags) > 0 || api.KumaBefore(v.s.KumaVersion, dataplaneWithoutInboundsSince)) && !ok {
			v.err(field.Required(ip.Child("tags").Key("kuma.io/service"), "an inbound with tags names its service with kuma.io/service"), CodeDataplane)
		}
	}
	for i, out := range n.Outbound {
		v.dataplaneOutbound(out, p.Child("outbound").Index(i))
	}
	if tp := n.TransparentProxying; tp != nil {
		v.protoEnum(tp.IPFamilyMode, api.DataplaneIPFamilyModes(), p.Child("transparentProxying", "ipFamilyMode"))
	}
	if tp := n.TransparentProxying; tp != nil && tp.ReachableBackends != nil {
		rp := p.Child("transparentProxying", "reachableBackends", "refs")
		for i, r := range tp.ReachableBackends.Refs {
			v.dataplaneReachable(r, rp.Index(i))
		}
	}
}
