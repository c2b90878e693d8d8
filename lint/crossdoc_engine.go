package lint

import (
	"context"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/engine"
	"github.com/meshguard/meshguard/linkerd"
	"github.com/meshguard/meshguard/validate"
)

// crossStage runs the engine's cross-object checks (engine.CrossChecks: Linkerd
// Server conflicts, missing EgressNetworks, rate-limit policies sharing a Server)
// over one group of documents applied together: it keeps the objects of the kinds
// the checks declare, and once every document is in, judges each subject against
// the group as the checks' Source. Objects the webhook would deny are left out of
// both sides: they never exist in a cluster. Only the declared kinds are kept, so
// a run of many other objects costs nothing here.
type crossStage struct {
	eng       *engine.Engine
	namespace string // of documents that name none
	kinds     map[schema.GroupKind]bool
	objects   engine.Objects
	// strict makes the findings that rest on an object's absence errors
	// (--strict-references).
	strict   bool
	subjects []crossSubject
	// gated are the kinds only gated checks need (engine.GatedKinds), by gate;
	// they are held in pending until an object of the gate arrives.
	gated map[schema.GroupKind]schema.GroupKind
	gates map[schema.GroupKind]*gateState
}

// gateState is what the stage holds back for the checks of one gate kind.
type gateState struct {
	seen bool // an object of the gate kind arrived
	// off says more than engine.GatedBuffer objects came before the gate: they
	// were dropped and the gated checks do not run over this group.
	off     bool
	pending []*crossSummary
}

// crossSubject is one object a check judges, with where its findings point.
type crossSubject struct {
	s      engine.Subject
	anchor Anchor
}

// crossSummary is what the stage keeps of a document: an object the checks read,
// and the subject when a check judges it; or, of a workload, what it says of its
// pods (engine.PodsGK).
type crossSummary struct {
	obj      *unstructured.Unstructured
	subject  *crossSubject
	workload *linkerd.Workload
}

// newCrossStage is the stage for one group; complete says the group (with
// --inventory) is the whole cluster (--strict-references).
func newCrossStage(s api.Settings, ns string, complete bool) *crossStage {
	eng := engine.New(s)
	st := &crossStage{eng: eng, namespace: ns, kinds: engine.CrossKinds(eng.Checks), strict: complete,
		gated: engine.GatedKinds(eng.Checks), gates: map[schema.GroupKind]*gateState{}}
	st.objects.Complete = complete
	return st
}

// newClusterStage is the stage for a cluster's objects (audit): every kind is
// known, what is missing is missing from the cluster, and findings are warnings,
// as the webhook gives them.
func newClusterStage(s api.Settings, ns string) *crossStage {
	st := newCrossStage(s, ns, false)
	st.objects.Complete = true
	st.objects.In = engine.ScopeCluster
	return st
}

// base enters the --inventory objects (and workloads) before any document of the
// group: what the checks read besides the run's documents, never judged
// themselves.
func (s *crossStage) base(inv *Inventory) {
	for _, u := range inv.Objects {
		s.objects.Add(u)
		if gk := u.GroupVersionKind().GroupKind(); s.isGate(gk) && s.gates[gk] == nil {
			s.gates[gk] = &gateState{seen: true}
		}
	}
	for _, w := range inv.Workloads {
		s.objects.AddWorkload(w)
	}
}

func (s *crossStage) Summarize(c Checked) any {
	if c.Denied || c.Object == nil {
		return nil
	}
	if c.Kind == nil {
		if !s.kinds[engine.PodsGK] {
			return nil
		}
		if w, ok := linkerd.WorkloadFromObject(c.Object); ok {
			if w.Namespace == "" {
				w.Namespace = s.namespace
			}
			return &crossSummary{workload: &w}
		}
		return nil
	}
	gk := c.Object.GroupVersionKind().GroupKind()
	if !s.kinds[gk] {
		return nil
	}
	obj := c.Object
	if !c.Kind.ClusterScoped && (c.Doc == nil || !c.Doc.Universal) {
		obj = s.inNamespace(obj)
	}
	sum := &crossSummary{obj: obj}
	if engine.Judged(s.eng.Checks, gk) {
		sub := engine.Subject{Object: sum.obj, Kind: c.Kind, Spec: c.Spec}
		sum.subject = &crossSubject{s: sub, anchor: NewAnchor(c.Doc, engine.Fields(s.eng.Checks, sub)...)}
	}
	return sum
}

