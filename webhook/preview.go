package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/compile"
	"github.com/meshguard/meshguard/internal/warnline"
)

// MTPGVK is the kind the preview keeps in its informer cache.
var MTPGVK = api.DefaultRegistry().MeshTrafficPermission().GVK()

// PolicyLister lists the MeshTrafficPermissions the cluster already has, from an
// informer cache; ok=false means the cache is not available (no CRD, not synced).
// The preview does not list them (see PolicyIndex).
type PolicyLister func(ctx context.Context) (items []unstructured.Unstructured, ok bool)

// maxPreviewLines bounds the preview part of the warnings (compile.AdmissionLines
// chooses what goes in them).
const maxPreviewLines = 6

// preview is the state behind NewPreview's PreviewFunc: the index of stored
// policies and those read so far (previewCache, keyed by the stored objects' uid
// and resourceVersion, never by the request).
type preview struct {
	index  PolicyIndex
	stored *previewCache
}

// NewPreview returns the PreviewFunc of the validating handler: the incoming policy is
// merged with the stored ones that select the same proxies (the effective RBAC, not
// the policy in isolation), and the groups it takes part in are summarised. The
// `rbac-preview` annotation is compact JSON (compile.MarshalJSONCompact). index
// finds the stored policies; it must file them under PolicyIndexKeys with
// opts.SystemNamespace.
func NewPreview(index PolicyIndex, opts compile.Options) PreviewFunc {
	p := &preview{index: index, stored: newPreviewCache(opts)}
	return p.answer
}

// answer is the PreviewFunc: the incoming policy merged with the stored set.
func (p *preview) answer(ctx context.Context, obj *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) ([]string, string) {
	incoming, err := incomingPolicy(obj, spec)
	if err != nil {
		return errorLine(err), ""
	}
	return p.compute(ctx, incoming)
}

// incomingPolicy is the policy of the incoming object, from the spec validation
// decoded when there is one.
func incomingPolicy(obj *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) (compile.Policy, error) {
	if spec != nil {
		return compile.PolicyFromSpec(obj, spec)
	}
	return compile.PolicyFromObject(obj)
}

// compute builds the answer from scratch (apart from previewCache's reuse of stored
// policies): the incoming policy with the stored ones that share a group with it
// (compile.Related; the incoming object replaces its stored version on UPDATE).
func (p *preview) compute(ctx context.Context, incoming compile.Policy) ([]string, string) {
	listed := true
	policies := compile.Related(incoming, p.stored.sysNS, func(key string) []compile.Stored {
		items, ok := p.index(ctx, key)
		if !ok {
			listed = false
			return nil
		}
		return p.stored.read(items)
	})
	if !listed {
		policies = policies[:1]
	}
	previews, err := compile.BuildPreviews(policies, p.stored.opts)
	if err != nil {
		return errorLine(err), ""
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
	full, err := compile.MarshalJSONCompact(mine)
	if err != nil {
		full = nil
	}
	ann, bounded := boundAnnotation(mine, full)
	var lines []string
	if !listed {
		lines = append(lines, "rbac-preview: stored MeshTrafficPermissions unavailable; showing this policy alone")
	}
	if bounded != "" {
		lines = append(lines, bounded)
	}
	return append(lines, compile.AdmissionLines(mine, incomingRef, maxPreviewLines-len(lines))...), ann
}

// errorLine is the warning for a preview that could not be built: the error's
// names are kept whole (or visibly elided) like the preview's.
func errorLine(err error) []string {
	return []string{warnline.Text("rbac-preview: "+err.Error(), MaxWarningLen, "(see `meshguard preview`)")}
}
