package validate

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// unknown reports a field the kind's CRD does not declare (MG001) at p, with the
// hint api.UnknownFieldHint gives, in the way the door asked for
// (Settings.UnknownFields): an error where kubectl apply's strict field validation
// refuses the object, a warning where the API server prunes the field (the
// webhook's case), nothing when ignored. The message starts as the API server's
// does, with the whole path: unknown field "spec.to[0].default.idleTimeot".
func (v *validator) unknown(p *field.Path, hint string) {
	how := v.s.UnknownFields
	if how == api.UnknownFieldsIgnore {
		return
	}
	if v.req.Universal { // Kuma's REST decoding drops it: accepted, and lost
		msg := `unknown field "` + p.String() + `": Kuma's Universal control plane accepts the document and drops the field`
		if hint != "" {
			msg += "; " + hint
		}
		v.warn(api.UnknownField(p, msg), api.CodeUnknownField)
		return
	}
	e := api.UnknownField(p, unknownMessage(p.String(), hint, how))
	if how == api.UnknownFieldsError {
		v.err(e, api.CodeUnknownField)
		return
	}
	v.warn(e, api.CodeUnknownField)
}

// unknownMessage words MG001 for the door: what happens to the object, then the
// hint. The error names the whole path, as kubectl apply's strict decoding error
// does; the warning, which the webhook returns within the API server's 120
// characters a warning line keeps after the code and path, names the key only, so
// that the suggestion fits.
func unknownMessage(path, hint string, how api.UnknownFieldMode) string {
	var b strings.Builder
	if how == api.UnknownFieldsError {
		b.WriteString(`unknown field "` + path + `": `)
		b.WriteString("kubectl apply refuses the object (strict field validation; --unknown-fields=warn where your tool prunes instead)")
	} else {
		b.WriteString(`unknown field "` + lastStep(path) + `": the API server drops it`)
	}
	if hint != "" {
		b.WriteString("; " + hint)
	}
	return b.String()
}

// structuralFindings adds what the hand-written structural check found: its type
// errors as they are, its unknown fields through unknown.
func (v *validator) structuralFindings(cr api.CheckResult) {
	v.res.Errors = append(v.res.Errors, cr.Errors...)
	for _, w := range cr.Warnings {
		if w.Origin != api.CodeUnknownField {
			v.res.Warnings = append(v.res.Warnings, w)
			continue
		}
		p := pathOf(w.Field)
		v.unknown(p, w.Detail)
	}
}

// lastStep is the key a path ends with: "idleTimeot" of
// "spec.to[0].default.idleTimeot".
func lastStep(path string) string {
	_, key := splitLast(path)
	return key
}
