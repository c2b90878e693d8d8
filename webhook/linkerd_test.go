package webhook

import (
	"context"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/refs"
	"github.com/meshguard/meshguard/validate"
)

func serverObj(t *testing.T, version, name, ns, selector, port string) *unstructured.Unstructured {
	return mustObj(t, "apiVersion: policy.linkerd.io/"+version+"\nkind: Server\nmetadata: {name: "+name+", namespace: "+ns+
		"}\nspec:\n  podSelector: "+selector+"\n  port: "+port+"\n")
}

func serverRequest(t *testing.T, op admissionv1.Operation, obj *unstructured.Unstructured) admission.Request {
	gvk := obj.GroupVersionKind()
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "uid", Operation: op, Name: obj.GetName(), Namespace: obj.GetNamespace(),
		Kind:   metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Object: runtime.RawExtension{Raw: mustJSON(t, obj.Object)},
	}}
}

// TestServerConflictsFromCache drives the validating handler with a fake Server
// lister: conflicts are MG350 warnings by default and 422 denials with the field
// path and code when DenyServerConflicts is set.
func TestServerConflictsFromCache(t *testing.T) {
	cached := []unstructured.Unstructured{
		*serverObj(t, "v1beta3", "web-http", "web-ns", "{matchLabels: {app: web}}", "8080"),
		*serverObj(t, "v1beta3", "api-http", "web-ns", "{matchLabels: {app: api}}", "8080"),
		*serverObj(t, "v1beta3", "other-ns", "other", "{}", "8080"),
		*serverObj(t, "v1beta3", "web-grpc", "web-ns", "{matchLabels: {app: web}}", "grpc"),
	}
	l := &storedLister{objs: cached, unusable: map[refs.Class]bool{}}
	e := testEngine()
	e.Objects = l.source()
	ctx := context.Background()
	all := serverObj(t, "v1beta1", "web-all", "web-ns", "{matchExpressions: [{key: app, operator: In, values: [web, db]}]}", "8080")

	resp := e.Validate(ctx, serverRequest(t, admissionv1.Create, all))
	if !resp.Allowed {
		t.Fatalf("warn mode denied: %+v", resp.Result)
	}
	var conflictLines []string
	for _, w := range resp.Warnings {
		if strings.HasPrefix(w, validate.CodeLinkerdServerConflict+" spec.podSelector: ") {
			conflictLines = append(conflictLines, w)
		}
	}
	if len(conflictLines) != 1 || !strings.Contains(conflictLines[0], "Server web-http") || !strings.Contains(conflictLines[0], "port 8080") {
		t.Errorf("want one MG350 warning naming web-http and port 8080, got %q", resp.Warnings)
	}

	// UPDATE of a cached Server does not conflict with itself.
	if resp := e.Validate(ctx, serverRequest(t, admissionv1.Update, &cached[0])); len(resp.Warnings) != 0 {
		t.Errorf("a Server conflicts with itself: %q", resp.Warnings)
	}
	// A numeric and a named port are not resolved without workloads.
	if resp := e.Validate(ctx, serverRequest(t, admissionv1.Create, serverObj(t, "v1beta3", "web-9", "web-ns", "{}", "grpc"))); !resp.Allowed || len(resp.Warnings) != 1 {
		t.Errorf("same port name: allowed=%v warnings %q, want one", resp.Allowed, resp.Warnings)
	}

	e.DenyServerConflicts = true
	resp = e.Validate(ctx, serverRequest(t, admissionv1.Create, all))
	if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusUnprocessableEntity {
		t.Fatalf("deny mode: allowed=%v result %+v", resp.Allowed, resp.Result)
	}
	causes := resp.Result.Details.Causes
	if len(causes) != 1 || causes[0].Field != "spec.podSelector" || !strings.HasSuffix(causes[0].Message, "["+validate.CodeLinkerdServerConflict+"]") {
		t.Errorf("deny mode causes: %+v", causes)
	}
	// No conflict: admitted in deny mode too; an unsynced cache checks nothing.
	if resp := e.Validate(ctx, serverRequest(t, admissionv1.Create, serverObj(t, "v1beta3", "db", "web-ns", "{matchLabels: {app: db}}", "5432"))); !resp.Allowed {
		t.Errorf("deny mode denied a Server without conflicts: %+v", resp.Result)
	}
	l.unusable[refs.ClassOf(api.LinkerdGroup, api.KindServer)] = true
	if resp := e.Validate(ctx, serverRequest(t, admissionv1.Create, all)); !resp.Allowed {
		t.Errorf("unsynced cache denied: %+v", resp.Result)
	}
}

