package charts_test

import (
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

// annotationWebhook returns annotations.meshguard.io, the second webhook of the
// validating configuration, or nil when the chart renders none.
func annotationWebhook(t *testing.T, m *manifests) *admissionv1.ValidatingWebhook {
	t.Helper()
	vc := get[*admissionv1.ValidatingWebhookConfiguration](t, m, validatingKey)
	for i := range vc.Webhooks {
		if vc.Webhooks[i].Name == "annotations.meshguard.io" {
			if i != 1 {
				t.Errorf("annotations.meshguard.io is webhook %d, want 1", i)
			}
			return &vc.Webhooks[i]
		}
	}
	return nil
}

// TestAnnotationWebhook: the Linkerd annotation check (MG341) is a separate
// validating webhook for Namespaces, Pods and workloads: exactly these rules with
// CREATE and UPDATE, the /validate path, a matchCondition on the annotation (object
// and pod templates), failurePolicy Ignore by default, and the same namespace
// exclusions and selectors as the policy webhooks.
func TestAnnotationWebhook(t *testing.T) {
	w := annotationWebhook(t, mustRender(t, nil))
	if w == nil {
		t.Fatal("no annotations.meshguard.io webhook by default")
	}
	gvrs, ops := covered(t, w.Rules)
	want := []string{"/v1/namespaces", "/v1/pods", "apps/v1/daemonsets", "apps/v1/deployments", "apps/v1/replicasets",
		"apps/v1/statefulsets", "batch/v1/cronjobs", "batch/v1/jobs"}
	if !slices.Equal(gvrs, want) {
		t.Errorf("rules cover %v, want %v", gvrs, want)
	}
	if !slices.Equal(ops, []string{"CREATE", "UPDATE"}) {
		t.Errorf("operations = %v", ops)
	}
	if p := w.ClientConfig.Service.Path; p == nil || *p != "/validate" {
		t.Errorf("path = %v", p)
	}
	if len(w.MatchConditions) != 1 {
		t.Fatalf("matchConditions = %+v, want one", w.MatchConditions)
	}
	expr := w.MatchConditions[0].Expression
	for _, s := range []string{"object.metadata.annotations", "object.spec.template.metadata.annotations",
		"object.spec.jobTemplate.spec.template.metadata.annotations", "'config.linkerd.io/default-inbound-policy' in",
		"has(object.spec.jobTemplate)"} {
		if !strings.Contains(expr, s) {
			t.Errorf("matchCondition lacks %q:\n%s", s, expr)
		}
	}
	if w.FailurePolicy == nil || *w.FailurePolicy != admissionv1.Ignore {
		t.Errorf("failurePolicy = %v, want Ignore", w.FailurePolicy)
	}
	if w.SideEffects == nil || *w.SideEffects != admissionv1.SideEffectClassNone ||
		w.MatchPolicy == nil || *w.MatchPolicy != admissionv1.Equivalent ||
		w.TimeoutSeconds == nil || *w.TimeoutSeconds != 5 || !slices.Equal(w.AdmissionReviewVersions, []string{"v1"}) {
		t.Errorf("sideEffects/matchPolicy/timeout/versions = %v/%v/%v/%v", w.SideEffects, w.MatchPolicy, w.TimeoutSeconds, w.AdmissionReviewVersions)
	}
	if len(w.ClientConfig.CABundle) != 0 {
		t.Error("caBundle rendered; the rotator owns it")
	}
	excluded(t, "annotations", w.NamespaceSelector, "kube-system", "kube-node-lease", namespace)
}

// TestAnnotationWebhookValues: linkerd.annotationCheck turns the webhook off or sets
// its failurePolicy, leaving the policy webhook alone.
func TestAnnotationWebhookValues(t *testing.T) {
	m := mustRender(t, map[string]any{"linkerd": map[string]any{"annotationCheck": map[string]any{"failurePolicy": "Fail"}}})
	if w := annotationWebhook(t, m); w == nil || *w.FailurePolicy != admissionv1.Fail {
		t.Errorf("failurePolicy Fail not rendered: %+v", w)
	}
	m = mustRender(t, map[string]any{"linkerd": map[string]any{"annotationCheck": map[string]any{"enabled": false}}})
	if w := annotationWebhook(t, m); w != nil {
		t.Errorf("annotations.meshguard.io rendered with enabled=false")
	}
	_, val := webhooks(t, m)
	if val.rules == nil || *val.failurePolicy != admissionv1.Fail {
		t.Errorf("policy webhook changed: %+v", val)
	}
	// Other linkerd values keep the defaults of annotationCheck.
	m = mustRender(t, map[string]any{"linkerd": map[string]any{"serverConflicts": "deny"}})
	if w := annotationWebhook(t, m); w == nil || *w.FailurePolicy != admissionv1.Ignore {
		t.Errorf("annotationCheck defaults lost with linkerd.serverConflicts set: %+v", w)
	}
}
