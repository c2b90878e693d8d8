package validate

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// kumaProtocols are the protocols Kuma knows (kuma.io/protocol, an inbound's
// protocol), compared case-insensitively.
func kumaProtocols() []string {
	return []string{"http", "http2", "tcp", "tls", "grpc", "kafka", "mysql"}
}

// dataplaneInbound checks one inbound: ports, IP addresses that differ from the
// application's, tags, protocol and the service probe.
func (v *validator) dataplaneInbound(in api.DataplaneInbound, dpAddr string, p *field.Path) {
	v.dataplanePort(in.Port, p.Child("port"))
	v.protoEnum(in.State, api.DataplaneInboundStates(), p.Child("state"))
	if in.ServicePort != 0 {
		v.dataplanePort(in.ServicePort, p.Child("servicePort"))
	}
	sameAsApp := func() {
		if in.ServicePort == 0 || in.ServicePort == in.Port {
			v.err(field.Invalid(p.Child("serviceAddress"), in.ServiceAddress,
				"the application's address and port must differ from the proxy's; set servicePort or another serviceAddress"), CodeDataplane)
		}
	}
	if in.ServiceAddress != "" {
		if net.ParseIP(in.ServiceAddress) == nil {
			v.err(field.Invalid(p.Child("serviceAddress"), in.ServiceAddress, "must be an IP address"), CodeDataplane)
		}
		if in.ServiceAddress == dpAddr {
			sameAsApp()
		}
	}
	if in.Address != "" {
		if net.ParseIP(in.Address) == nil {
			v.err(field.Invalid(p.Child("address"), in.Address, "must be an IP address"), CodeDataplane)
		}
		if in.Address == in.ServiceAddress {
			sameAsApp()
		}
	}
	tp := p.Child("tags")
	if proto, ok := in.Tags["kuma.io/protocol"]; ok && !slices.Contains(kumaProtocols(), strings.ToLower(proto)) {
		v.err(field.NotSupported(tp.Key("kuma.io/protocol"), proto, kumaProtocols()), CodeDataplane)
	}
	v.dataplaneTags(in.Tags, tp, false)
	if in.Protocol != "" && !slices.Contains(kumaProtocols(), strings.ToLower(in.Protocol)) {
		v.err(field.NotSupported(p.Child("protocol"), in.Protocol, kumaProtocols()), CodeDataplane)
	}
	if sp := in.ServiceProbe; sp != nil {
		pp := p.Child("serviceProbe")
		for _, d := range []struct {
			name string
			val  *string
		}{{"interval", sp.Interval}, {"timeout", sp.Timeout}} {
			if d.val != nil {
				v.dataplaneDuration(*d.val, pp.Child(d.name))
			}
		}
		for _, t := range []struct {
			name string
			val  *uint32
		}{{"unhealthyThreshold", sp.UnhealthyThreshold}, {"healthyThreshold", sp.HealthyThreshold}} {
			if t.val != nil && *t.val == 0 {
				v.err(field.Invalid(pp.Child(t.name), 0, "a threshold is a positive number of checks"), CodeDataplane)
			}
		}
	}
}

// dataplaneDuration checks a google.protobuf.Duration in its JSON form ("10s",
// "0.5s"): Kuma cannot decode another form, and refuses a zero duration.
func (v *validator) dataplaneDuration(s string, p *field.Path) {
	num := strings.TrimPrefix(strings.TrimSuffix(s, "s"), "-")
	whole, frac, dotted := strings.Cut(num, ".")
	good := strings.HasSuffix(s, "s") && whole != "" && strings.Trim(whole, "0123456789") == "" &&
		(!dotted || frac != "" && len(frac) <= 9 && strings.Trim(frac, "0123456789") == "")
	switch {
	case !good:
		v.err(field.Invalid(p, s, "Kuma reads this duration as seconds with an \"s\" suffix (e.g. 10s or 0.5s, not 1m)"), CodeDataplane)
	case strings.Trim(whole+frac, "0") == "":
		v.err(field.Invalid(p, s, "must be a positive duration"), CodeDataplane)
	}
}

