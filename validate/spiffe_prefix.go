package validate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// spiffePrefixReach warns about a spiffeID matcher of type Prefix: Kuma programs it
// as Envoy's plain string prefix of the client certificate's URI SAN
// (StringMatcher prefix), not a prefix of path segments, so
// spiffe://td/ns/web also admits spiffe://td/ns/webshop/..., and spiffe://td
// also admits spiffe://td.example/.... Kuma parses the value as a whole SPIFFE ID,
// which may not end with '/', so no Prefix can stop at a segment boundary; the
// warning names what else matches and the ways out. p is the spiffeID's path.
func (v *validator) spiffePrefixReach(typ, value string, p *field.Path) {
	if typ != "Prefix" || spiffeIDProblem(value) != "" {
		return
	}
	rest := strings.TrimPrefix(value, "spiffe://")
	var also string
	if i := strings.LastIndexByte(rest, '/'); i < 0 {
		also = fmt.Sprintf("%q (another trust domain)", value+".example/...")
	} else {
		seg := rest[i+1:]
		also = fmt.Sprintf("%q (a %s%s)", value+"-other/...", segmentName(rest[:i]), seg+"-other")
	}
	v.warn(field.Invalid(p.Child("value"), value, fmt.Sprintf(
		"a Prefix is a plain string prefix of the client's SPIFFE ID, so this one also admits %s; Kuma refuses a value ending in '/', so a Prefix cannot stop at a segment boundary: list the identities meant with type Exact, or make sure no other identity starts with this text",
		also)), CodeSpiffePrefix)
}

// segmentName names what the last segment of a SPIFFE path is in Kuma's
// identity layout (.../ns/<namespace>/sa/<service account>), for the message.
func segmentName(parent string) string {
	switch {
	case strings.HasSuffix(parent, "/ns"):
		return "namespace "
	case strings.HasSuffix(parent, "/sa"):
		return "service account "
	}
	return "segment "
}
