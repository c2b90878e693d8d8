package webhook

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/warnline"
	"github.com/meshguard/meshguard/kumaauthz"
)

// MTPGVK is the kind the preview keeps in its informer cache.
var MTPGVK = api.DefaultRegistry().MeshTrafficPermission().GVK()

// PolicyLister lists the MeshTrafficPermissions the cluster already has, from an
// informer cache; ok=false means the cache is not available (no CRD, not synced).
// The preview does not list them (see PolicyIndex).
type PolicyLister func(ctx context.Context) (items []unstructured.Unstructured, ok bool)

// maxPreviewLines bounds the preview part of the warnings (kumaauthz.AdmissionLines
// chooses what goes in them).
const maxPreviewLines = 6

// preview is the state behind NewPreview's PreviewFunc: the stored policies
// (storedSet: the index and the store of those read so far, keyed by the stored
// objects' uid and resourceVersion, never by the request).
type preview struct {
	set *storedSet
}

// NewPreview returns the PreviewFunc of the validating handler: the incoming policy is
// merged with the stored ones that select the same proxies (the effective RBAC, not
// the policy in isolation), and the groups it takes part in are summarised. The
// `rbac-preview` annotation is compact JSON (kumaauthz.MarshalJSONCompact). index
// finds the stored policies; it must file them under PolicyIndexKeys with
// opts.SystemNamespace.
func NewPreview(index PolicyIndex, opts kumaauthz.Options) PreviewFunc {
	return newPreview(newStoredSet(index, newPreviewCache(opts)))
}

// NewPreviewAndWidening returns NewPreview's and NewWidening's functions reading
// the stored policies through one store, as `meshguard serve` does: each stored
// object is read once for both, and in a request that calls both (with
// WithRequestScope's context, as Handlers.Validate does) the incoming policy and
// the stored ones related to it are found once.
func NewPreviewAndWidening(index PolicyIndex, linkerd LinkerdSource, opts kumaauthz.Options) (PreviewFunc, WideningFunc) {
	return NewPreviewAndWideningWithIdentities(index, linkerd, opts, nil)
}

// NewPreviewAndWideningWithIdentities is NewPreviewAndWidening that also reads
// the stored MeshIdentities (identities may be nil): the preview and the
// widening check then program the proxies a Ready MeshIdentity selects with
// `rules` policies only, as Kuma 2.14 does.
func NewPreviewAndWideningWithIdentities(index PolicyIndex, linkerd LinkerdSource, opts kumaauthz.Options, identities IdentitySource) (PreviewFunc, WideningFunc) {
	set := newStoredSet(index, newPreviewCache(opts))
	set.identities = identities
	return newPreview(set), newWidening(set, linkerd)
}

// newPreview is NewPreview reading stored policies through set, which the
// server shares with the widening check.
func newPreview(set *storedSet) PreviewFunc {
	p := &preview{set: set}
	return p.answer
}

// answer is the PreviewFunc: the incoming policy merged with the stored set.
func (p *preview) answer(ctx context.Context, obj *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) ([]string, string) {
	r := p.set.related(ctx, obj, spec)
	if r.err != nil {
		return errorLine(r.err), ""
	}
	return p.compute(r)
}

// incomingPolicy is the policy of the incoming object, from the spec validation
// decoded when there is one.
func incomingPolicy(obj *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) (kumaauthz.Policy, error) {
	if spec != nil {
		return kumaauthz.PolicyFromSpec(obj, spec)
	}
	return kumaauthz.PolicyFromObject(obj)
}

// compute builds the answer from scratch (apart from previewCache's reuse of stored
// policies): the incoming policy with the stored ones that share a group with it
// (r, from kumaauthz.Related; the incoming object replaces its stored version on
// UPDATE).
func (p *preview) compute(r *related) ([]string, string) {
	incoming, policies, listed := r.incoming, r.policies, r.listed
	if !listed {
		policies = policies[:1]
	}
	visible := p.visibleFrom(incoming.Namespace)
	opts := p.set.read.opts
	opts.Identities = r.identities
	previews, err := kumaauthz.BuildPreviews(policies, opts)
	if err != nil {
		return errorLine(redactError(err, policies, visible)), ""
	}
	mine := previews[:0]
	incomingRef := incoming.Ref()
	for _, pv := range previews {
		for _, ref := range pv.Policies {
			if ref == incomingRef {
				mine = append(mine, pv)
				break
			}
		}
	}
	// Only names change: the groups are compiled with every stored policy.
	mine = kumaauthz.Redact(mine, visible)
	full, err := kumaauthz.MarshalJSONCompactString(mine)
	if err != nil {
		full = ""
	}
	ann, bounded := boundAnnotation(mine, full)
	var lines []string
	if !listed {
		lines = append(lines, "rbac-preview: stored MeshTrafficPermissions unavailable; showing this policy alone")
	}
	if bounded != "" {
		lines = append(lines, bounded)
	}
	return append(lines, kumaauthz.AdmissionLines(mine, incomingRef, maxPreviewLines-len(lines))...), ann
}

// errorLine is the warning for a preview that could not be built: the error's
// names are kept whole (or visibly elided) like the preview's.
func errorLine(err error) []string {
	return []string{warnline.Text("rbac-preview: "+err.Error(), MaxWarningLen, "(see `meshguard preview`)")}
}

// visibleFrom is which namespaces' policies the preview of a policy in namespace
// ns names: ns itself and the system namespace, whose policies apply mesh-wide.
// The user who writes in ns may not be allowed to read the others; the preview
// counts them instead (kumaauthz.Redact).
func (p *preview) visibleFrom(ns string) func(string) bool {
	return func(other string) bool { return other == ns || other == p.set.read.sysNS }
}

// redactError is err's text with the stored policies of other namespaces unnamed.
func redactError(err error, policies []kumaauthz.Policy, visible func(string) bool) error {
	refs := make([]string, len(policies))
	for i, pol := range policies {
		refs[i] = pol.Ref()
	}
	return errors.New(kumaauthz.RedactText(err.Error(), refs, visible))
}
