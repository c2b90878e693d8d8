package charts_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// hasRule reports whether cr grants verb on group/resource.
func hasRule(cr *rbacv1.ClusterRole, group, resource, verb string) bool {
	for _, r := range cr.Rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// TestMetricsSecureByDefault: the metrics are served over HTTPS behind the API
// server's authentication and authorization: meshguard may create TokenReviews and
// SubjectAccessReviews, a reader ClusterRole grants GET /metrics only, and
// readerSubjects are bound to it. metrics.secure false, asked for, takes all that
// away and serves plain HTTP.
func TestMetricsSecureByDefault(t *testing.T) {
	m := mustRender(t, map[string]any{"metrics": map[string]any{"port": 8080,
		"readerSubjects": []any{map[string]any{"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "monitoring"},
			map[string]any{"kind": "Group", "name": "sre"}}}})
	if args := deployment(t, m).Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, "--metrics-secure=true") {
		t.Errorf("args %v lack --metrics-secure=true", args)
	}
	cr := get[*rbacv1.ClusterRole](t, m, "ClusterRole/meshguard")
	if !hasRule(cr, "authentication.k8s.io", "tokenreviews", "create") || !hasRule(cr, "authorization.k8s.io", "subjectaccessreviews", "create") {
		t.Errorf("meshguard cannot review scrapers' tokens: %+v", cr.Rules)
	}
	reader := get[*rbacv1.ClusterRole](t, m, "ClusterRole/meshguard-metrics-reader")
	if len(reader.Rules) != 1 || !slices.Equal(reader.Rules[0].NonResourceURLs, []string{"/metrics"}) ||
		!slices.Equal(reader.Rules[0].Verbs, []string{"get"}) || len(reader.Rules[0].Resources) != 0 {
		t.Errorf("reader rules %+v, want GET /metrics only", reader.Rules)
	}
	b := get[*rbacv1.ClusterRoleBinding](t, m, "ClusterRoleBinding/meshguard-metrics-reader")
	want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prometheus-k8s", Namespace: "monitoring"}, {Kind: "Group", Name: "sre", APIGroup: "rbac.authorization.k8s.io"}}
	if b.RoleRef.Name != "meshguard-metrics-reader" || !slices.Equal(b.Subjects, want) {
		t.Errorf("reader binding %+v to %s", b.Subjects, b.RoleRef.Name)
	}
	if mustRender(t, nil).has("ClusterRoleBinding/meshguard-metrics-reader") {
		t.Error("a reader binding without readerSubjects")
	}

	m = mustRender(t, map[string]any{"metrics": map[string]any{"port": 8080, "secure": false}})
	if args := deployment(t, m).Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, "--metrics-secure=false") {
		t.Errorf("secure false: args %v", args)
	}
	cr = get[*rbacv1.ClusterRole](t, m, "ClusterRole/meshguard")
	if hasRule(cr, "authentication.k8s.io", "tokenreviews", "create") || m.has("ClusterRole/meshguard-metrics-reader") {
		t.Error("secure false still grants token reviews or renders the reader role")
	}
}

// TestServiceMonitor: off by default; on, a Service for the metrics port and a
// ServiceMonitor that selects only it and scrapes over HTTPS with a token.
func TestServiceMonitor(t *testing.T) {
	m := mustRender(t, nil)
	if m.has("ServiceMonitor/meshguard") || m.has("Service/meshguard-metrics") {
		t.Fatal("ServiceMonitor rendered by default")
	}
	m = mustRender(t, map[string]any{"metrics": map[string]any{"port": 9100,
		"serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "prometheus"}}}})
	svc := get[*corev1.Service](t, m, "Service/meshguard-metrics")
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 9100 || svc.Spec.Ports[0].TargetPort.String() != "metrics" {
		t.Errorf("metrics Service ports %+v", svc.Spec.Ports)
	}
	sm := get[*unstructured.Unstructured](t, m, "ServiceMonitor/meshguard")
	if sm.GetLabels()["release"] != "prometheus" {
		t.Errorf("ServiceMonitor labels %v", sm.GetLabels())
	}
	sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	for k, v := range sel {
		if svc.Labels[k] != v {
			t.Errorf("ServiceMonitor selector %v does not select the metrics Service %v", sel, svc.Labels)
		}
	}
	if webhookSvc := get[*corev1.Service](t, m, "Service/meshguard-webhook"); webhookSvc.Labels["app.kubernetes.io/component"] == sel["app.kubernetes.io/component"] {
		t.Errorf("ServiceMonitor selector %v also selects the webhook Service", sel)
	}
	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(eps) != 1 || eps[0].(map[string]any)["scheme"] != "https" || eps[0].(map[string]any)["bearerTokenFile"] == nil {
		t.Errorf("endpoints %v, want one HTTPS endpoint with a token", eps)
	}
}

// TestSchemaCheck: --schema-check follows the value, and only auto reads CRDs.
func TestSchemaCheck(t *testing.T) {
	for _, tc := range []struct {
		value    string
		readCRDs bool
	}{{"auto", true}, {"always", false}, {"never", false}} {
		m := mustRender(t, map[string]any{"schemaCheck": tc.value})
		if args := deployment(t, m).Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, "--schema-check="+tc.value) {
			t.Errorf("%s: args %v", tc.value, args)
		}
		cr := get[*rbacv1.ClusterRole](t, m, "ClusterRole/meshguard")
		for _, verb := range []string{"get", "list", "watch"} {
			if got := hasRule(cr, "apiextensions.k8s.io", "customresourcedefinitions", verb); got != tc.readCRDs {
				t.Errorf("%s: %s customresourcedefinitions = %v", tc.value, verb, got)
			}
		}
		if hasRule(cr, "apiextensions.k8s.io", "customresourcedefinitions", "update") {
			t.Errorf("%s: meshguard may change CRDs", tc.value)
		}
	}
	if _, err := renderChart(t, map[string]any{"schemaCheck": "sometimes"}, namespace); err == nil {
		t.Error("schemaCheck sometimes accepted")
	}
}
