package validate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// lkRateLimit applies Linkerd's admission rules to an HTTPLocalRateLimitPolicy: it
// targets a Server; every limit is above zero; the identity and override limits do
// not exceed the total; overrides name ServiceAccounts.
func (v *validator) lkRateLimit(s *api.HTTPLocalRateLimitPolicySpec, p *field.Path) {
	if s.TargetRef == nil && !v.schemaAnswered {
		v.err(field.Required(p.Child("targetRef"), "name the Server to limit: group policy.linkerd.io, kind Server, name"), CodeLinkerdRateLimit)
	}
	if t := s.TargetRef; t != nil && !refIs(t.Group, t.Kind, api.LinkerdGroup, api.KindServer) {
		v.err(field.Invalid(p.Child("targetRef", "kind"), canonicalKind(t.Group, t.Kind),
			"an HTTPLocalRateLimitPolicy targets a Server (group policy.linkerd.io, kind Server)"), CodeLinkerdRateLimit)
	}
	total := rps(s.Total)
	if s.Total != nil && total == 0 {
		v.err(field.Invalid(p.Child("total", "requestsPerSecond"), 0, "must be greater than 0; drop total for no overall limit"), CodeLinkerdRateLimit)
	}
	if s.Identity != nil {
		ip := p.Child("identity", "requestsPerSecond")
		switch id := rps(s.Identity); {
		case id == 0:
			v.err(field.Invalid(ip, 0, "must be greater than 0; drop identity for no per-client limit"), CodeLinkerdRateLimit)
		case total > 0 && id > total:
			v.err(field.Invalid(ip, id, fmt.Sprintf("a per-identity limit above the total (%d) never applies; lower it to at most %d", total, total)), CodeLinkerdRateLimit)
		}
	}
	for i, o := range s.Overrides {
		op := p.Child("overrides").Index(i)
		n := int64(0)
		if o.RequestsPerSecond != nil {
			n = *o.RequestsPerSecond
		}
		switch {
		case n == 0:
			v.err(field.Invalid(op.Child("requestsPerSecond"), 0, "must be greater than 0"), CodeLinkerdRateLimit)
		case total > 0 && n > total:
			v.err(field.Invalid(op.Child("requestsPerSecond"), n, fmt.Sprintf("an override above the total (%d) never applies; lower it to at most %d", total, total)), CodeLinkerdRateLimit)
		}
		for j, c := range o.ClientRefs {
			if !refIs(c.Group, c.Kind, "", api.KindServiceAccount) {
				v.err(field.Invalid(op.Child("clientRefs").Index(j).Child("kind"), canonicalKind(c.Group, c.Kind),
					"override clients are ServiceAccounts (kind ServiceAccount, no group)"), CodeLinkerdRateLimit)
			}
		}
	}
}

// rps is a limit's requests per second, 0 when absent.
func rps(l *api.RateLimit) int64 {
	if l == nil || l.RequestsPerSecond == nil {
		return 0
	}
	return *l.RequestsPerSecond
}