// dataplaneTags checks tags with Kuma's tag rules (values without '/'); service
// requires kuma.io/service among them.
func (v *validator) dataplaneTags(tags map[string]string, p *field.Path, service bool) {
	for _, k := range sortedKeys(tags) {
		val := tags[k]
		if k == "" {
			v.err(field.Invalid(p, k, "a tag name must not be empty"), CodeDataplane)
		}
		if !tagChars(k, true) {
			v.err(field.Invalid(p.Key(k), k, "a tag name may only contain letters, digits, '.', '-', '_', ':' and '/'"), CodeDataplane)
		}
		if val == "" {
			v.err(field.Invalid(p.Key(k), val, "a tag value must not be empty"), CodeDataplane)
		} else if !tagChars(val, false) {
			v.err(field.Invalid(p.Key(k), val, "a tag value may only contain letters, digits, '.', '-', '_' and ':'"), CodeDataplane)
		}
	}
	if _, ok := tags["kuma.io/service"]; service && !ok {
		v.err(field.Required(p.Key("kuma.io/service"), "name the service with the kuma.io/service tag"), CodeDataplane)
	}
}

// dataplaneOutbound checks one outbound: port, IP, and a service named by tags or by
// a backendRef (not both).
func (v *validator) dataplaneOutbound(out api.DataplaneOutbound, p *field.Path) {
	v.dataplanePort(out.Port, p.Child("port"))
	if out.Address != "" && net.ParseIP(out.Address) == nil {
		v.err(field.Invalid(p.Child("address"), out.Address, "must be an IP address"), CodeDataplane)
	}
	bp := p.Child("backendRef")
	switch r := out.BackendRef; {
	case r != nil:
		if !slices.Contains(dataplaneBackendKinds(), r.Kind) {
			v.err(field.NotSupported(bp.Child("kind"), r.Kind, dataplaneBackendKinds()), CodeDataplane)
		}
		if r.Name == "" && len(r.Labels) == 0 {
			v.err(field.Required(bp, "name the backend or select it by labels"), CodeDataplane)
		}
		if r.Kind != string(api.RefMeshExternalService) {
			v.dataplanePort(r.Port, bp.Child("port"))
		}
		if len(out.Tags) > 0 {
			v.err(field.Forbidden(bp, "an outbound names its service by backendRef or by tags, not both; remove the tags"), CodeDataplane)
		}
	case len(out.Tags) == 0:
		v.err(field.Required(p.Child("tags").Key("kuma.io/service"), "name the service with a kuma.io/service tag or a backendRef"), CodeDataplane)
	default:
		v.dataplaneTags(out.Tags, p.Child("tags"), true)
	}
}

// dataplaneReachable checks a reachable backend: a known kind, and a valid name
// (with an optional namespace) or labels, not both.
func (v *validator) dataplaneReachable(r api.DataplaneReachableRef, p *field.Path) {
	if !slices.Contains(dataplaneBackendKinds(), r.Kind) {
		v.err(field.NotSupported(p.Child("kind"), r.Kind, dataplaneBackendKinds()), CodeDataplane)
	}
	np := p.Child("name")
	switch {
	case r.Name != "" && len(r.Name) > 253:
		v.err(field.TooLong(np, "", 253), CodeDataplane)
	case r.Name != "" && !rfc1123SubdomainRE.MatchString(r.Name):
		v.err(field.Invalid(np, r.Name, "must be a lower-case RFC 1123 subdomain (letters, digits, '-' and '.')"), CodeDataplane)
	case r.Name == "" && r.Namespace == "" && len(r.Labels) == 0:
		v.err(field.Required(np, "name the backend or select it by labels"), CodeDataplane)
	case r.Name == "" && r.Namespace != "":
		v.err(field.Required(np, "a namespace needs a name beside it"), CodeDataplane)
	}
	if (r.Name != "" || r.Namespace != "") && len(r.Labels) > 0 {
		v.err(field.Forbidden(p.Child("labels"), "select the backend by name or by labels, not both"), CodeDataplane)
	}
}

