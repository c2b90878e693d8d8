package lint

import (
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/validate"
)

// rbacStage compiles the MeshTrafficPermissions of the linted set together and
// reports the compiler's findings (dead items, deny-all, mesh-wide allow-all) on
// the policy they concern. Policies the webhook would deny are left out: they
// never reach a proxy.
type rbacStage struct {
	systemNamespace string
	// sums are the added summaries, by pointer: the policies are copied into
	// one slice of the final size when Findings compiles them. Copying each
	// Policy and Anchor into growing slices as they were added copied them
	// again at every doubling and, at the end of a large run, held the old
	// arrays beside the new ones.
	sums  []*mtpSummary
	byRef map[string]int
}

type mtpSummary struct {
	p      kumaauthz.Policy
	anchor Anchor
}

func (s *rbacStage) Summarize(c Checked) any {
	if c.Kind == nil || c.Kind.Kind != api.KindMeshTrafficPermission || c.Denied {
		return nil
	}
	// The spec validation built, as the webhook's preview uses it; decoded again
	// only when there is none.
	var p kumaauthz.Policy
	var err error
	if spec, ok := c.Spec.(*api.MeshTrafficPermissionSpec); ok && spec != nil {
		p, err = kumaauthz.PolicyFromSpec(c.Object, spec)
	} else {
		p, err = kumaauthz.PolicyFromObject(c.Object)
	}
	if err != nil {
		return nil
	}
	// The paths the analysis reports: items, the list, and SPIFFE matchers.
	paths := make([]string, 0, 2+len(p.Spec.From))
	paths = append(paths, "spec", "spec.from")
	for i := range p.Spec.From {
		paths = append(paths, kumaauthz.MergedItem{Index: i}.Path())
	}
	for _, e := range kumaauthz.SpiffeEntries(p) {
		paths = append(paths, e.Path)
	}
	return &mtpSummary{p: p, anchor: NewAnchor(c.Doc, paths...)}
}

func (s *rbacStage) Add(v any) {
	m := v.(*mtpSummary)
	if s.byRef == nil {
		s.byRef = map[string]int{}
	}
	s.byRef[m.p.Ref()] = len(s.sums) // the last document of a Ref gets its findings
	s.sums = append(s.sums, m)
}

func (s *rbacStage) Findings() []Finding {
	if len(s.sums) == 0 {
		return nil
	}
	ps := make([]kumaauthz.Policy, len(s.sums))
	for i, m := range s.sums {
		ps[i] = m.p
	}
	errs := kumaauthz.AnalyzePolicies(ps, s.systemNamespace)
	out := make([]Finding, 0, len(errs))
	for _, e := range errs {
		ref, _ := e.BadValue.(string)
		i, ok := s.byRef[ref]
		if !ok {
			continue
		}
		out = append(out, s.sums[i].anchor.Finding(validate.SeverityWarning, e.Origin, e.Field, e.Detail))
	}
	return out
}
