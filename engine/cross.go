package engine

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// PodsGK stands, as an input of a cross-object check, for the pods of every
// workload, which it reads through Source.Workloads: a lint run keeps what each
// Deployment, StatefulSet, DaemonSet, Job, CronJob, ReplicaSet and Pod says of its
// pods (labels, named ports) for it; the webhook caches no pod templates.
var PodsGK = schema.GroupKind{Kind: api.KindPod}

// Subject is the object a cross-object check judges, as the engine read it.
type Subject struct {
	Object *unstructured.Unstructured
	Kind   *api.Kind
	// Spec is the typed spec validation built (validate.Result.Spec); nil when
	// there is none. Checks only read it.
	Spec any
}

// Namespace is the subject's namespace.
func (s Subject) Namespace() string { return s.Object.GetNamespace() }

// CrossCheck is one rule that judges an object against other objects. It is
// written once, against a Source, and every door runs it: the webhook over its
// informer caches, lint over the run's documents, audit over a cluster's lists.
// A new one is a file with its Run and a row in CrossChecks.
type CrossCheck struct {
	// Codes are the rule codes its findings carry (rules/catalogue.yaml); the
	// first names the check.
	Codes []string
	// Subjects are the kinds it judges.
	Subjects []schema.GroupKind
	// Inputs are the kinds of other objects it lists from the Source (PodsGK for
	// workloads' pods); a door keeps or caches only these.
	Inputs []schema.GroupKind
	// Fields are the field paths its findings on s may name, so that a door
	// that keeps only an anchor of a document (lint) can still say their lines.
	Fields func(s Subject) []string
	// Run judges s against src: field errors whose Origin is one of Codes. The
	// engine decides their severity (Engine.Deny, StrictError).
	Run func(ctx context.Context, s Subject, src Source) field.ErrorList
	// RunAll, set instead of Run, judges many subjects against src at once, for a
	// check whose cost is reading src rather than judging one subject (what every
	// policy of a mesh does on every proxy): the i-th list is subjects[i]'s. A door
	// that judges one object (admission) passes one subject.
	RunAll func(ctx context.Context, subjects []Subject, src Source) []field.ErrorList
	// StrictError makes the findings errors where the source is complete (lint's
	// --strict-references): what is absent from it is absent from the cluster.
	StrictError bool
	// Gates, when set, are the kinds without all of which the check says
	// nothing (kumaEffects: the Dataplanes, or the workloads Kuma gives one).
	// A door that keeps documents for the checks (lint) keeps at most
	// GatedLimit objects of the kinds only gated checks read, and runs them
	// only where an object of one of Gates came too.
	Gates []schema.GroupKind
}

// GatedLimit is how many objects of the kinds only gated checks read a lint run
// keeps per group of documents: past it the gated checks do not run over the
// group, so that a repository of many policies (and, most often, no proxies)
// costs a bounded amount of memory for them.
const GatedLimit = 10000

// GatedKinds are the kinds only checks with Gates read or judge: what a
// streaming door holds back until a gate object arrives, with the gates that
// release them. A gate kind itself is never held.
func GatedKinds(checks []CrossCheck) map[schema.GroupKind][]schema.GroupKind {
	plain := map[schema.GroupKind]bool{}
	for _, c := range checks {
		if len(c.Gates) == 0 {
			for gk := range CrossKinds([]CrossCheck{c}) {
				plain[gk] = true
			}
		}
	}
	out := map[schema.GroupKind][]schema.GroupKind{}
	for _, c := range checks {
		if len(c.Gates) == 0 {
			continue
		}
		for gk := range CrossKinds([]CrossCheck{c}) {
			if !plain[gk] && !c.Gated(gk) {
				out[gk] = c.Gates
			}
		}
	}
	return out
}

// Gated reports whether gk is one of c's Gates.
func (c CrossCheck) Gated(gk schema.GroupKind) bool {
	for _, g := range c.Gates {
		if g == gk {
			return true
		}
	}
	return false
}

// judges reports whether c judges objects of gk.
func (c CrossCheck) judges(gk schema.GroupKind) bool {
	for _, s := range c.Subjects {
		if s == gk {
			return true
		}
	}
	return false
}

// CrossChecks is the one list of cross-object checks, in the order they run.
func CrossChecks() []CrossCheck {
	return []CrossCheck{serverConflicts(), missingEgressNetwork(), rateLimitConflicts(), kumaEffects()}
}

// CrossKinds are the kinds any cross-object check reads or judges: what a door
// must keep of its objects for them.
func CrossKinds(checks []CrossCheck) map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, c := range checks {
		for _, gk := range append(append([]schema.GroupKind(nil), c.Subjects...), c.Inputs...) {
			out[gk] = true
		}
	}
	return out
}

// Judged reports whether any of checks judges objects of gk.
func Judged(checks []CrossCheck, gk schema.GroupKind) bool {
	for _, c := range checks {
		if c.judges(gk) {
			return true
		}
	}
	return false
}

// Fields are the field paths the findings of checks on s may name.
func Fields(checks []CrossCheck, s Subject) []string {
	var out []string
	for _, c := range checks {
		if c.judges(s.Object.GroupVersionKind().GroupKind()) && c.Fields != nil {
			out = append(out, c.Fields(s)...)
		}
	}
	return out
}
