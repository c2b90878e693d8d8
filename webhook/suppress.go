package webhook

import (
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/rules"
	"github.com/meshguard/meshguard/validate"
)

// catalogueSeverity is the severity of every code, for reading suppressions:
// the same catalogue `meshguard rules` and the linter read.
var catalogueSeverity = sync.OnceValue(func() validate.RuleSeverity {
	return validate.SeverityLookup(rules.Catalogue())
})

// suppressions applies the object's meshguard.io/ignore annotation to the
// warnings of one request: it returns the warnings no entry accepts (a
// suppressed warning is not returned, as the linter does not count it), and the
// warnings about the annotation itself. Those go to every writer except the
// privileged ones (the mesh's own sync stores objects as sent); MG052, naming a
// code that cannot be suppressed, only when the annotation is new or changed, so
// an apply that does not touch it stays quiet. Errors are never suppressed.
func (e *Handlers) suppressions(obj, old *unstructured.Unstructured, privileged bool, warnings field.ErrorList) (kept, about field.ErrorList) {
	ann := obj.GetAnnotations()
	value, ok := ann[validate.AnnotationIgnore]
	if !ok {
		return warnings, nil
	}
	sups, errs := validate.ObjectSuppressions(ann, catalogueSeverity(), e.now())
	kept = warnings
	if len(sups) > 0 {
		kept = make(field.ErrorList, 0, len(warnings))
		for _, w := range warnings {
			if validate.Suppressed(sups, w.Origin, validate.SeverityWarning) == nil {
				kept = append(kept, w)
			}
		}
	}
	if privileged {
		return kept, nil
	}
	changed := old == nil || old.GetAnnotations()[validate.AnnotationIgnore] != value
	for _, err := range errs {
		if err.Origin != validate.CodeSuppressRefused || changed {
			about = append(about, err)
		}
	}
	return kept, about
}

func (e *Handlers) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// withoutSuppressed is suppressions for the places that only filter.
func (e *Handlers) withoutSuppressed(obj *unstructured.Unstructured, warnings field.ErrorList) field.ErrorList {
	kept, _ := e.suppressions(obj, nil, true, slices.Clip(warnings))
	return kept
}
