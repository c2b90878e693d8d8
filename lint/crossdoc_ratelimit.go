package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

// rateLimitStage reports HTTPLocalRateLimitPolicies of the linted set that target the
// same Server (MG370): Linkerd accepts one per Server (the oldest, by name when created
// together) and marks the others not accepted, so their limits never apply. Policies
// the webhook would deny are left out.
type rateLimitStage struct {
	namespace string // of documents that name none
	byServer  map[string][]rateLimitPolicy
	order     []string
}

type rateLimitPolicy struct {
	name   string
	anchor Anchor
}

type rateLimitSummary struct {
	server string // "namespace/name"
	p      rateLimitPolicy
}

func (s *rateLimitStage) Summarize(c Checked) any {
	if c.Kind == nil || c.Kind.Group != api.LinkerdGroup || c.Kind.Kind != api.KindHTTPLocalRateLimitPolicy || c.Denied {
		return nil
	}
	spec, ok := c.Spec.(*api.HTTPLocalRateLimitPolicySpec)
	if !ok || spec.TargetRef == nil {
		return nil
	}
	ns := c.Object.GetNamespace()
	if ns == "" {
		ns = s.namespace
	}
	return &rateLimitSummary{server: ns + "/" + spec.TargetRef.Name,
		p: rateLimitPolicy{name: c.Object.GetName(), anchor: NewAnchor(c.Doc, "spec.targetRef")}}
}

func (s *rateLimitStage) Add(v any) {
	r := v.(*rateLimitSummary)
	if s.byServer == nil {
		s.byServer = map[string][]rateLimitPolicy{}
	}
	if _, ok := s.byServer[r.server]; !ok {
		s.order = append(s.order, r.server)
	}
	s.byServer[r.server] = append(s.byServer[r.server], r.p)
}

func (s *rateLimitStage) Findings() []Finding {
	var out []Finding
	for _, server := range s.order {
		ps := s.byServer[server]
		if len(ps) < 2 {
			continue
		}
		names := make([]string, len(ps))
		for i, p := range ps {
			names[i] = p.name
		}
		sort.Strings(names)
		_, srv, _ := strings.Cut(server, "/")
		for _, p := range ps {
			out = append(out, p.anchor.Finding(validate.SeverityWarning, validate.CodeLinkerdRateLimitConflict, "spec.targetRef",
				fmt.Sprintf("HTTPLocalRateLimitPolicies %s all target Server %s; Linkerd applies only one per Server (the oldest, by name when created together) and ignores the others: merge them into one",
					strings.Join(names, ", "), srv)))
		}
	}
	return out
}
