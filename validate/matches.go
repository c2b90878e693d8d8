package validate

import (
	"fmt"
	"strings"

	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// ruleMatches checks the matches of one `rules` item (Kuma's ValidateMatch, and for
// the kinds whose validator is strict, a condition in every match and a spiffeID
// type).
func (v *validator) ruleMatches(ms []api.RuleMatch, p *field.Path) {
	for i, m := range ms {
		mp := p.Index(i)
		if m.SpiffeID == nil && m.SNI == nil {
			if v.kind.Shared.Matches == api.MatchStrict {
				v.err(field.Required(mp, "a match needs 'spiffeID' or 'sni'; an empty match is refused. Add a condition or remove the match"), CodeMatch)
			}
			continue
		}
		if m.SpiffeID != nil {
			v.spiffeMatch(*m.SpiffeID, mp.Child("spiffeID"))
		}
		if m.SNI != nil {
			v.sniMatch(*m.SNI, mp.Child("sni"))
		}
	}
}

func (v *validator) spiffeMatch(m api.StringMatch, p *field.Path) {
	if msg := spiffeIDProblem(m.Value); msg != "" {
		v.err(field.Invalid(p.Child("value"), m.Value, "must be a valid SPIFFE ID (spiffe://<trust domain>/<path>): "+msg), CodeMatch)
	} else {
		v.spiffePrefixReach(m.Type, m.Value, p)
	}
	if v.kind.Shared.Matches != api.MatchStrict {
		return
	}
	switch m.Type {
	case "Exact", "Prefix":
	case "":
		v.err(field.Required(p.Child("type"), "set type to Exact or Prefix"), CodeMatch)
	default:
		v.err(field.NotSupported(p.Child("type"), m.Type, []string{"Exact", "Prefix"}), CodeMatch)
	}
}

func (v *validator) sniMatch(m api.StringMatch, p *field.Path) {
	switch m.Type {
	case "Exact":
	case "":
		v.err(field.Required(p.Child("type"), "set type to Exact, the only SNI match type"), CodeMatch)
	default:
		v.err(field.NotSupported(p.Child("type"), m.Type, []string{"Exact"}), CodeMatch)
	}
	if m.Value == "" {
		v.err(field.Required(p.Child("value"), "set the SNI to match, a DNS name such as backend.default.svc"), CodeMatch)
		return
	}
	for _, msg := range k8svalidation.IsDNS1123Subdomain(m.Value) {
		v.err(field.Invalid(p.Child("value"), m.Value, "an SNI is a lower-case DNS name: "+msg), CodeMatch)
	}
}

// spiffeIDProblem checks a SPIFFE ID the way Kuma does (go-spiffe's
// spiffeid.FromString, whatever the match type): scheme spiffe, a trust domain of
// [a-z0-9._-], a path of non-empty segments of [a-zA-Z0-9._-] that are not "." or
// "..", no trailing slash. It returns "" when the ID is fine.
func spiffeIDProblem(id string) string {
	const scheme = "spiffe://"
	switch {
	case id == "":
		return "it is empty"
	case !strings.HasPrefix(id, scheme):
		return "the scheme is missing or is not spiffe://"
	}
	td, path, _ := strings.Cut(id[len(scheme):], "/")
	if td == "" {
		return "the trust domain is missing"
	}
	for _, c := range td {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return fmt.Sprintf("trust domain %q may only contain lower-case letters, digits, '.', '-' and '_'", td)
		}
	}
	if !strings.Contains(id[len(scheme):], "/") {
		return ""
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		switch {
		case s == "" && i == len(segs)-1:
			return "the path cannot end with '/'"
		case s == "":
			return "the path cannot contain empty segments ('//')"
		case s == "." || s == "..":
			return "the path cannot contain '.' or '..' segments"
		}
		for _, c := range s {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
				return fmt.Sprintf("path segment %q may only contain letters, digits, '.', '-' and '_'", s)
			}
		}
	}
	return ""
}
