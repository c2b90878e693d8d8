package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/linkerd"
	"github.com/meshguard/meshguard/validate"
)

func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func kindOf(t *testing.T, u *unstructured.Unstructured) *api.Kind {
	t.Helper()
	k := api.DefaultRegistry().Lookup(u.GroupVersionKind())
	if k == nil {
		t.Fatalf("no registry kind for %v", u.GroupVersionKind())
	}
	return k
}

func rateLimit(name, server string) string {
	return `apiVersion: policy.linkerd.io/v1alpha1
kind: HTTPLocalRateLimitPolicy
metadata: {name: ` + name + `, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: ` + server + `}
  total: {requestsPerSecond: 100}
`
}

func route(parent string) string {
	return `apiVersion: policy.linkerd.io/v1beta3
kind: HTTPRoute
metadata: {name: out, namespace: shop}
spec:
  parentRefs:
    - {group: policy.linkerd.io, kind: EgressNetwork, name: ` + parent + `, port: 443}
  rules:
    - backendRefs: [{group: policy.linkerd.io, kind: EgressNetwork, name: ` + parent + `, port: 443}]
`
}

const egress = `apiVersion: policy.linkerd.io/v1alpha1
kind: EgressNetwork
metadata: {name: internet, namespace: shop}
spec: {trafficPolicy: Allow}
`

func server(name, port string) string {
	return `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: ` + name + `, namespace: shop}
spec:
  podSelector: {matchLabels: {app: web}}
  port: ` + port + `
`
}

// found is a finding as the tests compare it: code, field and severity.
type found struct{ Code, Field, Severity string }

func summarize(v Verdict) []found {
	var out []found
	add := func(errs field.ErrorList, sev string) {
		for _, e := range errs {
			out = append(out, found{e.Origin, e.Field, sev})
		}
	}
	add(v.Errors, "error")
	add(v.Warnings, "warning")
	return out
}

