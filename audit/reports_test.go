package audit

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/live"
)

func finding(ns, kind, name, code, sev string, sup *lint.Suppression) lint.Finding {
	return lint.Finding{APIVersion: "kuma.io/v1alpha1", Kind: kind, Namespace: ns, Name: name, Code: code, Severity: sev,
		Field: "spec.from", Message: code + " message", Suppression: sup}
}

func testResult() Result {
	r := Result{objects: map[ref]objectInfo{
		{"kuma.io/v1alpha1", "MeshTimeout", "a", "t1"}:            {uid: "u1"},
		{"kuma.io/v1alpha1", "MeshTimeout", "a", "t2"}:            {uid: "u2"},
		{"kuma.io/v1alpha1", "MeshTimeout", "a", "t3"}:            {uid: "u3"},
		{"kuma.io/v1alpha1", "MeshRetry", "b", "r"}:               {uid: "u4"},
		{"kuma.io/v1alpha1", "Mesh", "", "default"}:               {uid: "u5"},
		{"v1", "Service", "a", "backend"}:                         {uid: "u6"},
		{"kuma.io/v1alpha1", "MeshTrafficPermission", "c", "mtp"}: {uid: "u7"},
	}}
	r.Findings = []lint.Finding{
		finding("a", "MeshTimeout", "t2", "MG102", "error", nil),
		finding("a", "MeshTimeout", "t1", "MG190", "warning", nil),
		finding("a", "MeshTimeout", "t1", "MG203", "warning", &lint.Suppression{Kind: lint.SuppressionInSource, Justification: "on purpose", Source: "metadata.annotations[meshguard.io/ignore]"}),
		finding("", "Mesh", "default", "MG020", "warning", nil),
		{File: "ignore.yaml", Line: 3, Code: "MG054", Severity: "warning"}, // about the ignore file: no object
	}
	return r
}

func results(u *unstructured.Unstructured) []string {
	var out []string
	rs, _, _ := unstructured.NestedSlice(u.Object, "results")
	for _, x := range rs {
		m := x.(map[string]any)
		res := m["resources"].([]any)[0].(map[string]any)
		out = append(out, res["name"].(string)+" "+m["policy"].(string)+" "+m["result"].(string)+" "+m["severity"].(string))
	}
	return out
}

func summary(u *unstructured.Unstructured) map[string]any {
	s, _, _ := unstructured.NestedMap(u.Object, "summary")
	return s
}

func TestBuild(t *testing.T) {
	now := time.Unix(1800000000, 0)
	reps := Build(testResult(), ReportOptions{Format: FormatOpenReports, Now: now})
	if len(reps) != 4 {
		t.Fatalf("reports for %v, want a, b, c and the cluster", keys(reps))
	}
	a := reps["a"]
	if a.GetKind() != "Report" || a.GetAPIVersion() != "openreports.io/v1alpha1" || a.GetNamespace() != "a" || a.GetName() != ReportName || a.Object["source"] != Source {
		t.Errorf("report a: %v", a.Object)
	}
	if diff := cmp.Diff([]string{"t1 MG190 warn medium", "t1 MG203 skip medium", "t2 MG102 fail high"}, results(a)); diff != "" {
		t.Errorf("results of a (-want +got):\n%s", diff)
	}
	// t3 has no finding: it passes; the Service is inventory and not counted.
	if diff := cmp.Diff(map[string]any{"pass": int64(1), "fail": int64(1), "warn": int64(1), "error": int64(0), "skip": int64(1)}, summary(a)); diff != "" {
		t.Errorf("summary of a (-want +got):\n%s", diff)
	}
	if b := reps["b"]; len(results(b)) != 0 || summary(b)["pass"] != int64(1) {
		t.Errorf("report b: %v", b.Object)
	}
	if cl := reps[""]; cl.GetKind() != "ClusterReport" || cl.GetNamespace() != "" || len(results(cl)) != 1 {
		t.Errorf("cluster report: %v", cl.Object)
	}
	rs, _, _ := unstructured.NestedSlice(a.Object, "results")
	first := rs[0].(map[string]any)
	if first["resources"].([]any)[0].(map[string]any)["uid"] != "u1" || first["timestamp"].(map[string]any)["seconds"] != now.Unix() {
		t.Errorf("result: %v", first)
	}
	sup := rs[1].(map[string]any)["properties"].(map[string]any)
	if sup["justification"] != "on purpose" || sup["suppressed"] != "inSource" {
		t.Errorf("suppressed result properties: %v", sup)
	}
	// The results are plain JSON values: the report can be applied as is.
	if err := unstructured.SetNestedField(a.DeepCopy().Object, "x", "metadata", "name"); err != nil {
		t.Errorf("not deep-copyable JSON: %v", err)
	}
}

func TestBuildWGPolicyAndBound(t *testing.T) {
	reps := Build(testResult(), ReportOptions{Format: FormatWGPolicy, MaxResults: 2, Now: time.Now()})
	a := reps["a"]
	if a.GetKind() != "PolicyReport" || a.GetAPIVersion() != "wgpolicyk8s.io/v1alpha2" || reps[""].GetKind() != "ClusterPolicyReport" {
		t.Errorf("kinds: %s %s", a.GetKind(), reps[""].GetKind())
	}
	if _, ok := a.Object["source"]; ok {
		t.Error("wg-policy v1alpha2 has no report-level source")
	}
	// Two results listed, the summary still counts three findings.
	// Errors are kept first when the report is cut short.
	if got := results(a); len(got) != 2 || !slices.Contains(got, "t2 MG102 fail high") {
		t.Errorf("results %q, want 2 with the error", got)
	}
	if s := summary(a); s["fail"].(int64)+s["warn"].(int64)+s["skip"].(int64) != 3 {
		t.Errorf("summary %v", s)
	}
}

func keys(m map[string]*unstructured.Unstructured) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestSyncedBy(t *testing.T) {
	obj := func(origin string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		if origin != "" {
			u.SetLabels(map[string]string{"kuma.io/origin": origin})
		}
		return u
	}
	for _, tc := range []struct {
		mode   api.Mode
		origin string
		want   bool
	}{
		{api.ModeZone, "global", true},
		{api.ModeZone, "zone", false},
		{api.ModeZone, "", false},
		{api.ModeGlobal, "zone", true},
		{api.ModeGlobal, "global", false},
		{api.ModeStandalone, "global", false},
	} {
		if got := SyncedBy(tc.mode)(obj(tc.origin)); got != tc.want {
			t.Errorf("SyncedBy(%s)(origin %q) = %v", tc.mode, tc.origin, got)
		}
	}
}

func TestDescribe(t *testing.T) {
	r := Result{Policies: 3, Inventory: 7, Skipped: []live.Skipped{
		{Resource: "servers.policy.linkerd.io/v1beta3", Kind: "Server", Reason: "not served by the cluster (CRD not installed)"},
		{Resource: "httproutes.policy.linkerd.io/v1beta3", Kind: "HTTPRoute", Reason: "not served by the cluster (CRD not installed)"},
		{Resource: "meshtimeouts.kuma.io/v1alpha1", Kind: "MeshTimeout", Reason: "forbidden: no"},
	}}
	want := []string{
		"audited 3 stored policies (and 7 Namespaces, Services, ServiceAccounts and workloads for the cross-object checks)",
		"not read: MeshTimeout (meshtimeouts.kuma.io/v1alpha1): forbidden: no",
		"not served by the cluster (CRDs not installed), not read: policy.linkerd.io Server, HTTPRoute",
	}
	if diff := cmp.Diff(want, r.Describe()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
