// Package engine is the one entry that judges an object: the mutating stage's
// defaults where a door needs them, the three validation layers (package validate),
// the object's own suppressions, and every check that reads other objects
// (CrossChecks, and the references of package refs), in one order written here.
// Doors only supply objects: the webhook the request and a Source over its informer
// caches, lint its documents and a Source over the run (see lint's cross stage),
// audit a cluster's lists. It imports no controller-runtime.
package engine

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/defaults"
	"github.com/meshguard/meshguard/rules"
	"github.com/meshguard/meshguard/validate"
)

// Engine judges objects for one deployment: its settings, the cross-object checks
// it runs and what the door makes of their findings.
type Engine struct {
	Settings api.Settings
	// Checks are the cross-object checks run; New sets CrossChecks().
	Checks []CrossCheck
	// Deny makes the cross-object findings of these codes errors (serve's
	// --linkerd-server-conflicts=deny); otherwise they are warnings.
	Deny map[string]bool
	// Now is the clock suppressions' expiry dates are judged by; nil: time.Now.
	Now func() time.Time
}

// New is an engine with every cross-object check.
func New(s api.Settings) *Engine {
	return &Engine{Settings: s, Checks: CrossChecks()}
}

// Input is one object to judge and how it arrives.
type Input struct {
	Object *unstructured.Unstructured
	Kind   *api.Kind
	// Request is the operation, the stored object of an UPDATE, who writes.
	Request api.Request
	// Default runs the mutating stage first, as the API server would have before
	// validation: the offline doors (lint, audit). The webhook's mutating handler
	// has already run it.
	Default bool
	// Source, when set, runs the cross-object and reference checks against it
	// (admission). Nil leaves them to the door, which runs them once it holds every
	// object (lint: Engine.Cross over the run).
	Source Source
	// Suppress applies the object's meshguard.io/ignore annotation as admission
	// does: the warnings it accepts are dropped, and what it says about itself is
	// added. Lint marks suppressed findings instead of dropping them.
	Suppress bool
}

// Verdict is what the engine found about one object.
type Verdict struct {
	// Errors deny the object; Warnings do not.
	Errors, Warnings field.ErrorList
	// Replaced are the labels the mutating stage replaced (MG016), when Default ran.
	Replaced field.ErrorList
	// Spec is the typed spec validation built (validate.Result.Spec).
	Spec any
}

// Judge runs every check on in.Object, in this order: defaults (when asked),
// validation, the object's suppressions; then, for an object validation admits and
// a Source, the cross-object checks (CrossChecks, in table order) and the
// references that resolve to nothing. Cross-object warnings are suppressed too.
func (e *Engine) Judge(ctx context.Context, in Input) Verdict {
	var v Verdict
	if in.Default {
		v.Replaced = defaults.Apply(in.Object, in.Kind, e.Settings, in.Request)
	}
	res := validate.Validate(in.Object, in.Kind, e.Settings, in.Request)
	v.Errors, v.Warnings, v.Spec = res.Errors, res.Warnings, res.Spec
	var sups []validate.Suppression
	if in.Suppress {
		var about field.ErrorList
		sups, about = e.suppressions(in.Object, in.Request)
		v.Warnings = append(unsuppressed(sups, v.Warnings), about...)
	}
	if len(v.Errors) > 0 || in.Source == nil || in.Object == nil {
		return v
	}
	errs, warns := e.Cross(ctx, Subject{Object: in.Object, Kind: in.Kind, Spec: v.Spec}, in.Source, false)
	warns = append(warns, references(ctx, in.Object, in.Source, e.Settings)...)
	if in.Suppress {
		warns = unsuppressed(sups, warns)
	}
	v.Errors = append(v.Errors, errs...)
	v.Warnings = append(v.Warnings, warns...)
	return v
}

