package validate

import (
	"encoding/pem"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshTrust applies Kuma's MeshTrust validator: at least one CA bundle, each a PEM
// certificate (not a key), and a trust domain of at most 253 characters; and its
// warning that spec.origin is deprecated.
func (v *validator) meshTrust(s *api.MeshTrustSpec, p *field.Path) {
	bp := p.Child("caBundles")
	if len(s.CABundles) == 0 {
		v.err(field.Required(bp, "list at least one CA bundle (type Pem)"), CodeMeshTrust)
	}
	for i, b := range s.CABundles {
		ip := bp.Index(i)
		switch {
		case b.Type != "Pem":
			v.err(field.NotSupported(ip.Child("type"), b.Type, []string{"Pem"}), CodeMeshTrust)
		case b.PEM == nil:
			v.err(field.Required(ip.Child("pem"), "a Pem bundle needs pem.value with the CA certificates"), CodeMeshTrust)
		case !pemCertificate(b.PEM.Value):
			v.err(field.Invalid(ip.Child("pem", "value"), "", "not a PEM certificate (a private key or no PEM block); give the CA certificate(s), -----BEGIN CERTIFICATE-----..."), CodeMeshTrust)
		}
	}
	if s.Origin != nil {
		v.warn(field.Invalid(p.Child("origin"), "", "Kuma deprecates setting spec.origin (it records which MeshIdentity created the trust itself); remove it"), CodeDeprecated)
	}
	tp := p.Child("trustDomain")
	if s.TrustDomain == "" {
		v.err(field.Required(tp, "name the trust domain these CAs vouch for"), CodeMeshTrust)
	}
	if len(s.TrustDomain) > 253 {
		v.err(field.TooLong(tp, "", 253), CodeMeshTrust)
	}
}

// pemCertificate is Kuma's test of a bundle: its first PEM block decodes and is not a
// private key.
func pemCertificate(s string) bool {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return false
	}
	switch block.Type {
	case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
		return false
	}
	return true
}