// TestCrossObjectChecksOnAdmission: MG369 (a route parented to a missing
// EgressNetwork) and MG370 (a second HTTPLocalRateLimitPolicy on one Server),
// once lint-only, answer on admission from the caches: warnings, naming what is in
// the cluster; nothing while the cache is not synced.
func TestCrossObjectChecksOnAdmission(t *testing.T) {
	cached := []unstructured.Unstructured{
		*mustObj(t, "apiVersion: policy.linkerd.io/v1alpha1\nkind: EgressNetwork\nmetadata: {name: internet, namespace: shop}\nspec: {trafficPolicy: Allow}"),
		*mustObj(t, "apiVersion: policy.linkerd.io/v1alpha1\nkind: HTTPLocalRateLimitPolicy\nmetadata: {name: a, namespace: shop}\n"+
			"spec: {targetRef: {group: policy.linkerd.io, kind: Server, name: web}, total: {requestsPerSecond: 10}}"),
	}
	route := func(parent string) *unstructured.Unstructured {
		return mustObj(t, "apiVersion: policy.linkerd.io/v1beta3\nkind: HTTPRoute\nmetadata: {name: out, namespace: shop}\n"+
			"spec:\n  parentRefs: [{group: policy.linkerd.io, kind: EgressNetwork, name: "+parent+", port: 443}]\n")
	}
	limit := func(name, server string) *unstructured.Unstructured {
		return mustObj(t, "apiVersion: policy.linkerd.io/v1alpha1\nkind: HTTPLocalRateLimitPolicy\nmetadata: {name: "+name+", namespace: shop}\n"+
			"spec: {targetRef: {group: policy.linkerd.io, kind: Server, name: "+server+"}, total: {requestsPerSecond: 10}}")
	}
	tests := []struct {
		name     string
		obj      *unstructured.Unstructured
		unsynced refs.Class
		want     string // the warning's prefix, "" for none
	}{
		{"missing EgressNetwork", route("internt"), "", validate.CodeLinkerdMissingEgressNet + " spec.parentRefs[0]: the parent EgressNetwork internt (namespace shop) does not exist in the cluster"},
		{"existing EgressNetwork", route("internet"), "", ""},
		{"EgressNetworks not synced", route("internt"), refs.ClassOf(api.LinkerdGroup, api.KindEgressNetwork), ""},
		{"second policy on a Server", limit("b", "web"), "", validate.CodeLinkerdRateLimitConflict + " spec.targetRef: HTTPLocalRateLimitPolicies a, b all target Server web"},
		{"policy on another Server", limit("b", "api"), "", ""},
		{"policies not synced", limit("b", "web"), refs.ClassOf(api.LinkerdGroup, api.KindHTTPLocalRateLimitPolicy), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testEngine()
			e.Objects = (&storedLister{objs: cached, unusable: map[refs.Class]bool{tt.unsynced: true}}).source()
			resp := e.Validate(context.Background(), serverRequest(t, admissionv1.Create, tt.obj))
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			var got []string
			for _, w := range resp.Warnings {
				if strings.HasPrefix(w, validate.CodeLinkerdMissingEgressNet) || strings.HasPrefix(w, validate.CodeLinkerdRateLimitConflict) {
					got = append(got, w)
				}
			}
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("warnings %q, want none", got)
			case tt.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], Shorten(tt.want, MaxWarningLen-3))):
				t.Errorf("warnings %q, want one starting %q", got, tt.want)
			}
		})
	}
}
