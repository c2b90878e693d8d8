package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/linkerdauthz"
)

// stored gives objects the uid and resourceVersion an informer cache has.
func stored(objs ...*unstructured.Unstructured) []unstructured.Unstructured {
	var out []unstructured.Unstructured
	for i, o := range objs {
		c := o.DeepCopy()
		c.SetUID(types.UID(fmt.Sprintf("uid-%d", i)))
		c.SetResourceVersion("1")
		out = append(out, *c)
	}
	return out
}

func wideningEngine(mtps []unstructured.Unstructured, linkerd []unstructured.Unstructured, maxItems int) *Handlers {
	return wideningEngineFor(mtps, linkerd, maxItems, linkerdauthz.Options{})
}

// wideningEngineFor is wideningEngine for a Linkerd installation described by lo,
// with the cached Namespaces namespaces.
func wideningEngineFor(mtps []unstructured.Unstructured, linkerd []unstructured.Unstructured, maxItems int, lo linkerdauthz.Options, namespaces ...*unstructured.Unstructured) *Handlers {
	eng := testEngine(mtps...)
	index, err := IndexedPolicies(mtps, "")
	if err != nil {
		panic(err)
	}
	src := LinkerdSource{Stored: func(context.Context) []unstructured.Unstructured { return linkerd }, Options: lo}
	if len(namespaces) > 0 {
		src.Namespace = func(_ context.Context, name string) (*unstructured.Unstructured, bool) {
			for _, n := range namespaces {
				if n.GetName() == name {
					return n, true
				}
			}
			return nil, false
		}
	}
	eng.Widening = NewWidening(index, src, kumaauthz.Options{MaxGroupItems: maxItems})
	return eng
}

const denyAll = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: mesh-deny-all, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: Mesh}, default: {action: Deny}}`

const ledgerOwner = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: ledger-callers, namespace: payments}
spec:
  targetRef: {kind: Dataplane, labels: {app: ledger}}
  from:
    - {targetRef: {kind: MeshService, name: batch_jobs_svc_80}, default: {action: Allow}}`

func widenings(ws []string) []string {
	var out []string
	for _, w := range ws {
		if strings.HasPrefix(w, "rbac-diff:") || strings.HasPrefix(w, "authz-diff:") {
			out = append(out, w)
		}
	}
	return out
}

func TestWideningKuma(t *testing.T) {
	deny, owner := mustObj(t, denyAll), mustObj(t, ledgerOwner)
	wider := mustObj(t, strings.Replace(ledgerOwner, "{kind: MeshService, name: batch_jobs_svc_80}", "{kind: MeshSubset, tags: {env: dev}}", 1))
	narrower := mustObj(t, strings.Replace(ledgerOwner, "action: Allow", "action: Deny", 1))
	for _, tt := range []struct {
		name     string
		stored   []unstructured.Unstructured
		op       admissionv1.Operation
		obj, old *unstructured.Unstructured
		maxItems int
		want     []string
	}{
		{"create widens", stored(deny), admissionv1.Create, owner, nil, 0, []string{
			"rbac-diff: widens access to Dataplanes app=ledger in payments for kuma.io/service=batch_jobs_svc_80"}},
		{"update widens, against the stored set with oldObject", stored(deny, owner), admissionv1.Update, wider, owner, 0, []string{
			"rbac-diff: widens access to Dataplanes app=ledger in payments for env=dev, kuma.io/service!=batch_jobs_svc_80"}},
		{"update narrows: no line", stored(deny, owner), admissionv1.Update, narrower, owner, 0, nil},
		{"unchanged update: no line", stored(deny, owner), admissionv1.Update, owner, owner, 0, nil},
		{"create under a wider allow: no line", stored(mustObj(t, strings.Replace(denyAll, "action: Deny", "action: Allow", 1))), admissionv1.Create, owner, nil, 0, nil},
		{"past the preview's item bound", stored(deny), admissionv1.Create, owner, nil, 1, []string{
			"rbac-diff: widening not checked for 1 proxy group past the bound; `meshguard diff` checks them"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eng := wideningEngine(tt.stored, nil, tt.maxItems)
			resp := eng.Validate(context.Background(), admissionRequest(t, "u", tt.op, tt.obj, tt.old, "alice"))
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			got := widenings(resp.Warnings)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got %q\nwant %q\nall warnings:\n%s", got, tt.want, strings.Join(resp.Warnings, "\n"))
			}
			for _, w := range resp.Warnings {
				if len(w) > MaxWarningLen {
					t.Errorf("warning longer than %d: %q", MaxWarningLen, w)
				}
			}
		})
	}
}

