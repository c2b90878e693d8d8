package refs

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// FuzzReferences feeds arbitrary documents (an inventory object and a subject,
// separated by ---) through EntryOf, Extract, Needs and Check: whatever their
// shape, resolution must not panic, and every problem has a path, a code and a
// message.
func FuzzReferences(f *testing.F) {
	f.Add(svcBackend + "\n---\n" + timeoutTo("shop", "{kind: MeshService, name: backnd, sectionName: grpc}"))
	f.Add(deployWeb + "\n---\n" + "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: kuma-system}\nspec: {targetRef: {kind: Dataplane, labels: {app: x, k8s.kuma.io/namespace: web}}}")
	f.Add(deployWeb + "\n---\n" + "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: s, namespace: web}\nspec: {podSelector: {matchExpressions: [{key: app, operator: Exists}]}}")
	f.Add("apiVersion: v1\nkind: Service\nmetadata: {name: 1}\nspec: {ports: [{port: x}, 7, {port: 1.5}]}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec: {parentRefs: [{kind: Service, group: core, name: 1, port: 2}, 3], rules: [{backendRefs: [{name: 1}, x]}, 4]}")
	f.Add("apiVersion: kuma.io/v1alpha1\nkind: MeshHTTPRoute\nmetadata: {name: r, labels: {kuma.io/mesh: prd}}\nspec: {to: [{targetRef: {kind: MeshService, name: a_b_svc_99999999999}, rules: [{default: {backendRefs: [{kind: MeshMultiZoneService, labels: {a: b}}]}}]}]}")
	opts := Options{SystemNamespace: "kuma-system", DefaultMesh: "default"}
	f.Fuzz(func(t *testing.T, in string) {
		inv := NewInventory()
		var subject *unstructured.Unstructured
		for _, d := range strings.Split(in, "\n---\n") {
			u := &unstructured.Unstructured{}
			if yaml.Unmarshal([]byte(d), &u.Object) != nil || u.Object == nil {
				continue
			}
			inv.AddObject(u)
			subject = u
		}
		if subject == nil {
			return
		}
		rs := Extract(subject, opts)
		for _, r := range rs {
			_ = Needs(r)
		}
		for _, src := range []Source{SourceFiles, SourceCluster} {
			for _, p := range (Resolver{Inv: inv, Opts: opts, Source: src}).Check(rs) {
				if p.Path == "" || p.Code == "" || p.Message == "" {
					t.Fatalf("incomplete problem %+v", p)
				}
			}
		}
	})
}
