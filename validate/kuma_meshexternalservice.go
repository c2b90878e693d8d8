package validate

import (
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// Kuma's value sets for a MeshExternalService.
func mesMatchProtocols() []string    { return []string{"tcp", "grpc", "http", "http2"} }
func mesVerificationModes() []string { return []string{"SkipSAN", "SkipCA", "SkipAll", "Secured"} }
func mesSANMatchTypes() []string     { return []string{"Prefix", "Exact"} }
func kumaTLSVersions() []string      { return []string{"TLSAuto", "TLS10", "TLS11", "TLS12", "TLS13"} }

// meshExternalService mirrors Kuma's MeshExternalService validator: the name, the
// match, and unless an extension takes over, the endpoints and the TLS settings.
func (v *validator) meshExternalService(s *api.MeshExternalServiceSpec, p *field.Path) {
	v.nameLength(maxServiceNameLength, CodeMeshExternalService)
	v.mesMatch(s.Match, p.Child("match"))
	if s.Extension == nil {
		if s.Endpoints != nil {
			v.mesEndpoints(*s.Endpoints, p.Child("endpoints"))
		}
		if s.TLS != nil {
			v.mesTLS(s.TLS, p.Child("tls"))
		}
	} else if s.Extension.Type == "" {
		v.err(field.Required(p.Child("extension", "type"), "name the extension that handles this MeshExternalService"), CodeMeshExternalService)
	}
	v.dnsNameDeprecation(CodeMeshExternalService)
	v.sniPortDeprecation("extsvc", strconv.Itoa(int(s.Match.Port)), p.Child("match", "port"), CodeMeshExternalService)
}

// mesMatch checks the match; an absent type or protocol is the CRD's default
// (HostnameGenerator, tcp), which the API server writes before Kuma validates.
func (v *validator) mesMatch(m api.MESMatch, p *field.Path) {
	if m.Type != "" && m.Type != api.MESMatchHostnameGenerator {
		v.err(field.NotSupported(p.Child("type"), m.Type, []string{api.MESMatchHostnameGenerator}), CodeMeshExternalService)
	}
	if !validPort(int64(m.Port)) {
		v.err(field.Invalid(p.Child("port"), m.Port, "must be a port number, 1-65535"), CodeMeshExternalService)
	}
	if m.Protocol != "" && !slices.Contains(mesMatchProtocols(), m.Protocol) {
		v.err(field.NotSupported(p.Child("protocol"), m.Protocol, mesMatchProtocols()), CodeMeshExternalService)
	}
}

// mesEndpoints checks each endpoint: an IP or a host name, and a valid port.
func (v *validator) mesEndpoints(eps []api.MESEndpoint, p *field.Path) {
	for i, ep := range eps {
		ip := p.Index(i)
		if !isIP(ep.Address) && !isDNSName(ep.Address) {
			v.err(field.Invalid(ip.Child("address"), ep.Address, "must be an IP address or a host name"), CodeMeshExternalService)
		} else if !validPort(int64(ep.Port)) {
			v.err(field.Invalid(ip.Child("port"), ep.Port, "must be a port number, 1-65535"), CodeMeshExternalService)
		}
	}
}

// mesTLS checks the TLS versions and the verification settings.
func (v *validator) mesTLS(t *api.MESTLS, p *field.Path) {
	if t.Version != nil {
		v.tlsVersion(t.Version, p.Child("version"), CodeMeshExternalService)
	}
	ver := t.Verification
	if ver == nil {
		return
	}
	vp := p.Child("verification")
	if ver.ServerName != nil && !isDNSName(*ver.ServerName) {
		v.err(field.Invalid(vp.Child("serverName"), *ver.ServerName, "must be a host name"), CodeMeshExternalService)
	}
	if ver.Mode != "" && !slices.Contains(mesVerificationModes(), ver.Mode) {
		v.err(field.NotSupported(vp.Child("mode"), ver.Mode, mesVerificationModes()), CodeMeshExternalService)
	}
	if ver.SubjectAltNames != nil {
		for i, san := range *ver.SubjectAltNames {
			// an absent type is the CRD's default, Exact
			if san.Type != "" && !slices.Contains(mesSANMatchTypes(), san.Type) {
				v.err(field.NotSupported(vp.Child("subjectAltNames").Index(i).Child("type"), san.Type, mesSANMatchTypes()), CodeMeshExternalService)
			}
		}
	}
	if ver.ClientCert != nil && ver.ClientKey == nil {
		v.err(field.Required(vp.Child("clientKey"), "a clientCert needs its clientKey"), CodeMeshExternalService)
	}
	if ver.ClientCert == nil && ver.ClientKey != nil {
		v.err(field.Required(vp.Child("clientCert"), "a clientKey needs its clientCert"), CodeMeshExternalService)
	}
}

// tlsVersion checks Kuma's TLS version bounds: known names, and min not above max
// when both are specific versions.
func (v *validator) tlsVersion(tv *api.KumaTLSVersion, p *field.Path, code string) {
	rank := func(s *string, name string) int {
		if s == nil {
			return -1
		}
		i := slices.Index(kumaTLSVersions(), *s)
		if i < 0 {
			v.err(field.NotSupported(p.Child(name), *s, kumaTLSVersions()), code)
		}
		return i // 0 is TLSAuto
	}
	lo, hi := rank(tv.Min, "min"), rank(tv.Max, "max")
	if lo > 0 && hi > 0 && lo > hi {
		v.err(field.Invalid(p.Child("min"), *tv.Min, "must not be above max ("+*tv.Max+")"), code)
	}
}