// inNamespace is u, or a copy of its top level and metadata with the run's
// namespace when it names none, as apply would store it. The stage keeps u
// itself: the run drops the document's parse tree and never mutates the object
// after its checks.
func (s *crossStage) inNamespace(u *unstructured.Unstructured) *unstructured.Unstructured {
	meta, _ := u.Object["metadata"].(map[string]any)
	if u.GetNamespace() != "" || meta == nil {
		return u
	}
	meta = maps.Clone(meta)
	meta["namespace"] = s.namespace
	top := maps.Clone(u.Object)
	top["metadata"] = meta
	return &unstructured.Unstructured{Object: top}
}

func (s *crossStage) Add(v any) {
	sum := v.(*crossSummary)
	if sum.workload != nil {
		s.objects.AddWorkload(*sum.workload)
		return
	}
	gk := sum.obj.GroupVersionKind().GroupKind()
	if gate, ok := s.gated[gk]; ok {
		s.hold(gate, sum)
		return
	}
	if g := s.gates[gk]; g != nil && !g.seen {
		g.seen = true
		for _, p := range g.pending {
			s.keep(p)
		}
		g.pending = nil
	} else if g == nil && s.isGate(gk) {
		s.gates[gk] = &gateState{seen: true}
	}
	s.keep(sum)
}

// keep enters an object for the checks, and its subject.
func (s *crossStage) keep(sum *crossSummary) {
	s.objects.Add(sum.obj)
	if sum.subject != nil {
		s.subjects = append(s.subjects, *sum.subject)
	}
}

// hold keeps an object only gated checks need: at once once its gate has
// arrived, else in a bounded buffer.
func (s *crossStage) hold(gate schema.GroupKind, sum *crossSummary) {
	g := s.gates[gate]
	if g == nil {
		g = &gateState{}
		s.gates[gate] = g
	}
	switch {
	case g.off:
	case g.seen:
		s.keep(sum)
	case len(g.pending) >= engine.GatedBuffer:
		g.pending, g.off = nil, true
	default:
		g.pending = append(g.pending, sum)
	}
}

func (s *crossStage) isGate(gk schema.GroupKind) bool {
	for _, c := range s.eng.Checks {
		if c.Gate == gk {
			return true
		}
	}
	return false
}

func (s *crossStage) Findings() []Finding {
	var out []Finding
	ctx := context.Background()
	subjects := make([]engine.Subject, len(s.subjects))
	for i, sub := range s.subjects {
		subjects[i] = sub.s
	}
	eng := *s.eng
	eng.Checks = nil
	for _, c := range s.eng.Checks {
		if g := s.gates[c.Gate]; c.Gate.Empty() || (g != nil && g.seen && !g.off) {
			eng.Checks = append(eng.Checks, c)
		}
	}
	for i, f := range eng.CrossAll(ctx, subjects, &s.objects, s.strict) {
		out = appendAnchored(out, s.subjects[i].anchor, f.Errors, validate.SeverityError)
		out = appendAnchored(out, s.subjects[i].anchor, f.Warnings, validate.SeverityWarning)
	}
	return out
}

// appendAnchored adds the findings errs, whose details are whole sentences, on
// the anchored document.
func appendAnchored(out []Finding, a Anchor, errs field.ErrorList, severity string) []Finding {
	for _, e := range errs {
		out = append(out, a.Finding(severity, e.Origin, e.Field, e.Detail))
	}
	return out
}
