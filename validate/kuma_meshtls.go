package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// tlsVersionOrder ranks the specific TLS versions; TLSAuto has no rank.
func tlsVersionOrder(v string) (int, bool) {
	switch v {
	case "TLS10":
		return 0, true
	case "TLS11":
		return 1, true
	case "TLS12":
		return 2, true
	case "TLS13":
		return 3, true
	}
	return 0, false
}

// meshTLS is Kuma 2.14's meshtls validator beyond the schema (which checks the
// mode, cipher and version names) and the rules every policy shares: versions and
// ciphers only on a Mesh-wide policy, and a minimum version not above the maximum.
func (v *validator) meshTLS(s *api.MeshTLSSpec, p *field.Path) {
	mesh := topKind(s.TargetRef) == api.RefMesh
	for i, r := range s.Rules {
		v.tlsConf(r.Default, mesh, p.Child("rules").Index(i).Child("default"))
	}
	for i, it := range s.From {
		v.tlsConf(it.Default, mesh, p.Child("from").Index(i).Child("default"))
	}
}

// tlsConf checks one conf; mesh says whether the policy targets the whole Mesh.
func (v *validator) tlsConf(c *api.MeshTLSConf, mesh bool, p *field.Path) {
	if c == nil {
		return
	}
	const code = CodeMeshTLSConf
	if c.TLSCiphers != nil && len(*c.TLSCiphers) > 0 && !mesh {
		v.err(field.Forbidden(p.Child("tlsCiphers"), "tlsCiphers can be set only by a MeshTLS whose top-level targetRef is kind Mesh (all proxies must agree on ciphers); move them to a Mesh-wide MeshTLS"), code)
	}
	if c.TLSVersion == nil {
		return
	}
	if !mesh {
		v.err(field.Forbidden(p.Child("tlsVersion"), "tlsVersion can be set only by a MeshTLS whose top-level targetRef is kind Mesh (all proxies must agree on versions); move it to a Mesh-wide MeshTLS"), code)
		return
	}
	if c.TLSVersion.Min == nil || c.TLSVersion.Max == nil {
		return
	}
	lo, okLo := tlsVersionOrder(*c.TLSVersion.Min)
	hi, okHi := tlsVersionOrder(*c.TLSVersion.Max)
	if okLo && okHi && lo > hi {
		v.err(field.Invalid(p.Child("tlsVersion", "min"), *c.TLSVersion.Min, "the minimum TLS version is above the maximum ("+*c.TLSVersion.Max+"); swap them or lower min"), code)
	}
}
