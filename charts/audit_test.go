package charts_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
)

func auditValues(extra map[string]any) map[string]any {
	a := map[string]any{"enabled": true, "reports": map[string]any{"installCRDs": false}}
	for k, v := range extra {
		a[k] = v
	}
	return map[string]any{"audit": a}
}

// TestAuditOffByDefault: nothing of the audit is rendered unless asked.
func TestAuditOffByDefault(t *testing.T) {
	m := mustRender(t, nil)
	for _, k := range m.keys() {
		if strings.Contains(k, "-audit") {
			t.Errorf("%s rendered with audit.enabled false", k)
		}
	}
}

func TestAuditDeployment(t *testing.T) {
	m := mustRender(t, auditValues(map[string]any{"interval": "30m", "namespaces": []any{"payments", "orders"},
		"suppressions": []any{map[string]any{"code": "MG203", "namespace": "demo-*", "reason": "open demo mesh"}}}))
	d := get[*appsv1.Deployment](t, m, "Deployment/meshguard-audit")
	if *d.Spec.Replicas != 1 {
		t.Errorf("replicas %d", *d.Spec.Replicas)
	}
	args := d.Spec.Template.Spec.Containers[0].Args
	for _, w := range []string{"audit", "--interval=30m", "--namespace=payments", "--namespace=orders", "--write-reports",
		"--report-format=openreports", "--ignore-file=/etc/meshguard/ignore.yaml", "--kuma-version=2.14"} {
		if !slices.Contains(args, w) {
			t.Errorf("args lack %s: %q", w, args)
		}
	}
	// The webhook Service must never select the audit pod.
	svc := get[*corev1.Service](t, m, "Service/meshguard-webhook")
	matches := true
	for k, v := range svc.Spec.Selector {
		matches = matches && d.Spec.Template.Labels[k] == v
	}
	if matches {
		t.Errorf("the webhook Service selector %v selects the audit pod %v", svc.Spec.Selector, d.Spec.Template.Labels)
	}
	if d.Spec.Template.Spec.ServiceAccountName != "meshguard-audit" {
		t.Errorf("service account %q", d.Spec.Template.Spec.ServiceAccountName)
	}
	// The suppressions are a valid ignore file.
	cm := get[*corev1.ConfigMap](t, m, "ConfigMap/meshguard-audit")
	p := filepath.Join(t.TempDir(), "ignore.yaml")
	if err := os.WriteFile(p, []byte(cm.Data["ignore.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := lint.ReadIgnoreFile(p, lint.RuleSeverity, time.Now())
	if err != nil || len(f.Entries) != 1 || len(f.Problems) != 0 {
		t.Errorf("ignore file %q: %v %+v", cm.Data["ignore.yaml"], err, f)
	}
}

// TestAuditRBAC: read-only on every registry kind, write only on its report kind
// (creating a TokenReview or SubjectAccessReview, for secure metrics, stores
// nothing).
func TestAuditRBAC(t *testing.T) {
	for _, tc := range []struct{ format, group string }{{"openreports", "openreports.io"}, {"wgpolicy", "wgpolicyk8s.io"}} {
		m := mustRender(t, auditValues(map[string]any{"reports": map[string]any{"format": tc.format, "installCRDs": false}}))
		cr := get[*rbacv1.ClusterRole](t, m, "ClusterRole/meshguard-audit")
		readable := map[string]bool{}
		for _, r := range cr.Rules {
			writes := slices.ContainsFunc(r.Verbs, func(v string) bool { return v != "get" && v != "list" })
			review := slices.Equal(r.Verbs, []string{"create"}) && (slices.Equal(r.Resources, []string{"tokenreviews"}) ||
				slices.Equal(r.Resources, []string{"subjectaccessreviews"}))
			if review {
				continue
			}
			if writes && (len(r.APIGroups) != 1 || r.APIGroups[0] != tc.group) {
				t.Errorf("%s: write verbs outside the report group: %+v", tc.format, r)
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					readable[g+"/"+res] = slices.Contains(r.Verbs, "list")
				}
			}
		}
		for _, k := range api.DefaultRegistry().Kinds() {
			if !readable[k.Group+"/"+k.Plural] {
				t.Errorf("%s: cannot list %s.%s", tc.format, k.Plural, k.Group)
			}
		}
		// Reports: meshguard's own only, by name; other engines' reports in the
		// same resources are out of reach, and nothing is deleted in bulk.
		for _, r := range cr.Rules {
			if !slices.Contains(r.APIGroups, tc.group) {
				continue
			}
			if !slices.Equal(r.ResourceNames, []string{"meshguard"}) || slices.Contains(r.Verbs, "deletecollection") ||
				slices.Contains(r.Verbs, "update") || slices.Contains(r.Verbs, "*") {
				t.Errorf("%s: report rule %+v, want resourceNames [meshguard] without deletecollection", tc.format, r)
			}
		}
	}
}

// TestAuditMemoryLimit: the audit container has a memory limit and GOMEMLIMIT at
// memoryLimitRatio of it (Go's soft limit, so a large cluster's lists make the
// collector work rather than the pod OOM-killed); ratio 0 leaves Go's default; a
// limit GOMEMLIMIT cannot be computed from is refused by values.schema.json.
func TestAuditMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		limit any
		ratio float64
		want  string
	}{
		{nil, -1, "483183820"}, // the defaults: 0.9 × 512Mi
		{"1Gi", 0.5, "536870912"},
		{"300000000", 0.8, "240000000"},
		{"768Mi", 0, ""},
	} {
		extra := map[string]any{}
		if tc.limit != nil {
			extra["resources"] = map[string]any{"limits": map[string]any{"memory": tc.limit}}
		}
		if tc.ratio >= 0 {
			extra["memoryLimitRatio"] = tc.ratio
		}
		c := get[*appsv1.Deployment](t, mustRender(t, auditValues(extra)), "Deployment/meshguard-audit").Spec.Template.Spec.Containers[0]
		if c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%v: no memory limit", tc.limit)
		}
		got := ""
		for _, e := range c.Env {
			if e.Name == "GOMEMLIMIT" {
				got = e.Value
			}
		}
		if got != tc.want {
			t.Errorf("%v × %v: GOMEMLIMIT %q, want %q", tc.limit, tc.ratio, got, tc.want)
		}
	}
	for _, bad := range []map[string]any{
		{"resources": map[string]any{"limits": map[string]any{"memory": "512M"}}},
		{"resources": map[string]any{"limits": map[string]any{"memory": "lots"}}},
		{"memoryLimitRatio": 1.5},
	} {
		if _, err := renderChart(t, auditValues(bad), namespace); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestReportCRDs: installCRDs renders the upstream CRDs of the chosen format,
// kept on uninstall.
func TestReportCRDs(t *testing.T) {
	c := loadChart(t)
	for _, tc := range []struct {
		format string
		want   []string
	}{
		{"openreports", []string{"reports.openreports.io", "clusterreports.openreports.io"}},
		{"wgpolicy", []string{"policyreports.wgpolicyk8s.io", "clusterpolicyreports.wgpolicyk8s.io"}},
	} {
		vals := map[string]any{"audit": map[string]any{"enabled": true, "reports": map[string]any{"format": tc.format}}}
		rv, err := chartutil.ToRenderValues(c, vals, chartutil.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true}, chartutil.DefaultCapabilities)
		if err != nil {
			t.Fatal(err)
		}
		out, err := engine.Render(c, rv)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, doc := range strings.Split(out["meshguard/templates/report-crds.yaml"], "\n---\n") {
			var crd struct {
				Kind     string
				Metadata struct {
					Name        string
					Annotations map[string]string
				}
			}
			if err := sigsyaml.Unmarshal([]byte(doc), &crd); err != nil || crd.Kind != "CustomResourceDefinition" {
				continue
			}
			names = append(names, crd.Metadata.Name)
			if crd.Metadata.Annotations["helm.sh/resource-policy"] != "keep" {
				t.Errorf("%s not kept on uninstall", crd.Metadata.Name)
			}
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("%s: CRDs %v, want %v", tc.format, names, tc.want)
		}
	}
}

