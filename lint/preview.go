package lint

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/validate"
)

// Note is a line about one document that a preview left out: the door prints it as
// "file:line: text" on standard error, in the order the notes come.
type Note struct {
	File string
	Line int
	Text string
}

// PreviewInput is what `meshguard preview` compiles, chosen from the documents the
// way a cluster would see them: defaulted as the mutating webhook would and without
// the objects the validating webhook would deny (they never reach a proxy).
type PreviewInput struct {
	// Policies are the admissible MeshTrafficPermissions, in document order.
	Policies []kumaauthz.Policy
	// Identities are the admissible MeshIdentities: a proxy one of them gives an
	// identity is programmed with `rules` policies only.
	Identities []kumaauthz.Identity
	// Linkerd are the objects the Linkerd authorization preview reads.
	Linkerd []unstructured.Unstructured
	// Notes say which documents were unreadable or skipped as Kuma policies, in
	// document order; LinkerdNotes the Linkerd objects skipped.
	Notes, LinkerdNotes []Note
	// Unreadable is true when a document could not be parsed.
	Unreadable bool
}

// Preview selects the preview's input from docs (which it defaults in place).
func Preview(docs []Document, o Options) PreviewInput {
	var in PreviewInput
	// Every document is defaulted; the labels that replaces are lint's and
	// default's to report.
	judged := judgeAll(docs, o, judging{check: previewed})
	in.kumaPolicies(docs, judged, o)
	in.linkerdObjects(docs, judged, o)
	return in
}

// previewed reports whether a preview reads a document of kind only if the
// webhook would admit it: MeshTrafficPermissions, MeshIdentities and the
// objects of policy.linkerd.io.
func previewed(d *Document, kind *api.Kind) bool {
	return kind.Kind == api.KindMeshTrafficPermission || kind.Kind == api.KindMeshIdentity ||
		d.Object.GroupVersionKind().Group == api.LinkerdGroup
}

func note(to *[]Note, d *Document, line int, format string, a ...any) {
	*to = append(*to, Note{File: d.File, Line: line, Text: fmt.Sprintf(format, a...)})
}

// kumaPolicies keeps the admissible MeshTrafficPermissions and MeshIdentities of
// the documents (defaulted and validated: judged).
func (in *PreviewInput) kumaPolicies(docs []Document, judged []judged, o Options) {
	var from []*Document
	var places []placed
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			in.Unreadable = true
			note(&in.Notes, d, max(d.ErrLine, d.Line, 1), "error %s: %v", validate.CodeParse, d.Err)
			continue
		}
		kind, res := judged[i].kind, judged[i].res
		if kind != nil && kind.Kind == api.KindMeshIdentity {
			in.addIdentity(d, res)
			continue
		}
		if kind == nil || kind.Kind != api.KindMeshTrafficPermission {
			continue
		}
		if !admissible(d, res, &in.Notes) {
			continue
		}
		// The spec validation read is the one Kuma stores (without the fields its
		// CRD drops), so the preview compiles what Kuma programs.
		spec, _ := res.Spec.(*api.MeshTrafficPermissionSpec)
		p, err := kumaauthz.PolicyFromSpec(d.Object, spec)
		if err != nil {
			note(&in.Notes, d, d.Line, "skipped: %v", err)
			continue
		}
		in.Policies = append(in.Policies, p)
		from = append(from, d)
		places = append(places, placeOf(d, o, false))
	}
	in.Policies = keepLast(in.Policies, from, places, &in.Notes)
}

// keepLast drops the items (admitted objects, from docs at places) that a later
// copy of the same object replaces in a cluster, with a note on each.
func keepLast[T any](items []T, docs []*Document, places []placed, notes *[]Note) []T {
	replaced := supersededBy(places)
	out := items[:0]
	for i, item := range items {
		if j := replaced[i]; j >= 0 {
			noteReplaced(notes, docs[i], places[j])
			continue
		}
		out = append(out, item)
	}
	return out
}

// noteReplaced says that d is left out because the copy at later replaces it.
func noteReplaced(notes *[]Note, d *Document, later placed) {
	note(notes, d, d.Line, "skipped %s: defined again at %s:%d, the copy the cluster keeps (%s)",
		later.id, later.file, max(later.line, 1), validate.CodeDuplicate)
}

// addIdentity keeps a MeshIdentity the webhook would admit.
func (in *PreviewInput) addIdentity(d *Document, res validate.Result) {
	if !admissible(d, res, &in.Notes) {
		return
	}
	id, err := kumaauthz.IdentityFromObject(d.Object)
	if err != nil {
		note(&in.Notes, d, d.Line, "skipped: %v", err)
		return
	}
	in.Identities = append(in.Identities, id)
}

// admissible reports whether the webhook would admit a defaulted document, whose
// validation as a user's create request is res; a denied one never reaches a
// proxy, so previews skip it with a note.
func admissible(d *Document, res validate.Result, notes *[]Note) bool {
	if len(res.Errors) == 0 {
		return true
	}
	e := res.Errors[0]
	note(notes, d, d.Line, "skipped %s/%s: the webhook would deny it (%s %s: %s)",
		d.Object.GetNamespace(), d.Object.GetName(), e.Origin, e.Field, e.Detail)
	return false
}

// linkerdObjects keeps the documents the Linkerd preview reads: policy.linkerd.io
// objects the webhook would admit (a denied one never reaches the policy controller,
// so it is skipped with a note, as for Kuma), plus the Gateway API routes,
// Namespaces and workloads that give parents and default-policy annotations.
// Namespaced objects without a namespace get the one they would get on apply.
// judged holds the validations Preview took already; nil when none were.
func (in *PreviewInput) linkerdObjects(docs []Document, judged []judged, o Options) {
	var from []*Document
	var places []placed
	defer func() { in.Linkerd = keepLast(in.Linkerd, from, places, &in.LinkerdNotes) }()
	for i := range docs {
		d := &docs[i]
		if d.Err != nil || d.Object == nil {
			continue
		}
		gvk := d.Object.GroupVersionKind()
		if gvk.Group == api.LinkerdGroup {
			if kind := o.Registry.Lookup(gvk); kind != nil && !admissible(d, createdResult(d, kind, judged, i, o), &in.LinkerdNotes) {
				continue
			}
		} else if !linkerdContext(gvk.Group, gvk.Kind) {
			continue
		}
		obj := d.Object.DeepCopy()
		if obj.GetNamespace() == "" && gvk.Kind != api.KindNamespace {
			obj.SetNamespace(o.Namespace)
		}
		in.Linkerd = append(in.Linkerd, *obj)
		from = append(from, d)
		places = append(places, placeOf(d, o, false))
	}
}

// createdResult is the validation of d (docs[i]) of kind as a user's create
// request: judged's answer when Preview judged the documents, taken now otherwise.
func createdResult(d *Document, kind *api.Kind, judged []judged, i int, o Options) validate.Result {
	if judged != nil && judged[i].checked {
		return judged[i].res
	}
	return d.validateCreated(kind, o)
}

// linkerdContext reports whether an object outside policy.linkerd.io matters to the
// Linkerd preview: Gateway API routes (parents of authorizations), core Namespaces,
// Pods and ReplicationControllers, and anything of the apps and batch groups.
func linkerdContext(group, kind string) bool {
	switch group {
	case api.GatewayGroup:
		return kind == api.KindHTTPRoute || kind == api.KindGRPCRoute
	case "":
		return kind == api.KindNamespace || kind == api.KindPod || kind == api.KindReplicationController
	case "apps", "batch":
		return true
	}
	return false
}
