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
