package lint

import (
	"context"
	"encoding/json"
	"maps"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
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
	// gated are the kinds only gated checks need (engine.GatedKinds), each with
	// the key of its gates: the first of the checks' Gates, which stands for
	// all of them.
	gated map[schema.GroupKind]schema.GroupKind
	gates map[schema.GroupKind]*gateState
	// counted numbers the gated objects Summarize has kept, per group and gate
	// (the one set of stages that summarizes serves every group, concurrently).
	counted *sync.Map // string -> *atomic.Int64
	// held are the group's objects only gated checks read, entered into objects
	// (and subjects) by Findings when a gate opened.
	held []*gatedObject
	// overflows are the summaries that stand for a gated object past
	// engine.GatedLimit, one per gate, shared by every such object: most
	// policies of a large run are past it, and each kept its own until the
	// run's end.
	overflows map[schema.GroupKind]*crossSummary
}

// gateState is what a group's stage knows of one check's gates.
type gateState struct {
	seen bool // an object of a gate kind arrived
	// off says the group held more than engine.GatedLimit objects for the
	// gated checks: the ones past it were not kept, and the checks do not run.
	off bool
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
	obj     *unstructured.Unstructured
	subject *crossSubject
	// workload is set for a workload's pods (engine.PodsGK), beside obj when a
	// check also reads the workload whole.
	workload *linkerd.Workload
	// overflow, when set, stands for a gated object past engine.GatedLimit: it
	// is not kept, and turns the gate's checks off for the group.
	overflow schema.GroupKind
	// gated is an object only gated checks read, compacted.
	gated *gatedObject
}

// gatedObject is an object only gated checks read, as JSON until they run.
type gatedObject struct {
	raw    []byte
	kind   *api.Kind
	anchor Anchor
	judged bool // a check judges its kind: it is a subject too
}

