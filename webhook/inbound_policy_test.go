package webhook

import (
	"context"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/meshguard/meshguard/validate"
)

// deployment is a Deployment whose pod template carries annotations (none if empty).
func deployment(t *testing.T, annotations string) string {
	t.Helper()
	doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n" +
		"  selector: {matchLabels: {app: web}}\n  template:\n    metadata:\n      labels: {app: web}\n"
	if annotations != "" {
		doc += "      annotations: " + annotations + "\n"
	}
	return doc + "    spec: {containers: [{name: web, image: nginx}]}\n"
}

// TestAnnotationCheckValidating: the validating handler answers Namespaces and
// workloads with the MG341 check only: a bad template annotation is a 422 with the
// template's field path and the code, a good one or none is allowed, and so is
// DELETE (the chart does not send it; the handler must not trip on it anyway).
func TestAnnotationCheckValidating(t *testing.T) {
	e := testEngine()
	ctx := context.Background()
	const path = "spec.template.metadata.annotations[config.linkerd.io/default-inbound-policy]"

	bad := mustObj(t, deployment(t, "{config.linkerd.io/default-inbound-policy: allow}"))
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		resp := e.Validate(ctx, serverRequest(t, op, bad))
		if resp.Allowed || resp.Result == nil {
			t.Fatalf("%s: bad annotation allowed", op)
		}
		if resp.Result.Code != http.StatusUnprocessableEntity || resp.Result.Details == nil || len(resp.Result.Details.Causes) != 1 {
			t.Fatalf("%s: want one 422 cause, got %+v", op, resp.Result)
		}
		c := resp.Result.Details.Causes[0]
		if c.Field != path || !strings.Contains(c.Message, "["+validate.CodeLinkerdInboundAnnotation+"]") {
			t.Errorf("%s: cause %+v, want %s with [MG341]", op, c, path)
		}
		if resp.Result.Details.Group != "apps" || resp.Result.Details.Kind != "Deployment" || resp.Result.Details.Name != "web" {
			t.Errorf("%s: details %+v", op, resp.Result.Details)
		}
	}
	if resp := e.Validate(ctx, serverRequest(t, admissionv1.Delete, bad)); !resp.Allowed {
		t.Errorf("DELETE denied: %+v", resp.Result)
	}

	good := mustObj(t, deployment(t, "{config.linkerd.io/default-inbound-policy: cluster-authenticated}"))
	if resp := e.Validate(ctx, serverRequest(t, admissionv1.Create, good)); !resp.Allowed || len(resp.Warnings) != 0 {
		t.Errorf("good annotation: allowed=%v %+v warnings %v", resp.Allowed, resp.Result, resp.Warnings)
	}
	none := mustObj(t, deployment(t, ""))
	if resp := e.Validate(ctx, serverRequest(t, admissionv1.Create, none)); !resp.Allowed {
		t.Errorf("no annotation denied: %+v", resp.Result)
	}

	ns := mustObj(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, annotations: {config.linkerd.io/default-inbound-policy: Deny}}\n")
	resp := e.Validate(ctx, serverRequest(t, admissionv1.Create, ns))
	if resp.Allowed || resp.Result.Details == nil || len(resp.Result.Details.Causes) != 1 ||
		resp.Result.Details.Causes[0].Field != "metadata.annotations[config.linkerd.io/default-inbound-policy]" {
		t.Errorf("Namespace with a bad annotation: %+v", resp.Result)
	}

	// A kind neither in the registry nor in the check passes untouched.
	cm := mustObj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop, annotations: {config.linkerd.io/default-inbound-policy: nope}}\n")
	if resp := e.Validate(ctx, serverRequest(t, admissionv1.Create, cm)); !resp.Allowed {
		t.Errorf("ConfigMap denied: %+v", resp.Result)
	}
}

// TestAnnotationCheckNotMutated: the mutating handler leaves core kinds alone, even
// with a bad annotation (no patch, allowed).
func TestAnnotationCheckNotMutated(t *testing.T) {
	e := testEngine()
	for _, doc := range []string{
		deployment(t, "{config.linkerd.io/default-inbound-policy: allow}"),
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, annotations: {config.linkerd.io/default-inbound-policy: allow}}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec: {containers: [{name: c, image: nginx}]}\n",
	} {
		obj := mustObj(t, doc)
		resp := e.Mutate(context.Background(), serverRequest(t, admissionv1.Create, obj))
		if !resp.Allowed || len(resp.Patches) != 0 || resp.PatchType != nil {
			t.Errorf("%s mutated: allowed=%v patches %v", obj.GetKind(), resp.Allowed, resp.Patches)
		}
	}
}