// TestWideningKumaManyClasses: a widening of many classes names the first and
// counts the rest on one line within the width; the whole answer stays in the
// warning budget.
func TestWideningKumaManyClasses(t *testing.T) {
	var items []string
	for i := 0; i < 40; i++ {
		items = append(items, fmt.Sprintf("    - {targetRef: {kind: MeshSubset, tags: {kuma.io/service: client-with-a-long-service-name-%02d_ns_svc_80, version: v%d}}, default: {action: Allow}}", i, i%3))
	}
	owner := mustObj(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: many, namespace: payments}\nspec:\n  targetRef: {kind: Dataplane, labels: {app: ledger}}\n  from:\n"+strings.Join(items, "\n"))
	eng := wideningEngine(stored(mustObj(t, denyAll)), nil, 0)
	resp := eng.Validate(context.Background(), admissionRequest(t, "u", admissionv1.Create, owner, nil, "alice"))
	got := widenings(resp.Warnings)
	if len(got) != 1 || !strings.Contains(got[0], "(+39 more classes)") || len(got[0]) > MaxWarningLen {
		t.Errorf("got %q", got)
	}
	total := 0
	for _, w := range resp.Warnings {
		total += len(w)
	}
	if total > MaxWarningsTotal {
		t.Errorf("warnings total %d bytes, over the budget %d", total, MaxWarningsTotal)
	}
}

const linkerdServer = `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api-http, namespace: shop}
spec:
  podSelector: {matchLabels: {app: api}}
  port: 8080`

const linkerdPolicy = `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: api-clients, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api-http}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: frontends}]`

const linkerdAuthn = `apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: frontends, namespace: shop}
spec:
  identityRefs: [{kind: ServiceAccount, name: web}]`

func TestWideningLinkerd(t *testing.T) {
	server, policy, authn := mustObj(t, linkerdServer), mustObj(t, linkerdPolicy), mustObj(t, linkerdAuthn)
	wider := mustObj(t, strings.Replace(linkerdAuthn, "[{kind: ServiceAccount, name: web}]", "[{kind: ServiceAccount, name: web}, {kind: Namespace, name: partners}]", 1))
	for _, tt := range []struct {
		name     string
		stored   []unstructured.Unstructured
		op       admissionv1.Operation
		obj, old *unstructured.Unstructured
		want     string
	}{
		{"MeshTLSAuthentication update adds a namespace", stored(server, policy, authn), admissionv1.Update, wider, authn,
			"authz-diff: widens access to Server shop/api-http for service accounts of namespace partners"},
		{"AuthorizationPolicy create", stored(server, authn), admissionv1.Create, policy, nil,
			"authz-diff: widens access to Server shop/api-http for service account shop/web"},
		{"Server update to accessPolicy all-unauthenticated", stored(server), admissionv1.Update,
			mustObj(t, linkerdServer+"\n  accessPolicy: all-unauthenticated"), server,
			"authz-diff: widens access to Server shop/api-http for every client"},
		{"MeshTLSAuthentication narrowed: no line", stored(server, policy, wider), admissionv1.Update, authn, wider, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eng := wideningEngine(nil, tt.stored, 0)
			resp := eng.Validate(context.Background(), admissionRequest(t, "u", tt.op, tt.obj, tt.old, "alice"))
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			if got := strings.Join(widenings(resp.Warnings), "\n"); got != tt.want {
				t.Errorf("got %q\nwant %q\nall warnings:\n%s", got, tt.want, strings.Join(resp.Warnings, "\n"))
			}
		})
	}
}

