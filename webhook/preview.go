package webhook

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/compile"
)

// MTPGVK is the kind the preview keeps in its informer cache.
var MTPGVK = schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTrafficPermission"}

// PolicyLister lists the MeshTrafficPermissions the cluster already has. The server
// backs it with a controller-runtime informer cache, so the request path never calls
// the API server; ok=false means the cache is not available (no CRD, not synced).
type PolicyLister func(ctx context.Context) (items []unstructured.Unstructured, ok bool)

// maxPreviewLines bounds the preview part of the warnings.
const maxPreviewLines = 6

// NewPreview returns the PreviewFunc of the validating handler: the incoming policy is
// merged with the stored ones that select the same proxies (the effective RBAC, not
// the policy in isolation), and the groups it takes part in are summarised.
func NewPreview(list PolicyLister, opts compile.Options) PreviewFunc {
	c := newPreviewCache(opts)
	return func(ctx context.Context, obj *unstructured.Unstructured) ([]string, string) {
		incoming, err := compile.PolicyFromObject(obj)
		if err != nil {
			return []string{"rbac-preview: " + err.Error()}, ""
		}
		stored, ok := list(ctx)
		// The incoming object replaces its stored version (UPDATE).
		others, fingerprint := c.policies(stored, obj.GetNamespace(), obj.GetName())
		policies := append([]compile.Policy{incoming}, others...)
		previews, err := c.build(policies, fingerprint)
		if err != nil {
			return []string{"rbac-preview: " + err.Error()}, ""
		}
		mine := previews[:0]
		for _, pv := range previews {
			for _, ref := range pv.Policies {
				if ref == incoming.Ref() {
					mine = append(mine, pv)
					break
				}
			}
		}
		var lines []string
		if !ok {
			lines = append(lines, "rbac-preview: stored MeshTrafficPermissions unavailable; showing this policy alone")
		}
		for _, pv := range mine {
			lines = append(lines, compile.Summary(pv)...)
		}
		if len(lines) > maxPreviewLines {
			more := len(lines) - maxPreviewLines + 1
			lines = append(lines[:maxPreviewLines-1], fmt.Sprintf("rbac-preview: %d more lines in the rbac-preview audit annotation", more))
		}
		ann, err := compile.MarshalJSON(mine)
		if err != nil {
			return lines, ""
		}
		return lines, string(ann)
	}
}
