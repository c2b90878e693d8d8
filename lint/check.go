package lint

import (
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/validate"
)

// CheckInput is what `meshguard check` reads from the documents: the Kuma
// policies that configure one proxy, or the Linkerd objects, chosen as Preview
// chooses them (defaulted, without the objects the validating webhook would
// deny), with the document each policy came from.
type CheckInput struct {
	PreviewInput
	// Docs are the documents of Policies, index for index.
	Docs []*Document
}

// KumaCheckInput is Preview's Kuma half narrowed to the policies keep selects.
// Every MeshTrafficPermission is defaulted and decoded, but only those keep
// selects are validated, then decoded again from the spec validation stored (as
// Preview does) and kept when keep still selects them: validation is the
// costly step, and whether the webhook would admit a policy that does not
// configure the proxy changes nothing. Notes cover unreadable documents and the
// selected policies that are skipped.
func KumaCheckInput(docs []Document, o Options, keep func(kumaauthz.Policy) bool) CheckInput {
	var in CheckInput
	type candidate struct {
		d        *Document
		kind     *api.Kind
		p        kumaauthz.Policy
		selected bool
		at       placed
		note     []Note
	}
	var cands []candidate
	copies := map[ObjectID]int{}
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			in.Unreadable = true
			note(&in.Notes, d, max(d.ErrLine, d.Line, 1), "error %s: %v", validate.CodeParse, d.Err)
			continue
		}
		if d.Object != nil && d.Object.GetKind() == api.KindMeshIdentity {
			if kind, _ := Prepare(d, o); kind != nil && kind.Kind == api.KindMeshIdentity {
				in.addIdentity(d, d.validateCreated(kind, o))
			}
			continue
		}
		if d.Object == nil || d.Object.GetKind() != api.KindMeshTrafficPermission {
			continue
		}
		kind, _ := Prepare(d, o)
		if kind == nil || kind.Kind != api.KindMeshTrafficPermission {
			continue
		}
		c := candidate{d: d, kind: kind, at: placeOf(d, o, false)}
		copies[c.at.id]++
		cands = append(cands, c)
	}
	// A policy keep does not select still counts when it has another copy: the
	// cluster keeps the last copy it admits, selected or not.
	sel := cands[:0]
	for _, c := range cands {
		if p, err := kumaauthz.PolicyHeader(c.d.Object); err != nil || keep(p) || copies[c.at.id] > 1 {
			sel = append(sel, c)
		}
	}
	cands = sel
	// Validation is independent per document: in parallel, kept in input order.
	parallel(len(cands), func(i int) {
		c := &cands[i]
		res := c.d.validateCreated(c.kind, o)
		if !admissible(c.d, res, &c.note) {
			c.at.denied = true
			return
		}
		spec, _ := res.Spec.(*api.MeshTrafficPermissionSpec)
		p, err := kumaauthz.PolicyFromSpec(c.d.Object, spec)
		if err != nil {
			c.at.denied = true
			note(&c.note, c.d, c.d.Line, "skipped: %v", err)
			return
		}
		c.p, c.selected = p, keep(p)
	})
	places := make([]placed, len(cands))
	for i, c := range cands {
		places[i] = c.at
	}
	replaced := supersededBy(places)
	for i, c := range cands {
		if j := replaced[i]; j >= 0 {
			if c.selected {
				noteReplaced(&c.note, c.d, places[j])
			}
			c.selected = false
		}
		in.Notes = append(in.Notes, c.note...)
		if c.selected {
			in.Policies = append(in.Policies, c.p)
			in.Docs = append(in.Docs, c.d)
		}
	}
	return in
}

// LinkerdCheckInput is Preview's Linkerd half: the policy.linkerd.io objects the
// webhook would admit, with the routes, Namespaces and workloads they need.
func LinkerdCheckInput(docs []Document, o Options) CheckInput {
	var in CheckInput
	for i := range docs {
		if d := &docs[i]; d.Err != nil {
			in.Unreadable = true
			note(&in.Notes, d, max(d.ErrLine, d.Line, 1), "error %s: %v", validate.CodeParse, d.Err)
		}
	}
	in.linkerdObjects(docs, nil, o)
	return in
}

// ParseNotes are the notes on the documents that could not be parsed, which
// `meshguard check` refuses to answer without: a policy it cannot read could be
// the one that decides.
func ParseNotes(docs []Document) []Note {
	var out []Note
	for i := range docs {
		if d := &docs[i]; d.Err != nil {
			note(&out, d, max(d.ErrLine, d.Line, 1), "error %s: %v", validate.CodeParse, d.Err)
		}
	}
	return out
}