// TestWideningLinkerdInstallation: whether a new Server widens depends on the
// cluster's default inbound policy, which serve's --linkerd-default-policy
// gives. Under all-unauthenticated (a default install) a Server with one
// authorization shuts everyone else out; under deny it lets its clients in.
func TestWideningLinkerdInstallation(t *testing.T) {
	server, policy, authn := mustObj(t, linkerdServer), mustObj(t, linkerdPolicy), mustObj(t, linkerdAuthn)
	shopDeny := mustObj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, annotations: {config.linkerd.io/default-inbound-policy: deny}}")
	shopPlain := mustObj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}")
	otherDeny := mustObj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: other, annotations: {config.linkerd.io/default-inbound-policy: deny}}")
	for _, tt := range []struct {
		name       string
		o          linkerdauthz.Options
		namespaces []*unstructured.Unstructured
		want       string
	}{
		{"default install", linkerdauthz.Options{}, nil, ""},
		{"namespace annotated deny", linkerdauthz.Options{}, []*unstructured.Unstructured{shopDeny, otherDeny},
			"authz-diff: widens access to Server shop/api-http for service account shop/web"},
		{"namespace without the annotation takes the cluster default", linkerdauthz.Options{}, []*unstructured.Unstructured{shopPlain, otherDeny}, ""},
		{"namespace without the annotation, cluster default deny", linkerdauthz.Options{DefaultPolicy: "deny"}, []*unstructured.Unstructured{shopPlain},
			"authz-diff: widens access to Server shop/api-http for service account shop/web"},
		{"cluster default deny", linkerdauthz.Options{DefaultPolicy: "deny"}, nil,
			"authz-diff: widens access to Server shop/api-http for service account shop/web"},
		{"cluster default cluster-authenticated, other networks", linkerdauthz.Options{DefaultPolicy: "cluster-authenticated", ClusterNetworks: []string{"10.0.0.0/16"}}, nil,
			"authz-diff: widens access to Server shop/api-http for service account shop/web, +1 more (see `meshguard diff`)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eng := wideningEngineFor(nil, stored(policy, authn), 0, tt.o, tt.namespaces...)
			resp := eng.Validate(context.Background(), admissionRequest(t, "u", admissionv1.Create, server, nil, "alice"))
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			if got := strings.Join(widenings(resp.Warnings), "\n"); got != tt.want {
				t.Errorf("got %q\nwant %q\nall warnings:\n%s", got, tt.want, strings.Join(resp.Warnings, "\n"))
			}
		})
	}
}

// TestWideningHugePolicyIsBounded: a policy of 20,000 items is past the
// preview's item bound, so the widening is not computed and a line says so.
func TestWideningHugePolicyIsBounded(t *testing.T) {
	var items []string
	for i := 0; i < 20000; i++ {
		items = append(items, fmt.Sprintf("    - {targetRef: {kind: MeshSubset, tags: {kuma.io/service: svc-%d_ns_svc_80}}, default: {action: Allow}}", i))
	}
	huge := mustObj(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: huge, namespace: payments}\nspec:\n  targetRef: {kind: Dataplane, labels: {app: ledger}}\n  from:\n"+strings.Join(items, "\n"))
	eng := wideningEngine(stored(mustObj(t, denyAll)), nil, DefaultPreviewMaxItems)
	eng.Preview = nil // unbounded in testEngine; the widening is what is tested
	resp := eng.Validate(context.Background(), admissionRequest(t, "u", admissionv1.Create, huge, nil, "alice"))
	want := "rbac-diff: widening not checked for 1 proxy group past the bound; `meshguard diff` checks them"
	if got := widenings(resp.Warnings); len(got) != 1 || got[0] != want {
		t.Errorf("got %q", got)
	}
}