// TestAuditMetricsHardened: the audit pod's metrics are served like the
// webhook's: HTTPS behind the API server's token and access review with
// metrics.secure (its ClusterRole may create both reviews), the liveness probe on
// the plain /healthz port (a probe without a token would get 401 from /metrics),
// and a NetworkPolicy admitting only the scraper, only on the metrics port.
func TestAuditMetricsHardened(t *testing.T) {
	m := mustRender(t, auditValues(map[string]any{}))
	c := get[*appsv1.Deployment](t, m, "Deployment/meshguard-audit").Spec.Template.Spec.Containers[0]
	for _, w := range []string{"--metrics-secure=true", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081"} {
		if !slices.Contains(c.Args, w) {
			t.Errorf("args lack %s: %q", w, c.Args)
		}
	}
	if p := c.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.String() != "health" {
		t.Errorf("liveness probe %+v, want GET /healthz on the health port", p)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["metrics"] != 8080 || ports["health"] != 8081 {
		t.Errorf("container ports %v", ports)
	}
	reviews := func(m *manifests) (n int) {
		for _, r := range get[*rbacv1.ClusterRole](t, m, "ClusterRole/meshguard-audit").Rules {
			if slices.Contains(r.Resources, "tokenreviews") || slices.Contains(r.Resources, "subjectaccessreviews") {
				n++
			}
		}
		return n
	}
	if n := reviews(m); n != 2 {
		t.Errorf("audit ClusterRole grants %d of the two reviews", n)
	}
	np := get[*networkingv1.NetworkPolicy](t, m, "NetworkPolicy/meshguard-audit")
	d := get[*appsv1.Deployment](t, m, "Deployment/meshguard-audit")
	if !maps.Equal(np.Spec.PodSelector.MatchLabels, d.Spec.Selector.MatchLabels) {
		t.Errorf("podSelector %v, audit selector %v", np.Spec.PodSelector.MatchLabels, d.Spec.Selector.MatchLabels)
	}
	if got := npPorts(t, np); !slices.Equal(got, []string{"metrics"}) || len(np.Spec.Ingress[0].From) != 1 ||
		np.Spec.Ingress[0].From[0].PodSelector.MatchLabels["app.kubernetes.io/name"] != "prometheus" {
		t.Errorf("audit NetworkPolicy ingress %+v, want the metrics port from the scraper only", np.Spec.Ingress)
	}

	plain := mustRender(t, map[string]any{"audit": map[string]any{"enabled": true}, "metrics": map[string]any{"secure": false, "port": 9090},
		"networkPolicy": map[string]any{"enabled": false}})
	c = get[*appsv1.Deployment](t, plain, "Deployment/meshguard-audit").Spec.Template.Spec.Containers[0]
	if !slices.Contains(c.Args, "--metrics-secure=false") || !slices.Contains(c.Args, "--metrics-bind-address=:9090") {
		t.Errorf("metrics.secure false, port 9090: args %q", c.Args)
	}
	if n := reviews(plain); n != 0 {
		t.Errorf("plain metrics: the audit may still create %d reviews", n)
	}
	if plain.has("NetworkPolicy/meshguard-audit") {
		t.Error("networkPolicy.enabled false: audit NetworkPolicy rendered")
	}
}
