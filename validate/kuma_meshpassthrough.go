package validate

import (
	"fmt"
	"net"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// passthroughDNSName is the host name form Kuma accepts for a Domain match (labels
// of letters, digits, '_' and '-', up to 63 characters, an optional trailing dot).
var passthroughDNSName = regexp.MustCompile(`^([a-zA-Z0-9_][a-zA-Z0-9_-]{0,62})(\.[a-zA-Z0-9_][a-zA-Z0-9_-]{0,62})*[._]?$`)

// passthroughL7 are the protocols that cannot share a port with another protocol.
func passthroughL7(proto string) bool {
	return proto == "grpc" || proto == "http" || proto == "http2"
}

// meshPassthrough is Kuma 2.14's meshpassthrough validator beyond the schema (which
// checks the type and protocol names): the value of each match for its type, the
// port rules and duplicates.
func (v *validator) meshPassthrough(s *api.MeshPassthroughSpec, p *field.Path) {
	if s.Default == nil || s.Default.AppendMatch == nil {
		return
	}
	mp := p.Child("default", "appendMatch")
	portProto := map[int64]string{}
	seen := map[string]bool{}
	for i, m := range *s.Default.AppendMatch {
		if m.Protocol == "" {
			m.Protocol = "tcp" // the CRD's default
		}
		v.passthroughPort(m, mp.Index(i), portProto, seen)
		v.passthroughValue(m, mp.Index(i))
	}
}

// passthroughPort checks the port of one match: required for mysql, in range, one
// L7 protocol per port, and no value twice on one port and protocol.
func (v *validator) passthroughPort(m api.PassthroughMatch, p *field.Path, portProto map[int64]string, seen map[string]bool) {
	const code = CodePassthroughConf
	pp := p.Child("port")
	if m.Protocol == "mysql" && m.Port == nil {
		v.err(field.Required(pp, "a mysql match needs a port"), code)
	}
	if m.Port == nil {
		return
	}
	port := *m.Port
	if port < 1 || port > 65535 {
		v.err(field.Invalid(pp, port, "must be a port from 1 to 65535"), code)
	}
	if prev, ok := portProto[port]; ok && prev != m.Protocol && passthroughL7(m.Protocol) {
		v.err(field.Invalid(pp, port, fmt.Sprintf("port %d is already used with protocol %s; matches on one port with protocol grpc, http or http2 must all use the same protocol", port, prev)), code)
	} else {
		portProto[port] = m.Protocol
	}
	key := fmt.Sprintf("%d/%s/%s", port, m.Protocol, m.Value)
	if seen[key] {
		v.err(field.Duplicate(p.Child("value"), m.Value), code)
	}
	seen[key] = true
}

// passthroughValue checks the value of one match against its type.
func (v *validator) passthroughValue(m api.PassthroughMatch, p *field.Path) {
	const code = CodePassthroughConf
	vp := p.Child("value")
	switch m.Type {
	case "CIDR":
		if _, _, err := net.ParseCIDR(m.Value); err != nil {
			v.err(field.Invalid(vp, m.Value, "is not a CIDR; write e.g. 10.0.0.0/8 or fd00::/8"), code)
		}
	case "IP":
		if net.ParseIP(m.Value) == nil {
			v.err(field.Invalid(vp, m.Value, "is not an IP address; write e.g. 10.0.0.1 or fd00::1 (use type CIDR for ranges)"), code)
		}
	case "Domain":
		v.passthroughDomain(m, p)
	}
}

// passthroughWildcardHostSince is the Kuma release whose MeshPassthrough validator
// first checks the host name after a "*." wildcard ("*.hello@world" is refused);
// Kuma 2.13 checks no wildcard value's host name, so neither does --kuma-version 2.13.
const passthroughWildcardHostSince = "2.14"

// passthroughDomain checks a Domain match: a protocol that carries the host name,
// whole-label wildcards, a port for L7 wildcards, and a valid host name.
func (v *validator) passthroughDomain(m api.PassthroughMatch, p *field.Path) {
	const code = CodePassthroughConf
	vp := p.Child("value")
	if m.Protocol == "tcp" || m.Protocol == "mysql" {
		v.err(field.Invalid(p.Child("protocol"), m.Protocol, "a Domain match needs a protocol that carries the host name (tls, http, http2 or grpc); use type IP or CIDR for tcp and mysql"), code)
	}
	partial := len(m.Value) > 1 && m.Value[0] == '*' && m.Value[1] != '.'
	if partial {
		v.err(field.Invalid(vp, m.Value, "partial wildcards are not supported; a wildcard must be a whole label, e.g. \"*.example.com\""), code)
	}
	if m.Port == nil && strings.HasPrefix(m.Value, "*") && passthroughL7(m.Protocol) {
		v.err(field.Required(p.Child("port"), "a wildcard domain with protocol "+m.Protocol+" needs a port: it cannot match every port"), code)
	}
	host := strings.TrimPrefix(m.Value, "*.")
	if strings.HasPrefix(host, "*") || (host != m.Value && api.KumaBefore(v.s.KumaVersion, passthroughWildcardHostSince)) {
		// Before Kuma 2.14 the validator skipped the host check of any wildcard.
		return
	}
	if host == "" || len(strings.ReplaceAll(host, ".", "")) > 255 || net.ParseIP(host) != nil || !passthroughDNSName.MatchString(host) {
		v.err(field.Invalid(vp, m.Value, "is not a valid domain name (use type IP for addresses)"), code)
	}
}
