package webhook_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/warnline"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/webhook"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// referencePreview is the preview without any cache or index: every stored policy
// is read and every group compiled on each call.
func referencePreview(list webhook.PolicyLister, opts kumaauthz.Options) webhook.PreviewFunc {
	return func(ctx context.Context, obj *unstructured.Unstructured, _ *api.MeshTrafficPermissionSpec) ([]string, string) {
		incoming, err := kumaauthz.PolicyFromObject(obj)
		if err != nil {
			return []string{warnline.Text("rbac-preview: "+err.Error(), webhook.MaxWarningLen, "(see `meshguard preview`)")}, ""
		}
		policies := []kumaauthz.Policy{incoming}
		stored, _ := list(ctx)
		for i := range stored {
			u := &stored[i]
			if u.GetNamespace() == obj.GetNamespace() && u.GetName() == obj.GetName() {
				continue
			}
			if p, err := kumaauthz.PolicyFromObject(u); err == nil {
				policies = append(policies, p)
			}
		}
		previews, err := kumaauthz.BuildPreviews(policies, opts)
		if err != nil {
			return []string{warnline.Text("rbac-preview: "+err.Error(), webhook.MaxWarningLen, "(see `meshguard preview`)")}, ""
		}
		var mine []kumaauthz.Preview
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
		sysNS := opts.SystemNamespace
		if sysNS == "" {
			sysNS = api.DefaultSystemNS
		}
		mine = kumaauthz.Redact(mine, func(ns string) bool { return ns == incoming.Namespace || ns == sysNS })
		ann, _ := kumaauthz.MarshalJSONCompact(mine)
		return kumaauthz.AdmissionLines(mine, incoming.Ref(), 6), string(ann)
	}
}

// previewCases are incoming policies: new ones of several target kinds, and every
// stored policy again (an UPDATE replacing itself), with a changed spec.
func previewCases(stored []unstructured.Unstructured) []*unstructured.Unstructured {
	in := &unstructured.Unstructured{Object: webhooktest.IncomingPolicy()}
	out := []*unstructured.Unstructured{in}
	for i, target := range []map[string]any{
		{"kind": "Mesh"},
		{"kind": "Dataplane", "labels": map[string]any{"app": "orders", "version": "v2"}},
		{"kind": "MeshService", "name": "payments"},
		{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/zone": "east"}},
		{"kind": "Dataplane", "name": "backend-7f9c", "sectionName": "http"},
		{"kind": "MeshServiceSubset", "name": "payments", "tags": map[string]any{"version": "v2"}},
		{"kind": "MeshHTTPRoute", "name": "checkout"},
		{"kind": "Dataplane"},
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

// moreShapes are stored policies of the target kinds, roles, origins and
// namespaces the fixture cluster lacks, so that the index is exercised on every
// way Kuma scopes a target.
func moreShapes() []unstructured.Unstructured {
	mk := func(ns, name string, labels map[string]any, target map[string]any) unstructured.Unstructured {
		labels["kuma.io/mesh"] = "default"
		return unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
			"metadata": map[string]any{"name": name, "namespace": ns, "uid": "uid-" + ns + "-" + name, "resourceVersion": "7", "labels": labels},
			"spec": map[string]any{"targetRef": target, "from": []any{map[string]any{
				"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": name + "-caller"}},
				"default":   map[string]any{"action": "Allow"}}}},
		}}
	}
	owner := func() map[string]any { return map[string]any{"kuma.io/policy-role": "workload-owner"} }
	return []unstructured.Unstructured{
		mk("backend-ns", "ns-wide", owner(), map[string]any{"kind": "Mesh"}),
		mk("kuma-system", "payments", map[string]any{}, map[string]any{"kind": "MeshService", "name": "payments"}),
		mk("kuma-system", "payments-v2", map[string]any{}, map[string]any{"kind": "MeshServiceSubset", "name": "payments", "tags": map[string]any{"version": "v2"}}),
		mk("kuma-system", "east", map[string]any{}, map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/zone": "east"}}),
		mk("backend-ns", "one-proxy", owner(), map[string]any{"kind": "Dataplane", "name": "backend-7f9c", "sectionName": "http"}),
		mk("backend-ns", "checkout", owner(), map[string]any{"kind": "MeshHTTPRoute", "name": "checkout"}),
		mk("backend-ns", "from-zone", map[string]any{"kuma.io/policy-role": "workload-owner", "kuma.io/origin": "zone", "kuma.io/zone": "east"},
			map[string]any{"kind": "Dataplane", "labels": map[string]any{"app": "backend"}}),
		mk("orders-ns", "producer", map[string]any{"kuma.io/policy-role": "producer"}, map[string]any{"kind": "MeshService", "name": "payments"}),
		mk("kuma-system", "all-dataplanes", map[string]any{}, map[string]any{"kind": "Dataplane"}),
	}
}

func TestPreviewCacheMatchesReference(t *testing.T) {
	stored := append(webhooktest.StoredPolicies(), moreShapes()...)
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

	// The deployment's system namespace scopes targets: the default ("" and
	// kuma-system), and one where kuma-system is an ordinary namespace.
	for _, sysNS := range []string{"", "mesh-system"} {
		opts := kumaauthz.Options{Form: kumaauthz.FormExpanded, MaxExpandedRules: 64, SystemNamespace: sysNS}
		// Each state is indexed as an informer indexes the cluster's objects.
		indexes := map[*[]unstructured.Unstructured]webhook.PolicyIndex{}
		for _, st := range []*[]unstructured.Unstructured{&stored, &changed, &rewritten} {
			idx, err := webhook.IndexedPolicies(*st, sysNS)
			if err != nil {
				t.Fatal(err)
			}
			indexes[st] = idx
		}
		state := &stored
		var mu sync.Mutex
		list := func(context.Context) ([]unstructured.Unstructured, bool) {
			mu.Lock()
			defer mu.Unlock()
			return *state, true
		}
		index := func(ctx context.Context, key string) ([]unstructured.Unstructured, bool) {
			mu.Lock()
			idx := indexes[state]
			mu.Unlock()
			return idx(ctx, key)
		}
		cached, ref := webhook.NewPreview(index, opts), referencePreview(list, opts)
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
							t.Errorf("system namespace %q, round %d, %s/%s: preview differs from the uncached one\ngot  %q\nwant %q",
								sysNS, round, in.GetNamespace(), in.GetName(), gotLines, wantLines)
						}
					})
				}
				wg.Wait()
			}
		}
	}
	if !reflect.DeepEqual(stored, pristine) {
		t.Error("the preview modified the stored objects")
	}
}
