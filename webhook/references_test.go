package webhook

import (
	"context"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/refs"
)

// storedLister lists objects as the informer caches would, by kind and
// namespace, recording which it was asked for; classes in unusable answer ok=false.
// Its source is the webhook's own cacheSource over one lister per cached kind.
type storedLister struct {
	objs     []unstructured.Unstructured
	unusable map[refs.Class]bool
	asked    []refs.Need
}

func (l *storedLister) source() cacheSource {
	src := cacheSource{}
	add := func(gk schema.GroupKind) {
		c := refs.ClassOf(gk.Group, gk.Kind)
		src[gk] = func(_ context.Context, ns string) ([]unstructured.Unstructured, bool) {
			l.asked = append(l.asked, refs.Need{Class: c, Namespace: ns})
			if l.unusable[c] {
				return nil, false
			}
			var out []unstructured.Unstructured
			for _, o := range l.objs {
				if o.GroupVersionKind().GroupKind() == gk && (ns == "" || o.GetNamespace() == ns) {
					out = append(out, o)
				}
			}
			return out, true
		}
	}
	for _, w := range refs.WatchedKinds(api.DefaultRegistry()) {
		add(w.GVK.GroupKind())
	}
	for _, k := range api.DefaultRegistry().Watched() {
		add(k.GVK().GroupKind())
	}
	return src
}

// TestReferenceWarnings: a dangling reference is an admission warning with its
// code and the nearest name, never a denial; a resolving one is silent; a reference
// whose cache is not usable is not judged; only the namespaces named are listed.
func TestReferenceWarnings(t *testing.T) {
	stored := []unstructured.Unstructured{
		*mustObj(t, "apiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: shop}\nspec: {ports: [{name: http, port: 8080}]}"),
		*mustObj(t, "apiVersion: v1\nkind: Service\nmetadata: {name: other, namespace: elsewhere}\nspec: {ports: [{port: 80}]}"),
	}
	policy := func(name string) *unstructured.Unstructured {
		return mustObj(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: shop, labels: {kuma.io/mesh: default}}\nspec:\n  to:\n    - targetRef: {kind: MeshService, name: "+name+"}\n      default: {idleTimeout: 1h}")
	}
	tests := []struct {
		name, ref string
		unusable  refs.Class
		want      string // a warning prefix, "" for none
	}{
		{"resolves", "backend", "", ""},
		{"dangling", "backnd", "", `MG401 spec.to[0].targetRef: MeshService shop/backnd: not found in the cluster (did you mean "backend"?)`},
		{"cache not usable", "backnd", refs.ClassMeshService, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &storedLister{objs: stored, unusable: map[refs.Class]bool{tt.unusable: true}}
			e := testEngine()
			e.Objects = l.source()
			resp := e.Validate(context.Background(), serverRequest(t, admissionv1.Create, policy(tt.ref)))
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			var got []string
			for _, w := range resp.Warnings {
				if strings.HasPrefix(w, "MG4") {
					got = append(got, w)
				}
			}
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("warnings %q, want none", got)
			case tt.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], Shorten(tt.want, MaxWarningLen-3))):
				t.Errorf("warnings %q, want one starting %q", got, tt.want)
			}
			for _, n := range l.asked {
				if n.Namespace == "elsewhere" || (n.Namespace == "" && n.Class == refs.ClassService) {
					t.Errorf("listed %v: only what the reference needs may be listed", n)
				}
			}
			if !slices.Contains(l.asked, refs.Need{Class: refs.ClassService, Namespace: "shop"}) {
				t.Errorf("Services of shop not listed: %v", l.asked)
			}
		})
	}
}

// TestReferenceWarningSuppressed: a reference code (MG4xx) in meshguard.io/ignore
// suppresses the reference warning, as in the linter, and is not itself warned
// about as a code meshguard does not have (the webhook once read suppressions
// against a catalogue without the reference codes).
func TestReferenceWarningSuppressed(t *testing.T) {
	l := &storedLister{objs: []unstructured.Unstructured{
		*mustObj(t, "apiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: shop}\nspec: {ports: [{name: http, port: 8080}]}"),
	}}
	e := testEngine()
	e.Objects = l.source()
	policy := mustObj(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  namespace: shop\n"+
		"  labels: {kuma.io/mesh: default}\n  annotations: {meshguard.io/ignore: \"MG401: the service is applied later\"}\n"+
		"spec:\n  to:\n    - targetRef: {kind: MeshService, name: backnd}\n      default: {idleTimeout: 1h}")
	resp := e.Validate(context.Background(), serverRequest(t, admissionv1.Create, policy))
	if !resp.Allowed {
		t.Fatalf("denied: %+v", resp.Result)
	}
	if got := codesOf(resp.Warnings); len(got) > 0 {
		t.Errorf("warnings %q, want none: MG401 is suppressed with a reason", resp.Warnings)
	}
}
