package lint

import (
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/compile"
	"github.com/meshguard/meshguard/linkerd"
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
	p      compile.Policy
	anchor Anchor
}

func (s *rbacStage) Summarize(c Checked) any {
	if c.Kind == nil || c.Kind.Kind != api.KindMeshTrafficPermission || c.Denied {
		return nil
	}
	// The spec validation built, as the webhook's preview uses it; decoded again
	// only when there is none.
	var p compile.Policy
	var err error
	if spec, ok := c.Spec.(*api.MeshTrafficPermissionSpec); ok && spec != nil {
		p, err = compile.PolicyFromSpec(c.Object, spec)
	} else {
		p, err = compile.PolicyFromObject(c.Object)
	}
	if err != nil {
		return nil
	}
	// The paths the analysis reports: items, the list, and SPIFFE matchers.
	paths := make([]string, 0, 2+len(p.Spec.From))
	paths = append(paths, "spec", "spec.from")
	for i := range p.Spec.From {
		paths = append(paths, compile.MergedItem{Index: i}.Path())
	}
	for _, e := range compile.SpiffeEntries(p) {
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
	ps := make([]compile.Policy, len(s.sums))
	for i, m := range s.sums {
		ps[i] = m.p
	}
	errs := compile.AnalyzePolicies(ps, s.systemNamespace)
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

// serverStage reports Linkerd Servers of the linted set, across all files, that can
// select the same pod on the same port (MG350). Named ports are resolved against
// the pod templates of the set's workloads. Each Server involved gets a finding
// naming the other one; Servers the webhook would deny are left out.
type serverStage struct {
	namespace string // of documents that name none
	servers   []linkerd.Server
	anchors   []Anchor
	workloads []linkerd.Workload
}

type serverSummary struct {
	s      linkerd.Server
	anchor Anchor
}

func (s *serverStage) Summarize(c Checked) any {
	if c.Kind == nil {
		if w, ok := linkerd.WorkloadFromObject(c.Object); ok {
			if w.Namespace == "" {
				w.Namespace = s.namespace
			}
			return &w
		}
		return nil
	}
	if c.Kind.Group != api.LinkerdGroup || c.Kind.Kind != api.KindServer || c.Denied {
		return nil
	}
	sv, ok := linkerd.ServerFromObject(c.Object)
	if !ok {
		return nil
	}
	return &serverSummary{s: sv, anchor: NewAnchor(c.Doc, selectorPath(sv))}
}

// selectorPath is where a Server's conflict finding points: its selector (the port
// is in the message).
func selectorPath(s linkerd.Server) string {
	if s.External {
		return "spec.externalWorkloadSelector"
	}
	return "spec.podSelector"
}

func (s *serverStage) Add(v any) {
	switch v := v.(type) {
	case *linkerd.Workload:
		s.workloads = append(s.workloads, *v)
	case *serverSummary:
		s.servers = append(s.servers, v.s)
		s.anchors = append(s.anchors, v.anchor)
	}
}

func (s *serverStage) Findings() []Finding {
	if len(s.servers) < 2 {
		return nil
	}
	var out []Finding
	for _, c := range linkerd.Conflicts(s.servers, s.workloads) {
		a, b := s.servers[c.A], s.servers[c.B]
		out = append(out,
			s.anchors[c.A].Finding(validate.SeverityWarning, validate.CodeLinkerdServerConflict, selectorPath(a), linkerd.Message(a.Name, b.Name, c.Port)),
			s.anchors[c.B].Finding(validate.SeverityWarning, validate.CodeLinkerdServerConflict, selectorPath(b), linkerd.Message(b.Name, a.Name, c.Port)))
	}
	return out
}