// newCrossStage is the stage for one group; complete says the group (with
// --inventory) is the whole cluster (--strict-references).
func newCrossStage(s api.Settings, ns string, complete bool) *crossStage {
	eng := engine.New(s)
	st := &crossStage{eng: eng, namespace: ns, kinds: engine.CrossKinds(eng.Checks), strict: complete,
		gated: gatedKeys(eng.Checks), gates: map[schema.GroupKind]*gateState{}, counted: &sync.Map{}}
	st.overflows = map[schema.GroupKind]*crossSummary{}
	for _, gate := range st.gated {
		st.overflows[gate] = &crossSummary{overflow: gate}
	}
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
		if key, ok := s.gateKey(u.GroupVersionKind().GroupKind()); ok {
			s.gate(key).seen = true
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
	gk := c.Object.GroupVersionKind().GroupKind()
	if c.Kind == nil {
		return s.summarizeOther(c, gk)
	}
	if !s.kinds[gk] {
		return nil
	}
	obj := c.Object
	if !c.Kind.ClusterScoped && (c.Doc == nil || !c.Doc.Universal) {
		obj = s.inNamespace(obj)
	}
	gate, gated := s.gated[gk]
	if gated && s.count(c.Doc, gate) > engine.GatedLimit {
		// Decided before the anchor is built: past the bound, nothing of the
		// object is kept (in a run of many policies, most of them).
		return s.overflows[gate]
	}
	sum := &crossSummary{obj: obj}
	var anchor Anchor
	if engine.Judged(s.eng.Checks, gk) {
		sub := engine.Subject{Object: obj, Kind: c.Kind, Spec: c.Spec}
		anchor = NewAnchor(c.Doc, engine.Fields(s.eng.Checks, sub)...)
		sum.subject = &crossSubject{s: sub, anchor: anchor}
	}
	if gated {
		return s.compact(c, obj, anchor)
	}
	return sum
}

// compact is the summary of an object only gated checks read, counted within
// engine.GatedLimit: JSON bytes, a tenth of the object's maps, kept until the
// group's Findings know whether the gate opened.
func (s *crossStage) compact(c Checked, obj *unstructured.Unstructured, anchor Anchor) *crossSummary {
	raw, err := json.Marshal(obj.Object)
	if err != nil {
		return nil
	}
	return &crossSummary{gated: &gatedObject{raw: raw, kind: c.Kind, anchor: anchor, judged: engine.Judged(s.eng.Checks, obj.GroupVersionKind().GroupKind())}}
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

// count numbers one more gated object of d's group for gate, and returns how
// many there are now.
func (s *crossStage) count(d *Document, gate schema.GroupKind) int64 {
	key := gate.String()
	if d != nil {
		key = renderKey(d) + "\x00" + key
	}
	n, _ := s.counted.LoadOrStore(key, &atomic.Int64{})
	return n.(*atomic.Int64).Add(1)
}

func (s *crossStage) Add(v any) {
	sum := v.(*crossSummary)
	if sum.workload != nil {
		s.objects.AddWorkload(*sum.workload)
	}
	if !sum.overflow.Empty() {
		s.gate(sum.overflow).off = true
		return
	}
	if sum.gated != nil {
		s.held = append(s.held, sum.gated)
		return
	}
	if sum.obj == nil {
		return
	}
	if key, ok := s.gateKey(sum.obj.GroupVersionKind().GroupKind()); ok {
		s.gate(key).seen = true
	}
	s.objects.Add(sum.obj)
	if sum.subject != nil {
		s.subjects = append(s.subjects, *sum.subject)
	}
}

// gate is what the stage knows of gate kind gk, made on first use.
func (s *crossStage) gate(gk schema.GroupKind) *gateState {
	g := s.gates[gk]
	if g == nil {
		g = &gateState{}
		s.gates[gk] = g
	}
	return g
}

// enterHeld decodes the held objects into objects and subjects where some gate
// opened (an object of it came, and the group stayed within engine.GatedLimit);
// otherwise they are dropped unread.
func (s *crossStage) enterHeld() {
	open := false
	for _, g := range s.gates {
		open = open || (g.seen && !g.off)
	}
	held := s.held
	s.held = nil
	if !open {
		return
	}
	for _, h := range held {
		var m map[string]any
		if err := utiljson.Unmarshal(h.raw, &m); err != nil {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		s.objects.Add(u)
		if h.judged {
			s.subjects = append(s.subjects, crossSubject{s: engine.Subject{Object: u, Kind: h.kind}, anchor: h.anchor})
		}
	}
}

// gateKey is the key of the gates gk is one of (the first of its check's
// Gates), and whether it is a gate kind at all.
func (s *crossStage) gateKey(gk schema.GroupKind) (schema.GroupKind, bool) {
	for _, c := range s.eng.Checks {
		if c.Gated(gk) {
			return c.Gates[0], true
		}
	}
	return schema.GroupKind{}, false
}

// gatedKeys are engine.GatedKinds with each kind's gates as their key.
func gatedKeys(checks []engine.CrossCheck) map[schema.GroupKind]schema.GroupKind {
	out := map[schema.GroupKind]schema.GroupKind{}
	for gk, gates := range engine.GatedKinds(checks) {
		out[gk] = gates[0]
	}
	return out
}

// summarizeOther is the summary of an object of a kind outside the registry
// (a workload, a Service, a Namespace): what a workload says of its pods when a
// check reads engine.PodsGK, and the object itself when a check lists its kind.
func (s *crossStage) summarizeOther(c Checked, gk schema.GroupKind) any {
	sum := &crossSummary{}
	if s.kinds[engine.PodsGK] {
		if w, ok := linkerd.WorkloadFromObject(c.Object); ok {
			if w.Namespace == "" {
				w.Namespace = s.namespace
			}
			sum.workload = &w
		}
	}
	if s.kinds[gk] {
		obj := c.Object
		if gk != namespaceGK && (c.Doc == nil || !c.Doc.Universal) {
			obj = s.inNamespace(obj)
		}
		if key, ok := s.gated[gk]; ok {
			held := &crossSummary{overflow: key}
			if s.count(c.Doc, key) <= engine.GatedLimit {
				held = s.compact(c, obj, Anchor{})
			}
			if held != nil {
				held.workload = sum.workload
				return held
			}
		} else if key, ok := s.gateKey(gk); ok && s.count(c.Doc, key) > engine.GatedLimit {
			sum.overflow = key
		} else {
			sum.obj = obj
		}
	}
	if sum.workload == nil && sum.obj == nil && sum.overflow.Empty() {
		return nil
	}
	return sum
}

// namespaceGK is the core Namespace, the one cluster-scoped kind outside the
// registry a check reads.
var namespaceGK = schema.GroupKind{Kind: api.KindNamespace}

func (s *crossStage) Findings() []Finding {
	var out []Finding
	ctx := context.Background()
	s.enterHeld()
	subjects := make([]engine.Subject, len(s.subjects))
	for i, sub := range s.subjects {
		subjects[i] = sub.s
	}
	eng := *s.eng
	eng.Checks = nil
	for _, c := range s.eng.Checks {
		if len(c.Gates) == 0 {
			eng.Checks = append(eng.Checks, c)
		} else if g := s.gates[c.Gates[0]]; g != nil && g.seen && !g.off {
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
