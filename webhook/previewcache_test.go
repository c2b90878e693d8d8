package webhook_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/compile"
	"github.com/meshguard/meshguard/hack/loadgen/loadtest"
	"github.com/meshguard/meshguard/internal/warnline"
	"github.com/meshguard/meshguard/webhook"
)

// referencePreview is the preview without any cache: every stored policy is read
// and every group compiled on each call.
func referencePreview(list webhook.PolicyLister, opts compile.Options) webhook.PreviewFunc {
	return func(ctx context.Context, obj *unstructured.Unstructured, _ *api.MeshTrafficPermissionSpec) ([]string, string) {
		incoming, err := compile.PolicyFromObject(obj)
		if err != nil {
			return []string{warnline.Text("rbac-preview: "+err.Error(), webhook.MaxWarningLen, "(see `meshguard preview`)")}, ""
		}
		policies := []compile.Policy{incoming}
		stored, _ := list(ctx)
		for i := range stored {
			u := &stored[i]
			if u.GetNamespace() == obj.GetNamespace() && u.GetName() == obj.GetName() {
				continue
			}
			if p, err := compile.PolicyFromObject(u); err == nil {
				policies = append(policies, p)
			}
		}
		previews, err := compile.BuildPreviews(policies, opts)
		if err != nil {
			return []string{warnline.Text("rbac-preview: "+err.Error(), webhook.MaxWarningLen, "(see `meshguard preview`)")}, ""
		}
		var mine []compile.Preview
		for _, pv := range previews {
			for _, ref := range pv.Policies {
				if ref == incoming.Ref() {
					mine = append(mine, pv)
					break
				}
			}
		}
		// Policies of other namespaces than the incoming one's and the system
		// namespace are counted, not named.
		mine = compile.Redact(mine, func(ns string) bool { return ns == incoming.Namespace || ns == api.DefaultSystemNS })
		ann, _ := compile.MarshalJSONCompact(mine)
		return compile.AdmissionLines(mine, incoming.Ref(), 6), string(ann)
	}
}

// previewCases are incoming policies: new ones of several target kinds, and every
// stored policy again (an UPDATE replacing itself), with a changed spec.
func previewCases(stored []unstructured.Unstructured) []*unstructured.Unstructured {
	in := &unstructured.Unstructured{Object: loadtest.IncomingPolicy()}
	out := []*unstructured.Unstructured{in}
	for i, target := range []map[string]any{
		{"kind": "Mesh"},
		{"kind": "Dataplane", "labels": map[string]any{"app": "orders", "version": "v2"}},
		{"kind": "MeshService", "name": "payments"},
		{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/zone": "east"}},
	} {
		u := in.DeepCopy()
		u.SetName(fmt.Sprintf("case-%d", i))
		_ = unstructured.SetNestedField(u.Object, target, "spec", "targetRef")
		out = append(out, u)
	}
	for i := range stored {
		u := stored[i].DeepCopy()
		_ = unstructured.SetNestedField(u.Object, "Deny", "spec", "from", "0", "default", "action")
		from, _, _ := unstructured.NestedSlice(u.Object, "spec", "from")
		from[0].(map[string]any)["default"] = map[string]any{"action": "Deny"}
		_ = unstructured.SetNestedSlice(u.Object, from, "spec", "from")
		out = append(out, u)
	}
	return out
}

func TestPreviewCacheMatchesReference(t *testing.T) {
	stored := loadtest.StoredPolicies()
	pristine := make([]unstructured.Unstructured, len(stored))
	for i := range stored {
		stored[i].DeepCopyInto(&pristine[i])
	}
	// A second cluster state: one policy rewritten under a new resourceVersion, and
	// one without uid/resourceVersion (not cacheable).
	changed := make([]unstructured.Unstructured, len(stored))
	for i := range stored {
		stored[i].DeepCopyInto(&changed[i])
	}
	_ = unstructured.SetNestedField(changed[2].Object, map[string]any{"kind": "Mesh"}, "spec", "targetRef")
	changed[2].SetResourceVersion("200000")
	changed[5].SetUID("")
	// A third: the same rewrite alone, so that the set keeps a version and answers
	// are cached (the result cache must not serve the first state's answers).
	rewritten := make([]unstructured.Unstructured, len(stored))
	for i := range stored {
		stored[i].DeepCopyInto(&rewritten[i])
	}
	changed[2].DeepCopyInto(&rewritten[2])

	opts := compile.Options{Form: compile.FormExpanded, MaxExpandedRules: 64}
	state := &stored
	var mu sync.Mutex
	list := func(context.Context) ([]unstructured.Unstructured, bool) {
		mu.Lock()
		defer mu.Unlock()
		return *state, true
	}
	cached, ref := webhook.NewPreview(list, opts), referencePreview(list, opts)
	for round, st := range []*[]unstructured.Unstructured{&stored, &changed, &rewritten, &stored, &rewritten} {
		mu.Lock()
		state = st
		mu.Unlock()
		for _, in := range previewCases(*st) {
			wantLines, wantAnn := ref(context.Background(), in, nil)
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					gotLines, gotAnn := cached(context.Background(), in.DeepCopy(), nil)
					if gotAnn != wantAnn || !reflect.DeepEqual(gotLines, wantLines) {
						t.Errorf("round %d, %s/%s: preview differs from the uncached one\ngot  %q\nwant %q",
							round, in.GetNamespace(), in.GetName(), gotLines, wantLines)
					}
				})
			}
			wg.Wait()
		}
	}
	if !reflect.DeepEqual(stored, pristine) {
		t.Error("the preview modified the stored objects")
	}
}