// dataplaneGateway checks a gateway proxy's tags: valid, with kuma.io/service when
// there are any, and kuma.io/protocol only tcp.
func (v *validator) dataplaneGateway(g *api.DataplaneGateway, p *field.Path) {
	tp := p.Child("tags")
	if proto, ok := g.Tags["kuma.io/protocol"]; ok && strings.ToLower(proto) != "tcp" {
		v.err(field.NotSupported(tp.Key("kuma.io/protocol"), proto, []string{"tcp"}), CodeDataplane)
	}
	v.dataplaneTags(g.Tags, tp, len(g.Tags) > 0)
}

// dataplaneProbes checks the virtual probes endpoint: a port, and endpoints with
// ports and URL paths.
func (v *validator) dataplaneProbes(pr *api.DataplaneProbes, p *field.Path) {
	if pr == nil {
		return
	}
	v.dataplanePort(pr.Port, p.Child("port"))
	for i, e := range pr.Endpoints {
		ep := p.Child("endpoints").Index(i)
		v.dataplanePort(e.InboundPort, ep.Child("inboundPort"))
		if _, err := url.ParseRequestURI(e.InboundPath); err != nil {
			v.err(field.Invalid(ep.Child("inboundPath"), e.InboundPath, "must be a URL path such as /healthz"), CodeDataplane)
		}
		if _, err := url.ParseRequestURI(e.Path); err != nil {
			v.err(field.Invalid(ep.Child("path"), e.Path, "must be a URL path such as /healthz"), CodeDataplane)
		}
	}
}

// dataplaneMetrics checks the proxy's own metrics backend: type prometheus with a
// conf Kuma accepts (the Mesh's prometheus rules).
func (v *validator) dataplaneMetrics(m *api.MeshMetricsBackend, p *field.Path) {
	if m.Type != "prometheus" {
		v.err(field.NotSupported(p.Child("type"), m.Type, []string{"prometheus"}), CodeDataplane)
		return
	}
	from := len(v.res.Errors)
	v.prometheus(m.Conf, p.Child("conf"))
	for i := from; i < len(v.res.Errors); i++ {
		v.res.Errors[i].Origin = CodeDataplane // the Mesh's rule, found on a Dataplane
	}
}

// dataplaneListeners checks the zone ingress/egress listeners: a type, an address
// and port no other listener or inbound uses, names unique across inbounds.
func (v *validator) dataplaneListeners(n *api.DataplaneNetworking, p *field.Path) {
	names := map[string]bool{}
	for _, in := range n.Inbound {
		name := in.Name
		if name == "" {
			name = strconv.Itoa(int(in.Port))
		}
		names[name] = true
	}
	types := map[string]string{}
	for i, l := range n.Listeners {
		lp := p.Index(i)
		typ, _ := api.DataplaneListenerTypes().Name(l.Type)
		if typ == "Unspecified" || typ == "" {
			v.err(field.NotSupported(lp.Child("type"), string(l.Type), api.DataplaneListenerTypes()[1:]), CodeDataplane)
		}
		v.dataplaneAddress(l.Address, lp.Child("address"))
		v.dataplanePort(l.Port, lp.Child("port"))
		v.protoEnum(l.State, api.DataplaneListenerStates(), lp.Child("state"))
		if l.Name != "" {
			if names[l.Name] {
				v.err(field.Duplicate(lp.Child("name"), l.Name), CodeDataplane)
			}
			names[l.Name] = true
		}
		key := fmt.Sprintf("%s:%d", l.Address, l.Port)
		if prev, used := types[key]; used {
			msg := "another listener uses this address and port"
			if prev != typ {
				msg = "a listener of another type uses this address and port"
			}
			v.err(field.Invalid(lp, key, msg), CodeDataplane)
		} else {
			types[key] = typ
		}
		for _, in := range n.Inbound {
			addr := in.Address
			if addr == "" {
				addr = n.Address
			}
			if fmt.Sprintf("%s:%d", addr, in.Port) == key {
				v.err(field.Invalid(lp, key, "an inbound uses this address and port"), CodeDataplane)
				break
			}
		}
	}
}

// protoEnum reports an enum name Kuma's decoder does not know (it refuses the object).
func (v *validator) protoEnum(e api.ProtoEnum, names api.ProtoEnumNames, p *field.Path) {
	if _, ok := names.Name(e); !ok {
		v.err(field.NotSupported(p, string(e), names), CodeDataplane)
	}
}
