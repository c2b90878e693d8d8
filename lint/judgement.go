package lint

import (
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

// judgement is what the engine makes of one document's object, computed once for
// the documents of a diff's two sides that share the object (LoadPair): the
// defaulted object and its kind, and its validation as a user creates it and as
// the document arrives (Options.request). Nil on every other Document, which is
// judged where it is used.
type judgement struct {
	prep     sync.Once
	kind     *api.Kind
	replaced field.ErrorList
	created  validation
	arrived  validation
}

// validation is one validation of a shared object, taken once.
type validation struct {
	once sync.Once
	res  validate.Result
}

// prepare is Prepare, once per shared object.
func (d *Document) prepare(o Options) (*api.Kind, field.ErrorList) {
	v := d.shared
	if v == nil {
		return Prepare(d, o)
	}
	v.prep.Do(func() { v.kind, v.replaced = Prepare(d, o) })
	return v.kind, v.replaced
}

// validateCreated validates the prepared object as a user's create request, once
// per shared object.
func (d *Document) validateCreated(kind *api.Kind, o Options) validate.Result {
	req := api.Request{Operation: api.OpCreate}
	if d.shared == nil {
		return validate.Validate(d.Object, kind, o.Settings, req)
	}
	c := &d.shared.created
	c.once.Do(func() { c.res = validate.Validate(d.Object, kind, o.Settings, req) })
	return c.res
}

// validateArrived validates the prepared object as the document arrives
// (Options.request), once per shared object.
func (d *Document) validateArrived(kind *api.Kind, o Options) validate.Result {
	if d.shared == nil {
		return validate.Validate(d.Object, kind, o.Settings, o.request(d))
	}
	a := &d.shared.arrived
	a.once.Do(func() { a.res = validate.Validate(d.Object, kind, o.Settings, o.request(d)) })
	return a.res
}

// judged is one document's kind (nil: not a guarded kind, or no object) and,
// when checked, its validation.
type judged struct {
	kind    *api.Kind
	res     validate.Result
	checked bool
}

// judging says which documents judgeAll prepares (nil: every readable one)
// and which of those it validates, as they arrive (Options.request) or as a
// user's create request.
type judging struct {
	prepare func(*Document) bool
	check   func(*Document, *api.Kind) bool
	arrived bool
}

// judgeAll prepares and validates documents as j says, on every core:
// documents are independent until their results are put together, which the
// caller does in document order from the answers, so the order of the work
// changes nothing.
func judgeAll(docs []Document, o Options, j judging) []judged {
	out := make([]judged, len(docs))
	parallel(len(docs), func(i int) {
		d := &docs[i]
		if d.Err != nil || d.Object == nil || (j.prepare != nil && !j.prepare(d)) {
			return
		}
		kind, _ := d.prepare(o)
		out[i].kind = kind
		if kind == nil || !j.check(d, kind) {
			return
		}
		if j.arrived {
			out[i].res = d.validateArrived(kind, o)
		} else {
			out[i].res = d.validateCreated(kind, o)
		}
		out[i].checked = true
	})
	return out
}
