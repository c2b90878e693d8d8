package lint

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

// Defaulted is what the webhook would say about one document `meshguard default`
// prints: the document's object itself is defaulted in place.
type Defaulted struct {
	// Replaced are warnings for the labels the document set that the mutating stage
	// replaced (defaults.CodeLabelReplaced), as the webhook returns them.
	Replaced []Finding
	// Denied lists the distinct codes the validating webhook would deny the object
	// for, in code order; empty when it would be admitted. DeniedAt is the first
	// finding's place: for a rendered object, the file that brought the offending
	// field (an overlay's patch), as lint reports it.
	Denied   []string
	DeniedAt Finding
}

// Default runs the mutating stage on a parsed document (d.Object is changed in
// place) and then the validating webhook's checks as lint runs them: the kinds
// meshguard guards, and the Linkerd annotation of Namespaces and workloads.
func Default(d *Document, o Options) Defaulted {
	var r Defaulted
	kind, replaced := Prepare(d, o)
	r.Replaced = FindingsFor(d, replaced, validate.SeverityWarning)
	var errs field.ErrorList
	if kind != nil {
		errs = validate.Validate(d.Object, kind, o.Settings, api.Request{Operation: api.OpCreate}).Errors
	} else if d.Object != nil {
		errs = validate.DefaultInboundPolicy(d.Object)
	}
	if len(errs) > 0 {
		r.DeniedAt = FindingsFor(d, errs[:1], validate.SeverityError)[0]
		for _, e := range errs {
			if !slices.Contains(r.Denied, e.Origin) {
				r.Denied = append(r.Denied, e.Origin)
			}
		}
		slices.Sort(r.Denied)
	}
	return r
}