// TestCrossChecksOnAdmission: each cross-object check, through Judge, against a
// cluster's objects: what exists, what does not, and a source that cannot say.
func TestCrossChecksOnAdmission(t *testing.T) {
	tests := []struct {
		name    string
		subject string
		stored  []string
		unknown bool // the source cannot list (a cache not synced)
		deny    map[string]bool
		want    []found
	}{
		{name: "second rate-limit policy on a Server", subject: rateLimit("b", "web"), stored: []string{rateLimit("a", "web")},
			want: []found{{validate.CodeLinkerdRateLimitConflict, "spec.targetRef", "warning"}}},
		{name: "rate-limit policy on another Server", subject: rateLimit("b", "api"), stored: []string{rateLimit("a", "web")}},
		{name: "rate-limit policy updated in place", subject: rateLimit("a", "web"), stored: []string{rateLimit("a", "web")}},
		{name: "route to a missing EgressNetwork", subject: route("internt"), stored: []string{egress},
			want: []found{{validate.CodeLinkerdMissingEgressNet, "spec.parentRefs[0]", "warning"}}},
		{name: "route to an existing EgressNetwork", subject: route("internet"), stored: []string{egress}},
		{name: "route, EgressNetworks not known", subject: route("internt"), unknown: true},
		{name: "route, no EgressNetwork in the cluster", subject: route("internet"),
			want: []found{{validate.CodeLinkerdMissingEgressNet, "spec.parentRefs[0]", "warning"}}},
		{name: "conflicting Server", subject: server("b", "8080"), stored: []string{server("a", "8080")},
			want: []found{{validate.CodeLinkerdServerConflict, "spec.podSelector", "warning"}}},
		{name: "conflicting Server, denied", subject: server("b", "8080"), stored: []string{server("a", "8080")},
			deny: map[string]bool{validate.CodeLinkerdServerConflict: true},
			want: []found{{validate.CodeLinkerdServerConflict, "spec.podSelector", "error"}}},
		{name: "Server on another port", subject: server("b", "9090"), stored: []string{server("a", "8080")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &Objects{Complete: !tt.unknown, In: ScopeCluster}
			for _, doc := range tt.stored {
				src.Add(obj(t, doc))
			}
			eng := New(api.DefaultSettings())
			eng.Deny = tt.deny
			u := obj(t, tt.subject)
			v := eng.Judge(context.Background(), Input{Object: u, Kind: kindOf(t, u), Source: src, Suppress: true,
				Request: api.Request{Operation: api.OpCreate}})
			if diff := cmp.Diff(tt.want, summarize(v)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCrossWording: a finding says where it looked: the linted files or the cluster.
func TestCrossWording(t *testing.T) {
	for scope, want := range map[Scope]string{ScopeCluster: "does not exist in the cluster", ScopeFiles: "is not in the linted files"} {
		src := &Objects{Complete: true, In: scope}
		u := obj(t, route("internt"))
		v := New(api.DefaultSettings()).Judge(context.Background(), Input{Object: u, Kind: kindOf(t, u), Source: src,
			Request: api.Request{Operation: api.OpCreate}})
		if len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0].Detail, want) {
			t.Errorf("scope %v: warnings %v, want one saying %q", scope, v.Warnings, want)
		}
	}
}

// TestStrictMakesAbsenceAnError: where the source is complete (lint's
// --strict-references), a missing EgressNetwork is an error; a conflict is not.
func TestStrictMakesAbsenceAnError(t *testing.T) {
	src := &Objects{Complete: true}
	src.Add(obj(t, rateLimit("a", "web")))
	eng := New(api.DefaultSettings())
	for _, tt := range []struct {
		doc        string
		errs, warn int
	}{{route("internt"), 1, 0}, {rateLimit("b", "web"), 0, 1}} {
		u := obj(t, tt.doc)
		res := validate.Validate(u, kindOf(t, u), eng.Settings, api.Request{Operation: api.OpCreate})
		errs, warns := eng.Cross(context.Background(), Subject{Object: u, Kind: kindOf(t, u), Spec: res.Spec}, src, true)
		if len(errs) != tt.errs || len(warns) != tt.warn {
			t.Errorf("%s: %d errors, %d warnings; want %d, %d", u.GetKind(), len(errs), len(warns), tt.errs, tt.warn)
		}
	}
}

// TestCrossWarningsSuppressed: the object's meshguard.io/ignore annotation accepts
// a cross-object warning as it accepts a validation warning.
func TestCrossWarningsSuppressed(t *testing.T) {
	src := &Objects{Complete: true, In: ScopeCluster}
	src.Add(obj(t, rateLimit("a", "web")))
	u := obj(t, rateLimit("b", "web"))
	u.SetAnnotations(map[string]string{validate.AnnotationIgnore: validate.CodeLinkerdRateLimitConflict + ": a is deleted next"})
	eng := New(api.DefaultSettings())
	eng.Now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	v := eng.Judge(context.Background(), Input{Object: u, Kind: kindOf(t, u), Source: src, Suppress: true,
		Request: api.Request{Operation: api.OpCreate}})
	if got := summarize(v); len(got) != 0 {
		t.Errorf("findings %v, want none: MG370 is suppressed with a reason", got)
	}
}

// TestEveryCheckIsWellFormed: every row of the table has a code, subjects that
// are registry kinds, and one of Run and RunAll; CrossKinds covers what they declare.
func TestEveryCheckIsWellFormed(t *testing.T) {
	reg := api.DefaultRegistry()
	checks := CrossChecks()
	kinds := CrossKinds(checks)
	for _, c := range checks {
		if len(c.Codes) == 0 || (c.Run == nil) == (c.RunAll == nil) || len(c.Subjects) == 0 {
			t.Errorf("check %v is incomplete", c.Codes)
		}
		for _, gk := range c.Subjects {
			if reg.Storage(gk.Group, gk.Kind) == nil {
				t.Errorf("%v judges %v, which is not a registry kind", c.Codes, gk)
			}
			if !kinds[gk] {
				t.Errorf("CrossKinds misses %v", gk)
			}
		}
		for _, gk := range c.Inputs {
			if !kinds[gk] {
				t.Errorf("CrossKinds misses %v", gk)
			}
		}
	}
	mtp := schema.GroupKind{Group: api.KumaGroup, Kind: api.KindMeshTrafficPermission}
	if gates := GatedKinds(checks)[mtp]; len(gates) == 0 || gates[0] != dataplaneGK {
		t.Error("MeshTrafficPermissions are read only by checks gated on Dataplanes: a lint run of policies without proxies must not keep them")
	}
	for _, gk := range kubeWorkloads() {
		if _, held := GatedKinds(checks)[gk]; held {
			t.Errorf("%v opens the Kuma effects check: it is a gate, never held back", gk)
		}
	}
}

// TestServerConflictThroughWorkloads: a numeric and a named port conflict where a
// workload the source holds names that port with that number, and only there.
func TestServerConflictThroughWorkloads(t *testing.T) {
	deploy := obj(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx, ports: [{name: http, containerPort: 8080}]}]}
`)
	w, ok := linkerd.WorkloadFromObject(deploy)
	if !ok {
		t.Fatal("not a workload")
	}
	for _, withWorkload := range []bool{true, false} {
		src := &Objects{}
		src.Add(obj(t, server("a", "8080")))
		if withWorkload {
			src.AddWorkload(w)
		}
		u := obj(t, server("b", "http"))
		v := New(api.DefaultSettings()).Judge(context.Background(), Input{Object: u, Kind: kindOf(t, u), Source: src,
			Request: api.Request{Operation: api.OpCreate}})
		got := len(v.Warnings) == 1 && strings.Contains(v.Warnings[0].Detail, "named http in Deployment web")
		if got != withWorkload {
			t.Errorf("with the workload %v: warnings %v", withWorkload, v.Warnings)
		}
	}
}

// TestObjectsLaterCopyReplaces: an object added again under its kind, namespace
// and name replaces the first copy, as a later apply does; a rate-limit policy
// moved to another Server no longer shares the first.
func TestObjectsLaterCopyReplaces(t *testing.T) {
	src := &Objects{}
	src.Add(obj(t, rateLimit("a", "web")))
	src.Add(obj(t, rateLimit("a", "api")))
	for _, ns := range []string{"shop", ""} {
		if objs, _ := src.List(context.Background(), rateLimitGK, ns); len(objs) != 1 || rateLimitTarget(objs[0]) != "api" {
			t.Fatalf("namespace %q: %d objects, want the later copy alone", ns, len(objs))
		}
	}
	u := obj(t, rateLimit("b", "web"))
	v := New(api.DefaultSettings()).Judge(context.Background(), Input{Object: u, Kind: kindOf(t, u), Source: src,
		Request: api.Request{Operation: api.OpCreate}})
	if len(v.Warnings) != 0 {
		t.Errorf("warnings %v: a's later copy targets another Server", v.Warnings)
	}
}