// Cross runs the cross-object checks that judge s's kind against src, returning
// their findings as errors and warnings. strict says src holds every object there
// is (lint's --strict-references), which makes the findings of checks that rest on
// an object's absence errors.
func (e *Engine) Cross(ctx context.Context, s Subject, src Source, strict bool) (errs, warnings field.ErrorList) {
	if s.Object == nil {
		return nil, nil
	}
	all := e.crossAll(ctx, []Subject{s}, src, strict, true)
	return all[0].Errors, all[0].Warnings
}

// Findings are one subject's cross-object findings.
type Findings struct{ Errors, Warnings field.ErrorList }

// CrossAll is Cross for many subjects against one src (a lint run's group, an
// audit's cluster): each check that judges many at once (RunAll) reads src once.
// The i-th Findings are subjects[i]'s.
func (e *Engine) CrossAll(ctx context.Context, subjects []Subject, src Source, strict bool) []Findings {
	return e.crossAll(ctx, subjects, src, strict, false)
}

// crossAll is CrossAll; admission says one object is judged on its way in
// (Cross, from Judge), which RunAll checks bound their work by.
func (e *Engine) crossAll(ctx context.Context, subjects []Subject, src Source, strict, admission bool) []Findings {
	out := make([]Findings, len(subjects))
	for _, c := range e.Checks {
		var idx []int
		var mine []Subject
		for i, s := range subjects {
			if s.Object != nil && c.judges(s.Object.GroupVersionKind().GroupKind()) {
				idx, mine = append(idx, i), append(mine, s)
			}
		}
		if len(mine) == 0 {
			continue
		}
		var found []field.ErrorList
		if c.RunAll != nil {
			found = c.RunAll(ctx, mine, src, admission)
		} else {
			for _, s := range mine {
				found = append(found, c.Run(ctx, s, src))
			}
		}
		for j, fs := range found {
			f := &out[idx[j]]
			for _, err := range fs {
				if e.Deny[err.Origin] || (c.StrictError && strict) {
					f.Errors = append(f.Errors, err)
				} else {
					f.Warnings = append(f.Warnings, err)
				}
			}
		}
	}
	return out
}

// catalogueSeverity is the severity of every code, built once.
var catalogueSeverity = sync.OnceValue(func() validate.RuleSeverity {
	return validate.SeverityLookup(rules.Catalogue())
})

// CatalogueSeverity is the severity of every code, for reading suppressions: the
// catalogue `meshguard rules` prints, for the webhook and the linter alike.
func CatalogueSeverity() validate.RuleSeverity { return catalogueSeverity() }

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// suppressions reads the object's meshguard.io/ignore annotation once: the
// entries that accept warnings, and the warnings about the annotation itself.
// Those go to every writer except the privileged ones (the mesh's own sync stores
// objects as sent); MG052, naming a code that cannot be suppressed, only when the
// annotation is new or changed, so an apply that does not touch it stays quiet.
func (e *Engine) suppressions(obj *unstructured.Unstructured, req api.Request) (sups []validate.Suppression, about field.ErrorList) {
	if obj == nil {
		return nil, nil
	}
	ann := obj.GetAnnotations()
	value, ok := ann[validate.AnnotationIgnore]
	if !ok {
		return nil, nil
	}
	sups, errs := validate.ObjectSuppressions(ann, CatalogueSeverity(), e.now())
	if req.Privileged {
		return sups, nil
	}
	changed := req.Old == nil || req.Old.GetAnnotations()[validate.AnnotationIgnore] != value
	for _, err := range errs {
		if err.Origin != validate.CodeSuppressRefused || changed {
			about = append(about, err)
		}
	}
	return sups, about
}

// unsuppressed are the warnings no entry of sups accepts; errors are never
// suppressed.
func unsuppressed(sups []validate.Suppression, warnings field.ErrorList) field.ErrorList {
	if len(sups) == 0 {
		return warnings
	}
	kept := make(field.ErrorList, 0, len(warnings))
	for _, w := range warnings {
		if validate.Suppressed(sups, w.Origin, validate.SeverityWarning) == nil {
			kept = append(kept, w)
		}
	}
	return kept
}
