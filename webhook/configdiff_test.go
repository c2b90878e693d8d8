package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/engine"
	"github.com/meshguard/meshguard/lint"
)

// exampleObjects reads a side of examples/diff/kuma-timeout as the cluster
// stores it (defaulted as the mutating webhook writes it).
func exampleObjects(t *testing.T, side string) []*unstructured.Unstructured {
	t.Helper()
	o := lint.Options{Settings: api.DefaultSettings(), Namespace: "default", Registry: api.DefaultRegistry()}
	loaded := lint.LoadAll([]string{"../examples/diff/kuma-timeout/" + side}, nil, lint.LoadOptions{})
	kuma, notes := lint.KumaObjects(loaded.Docs, o)
	if len(notes) > 0 || len(kuma) == 0 {
		t.Fatalf("reading %s: %d objects, notes %v", side, len(kuma), notes)
	}
	objs := make([]*unstructured.Unstructured, len(kuma))
	for i, k := range kuma {
		objs[i] = k.Unstructured
	}
	return objs
}

func findObject(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o.DeepCopy()
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}

// configEngine is the handlers with the config-diff check over objs as the
// informer caches would hold them.
func configEngine(objs ...*unstructured.Unstructured) *Handlers {
	src := &engine.Objects{Complete: true}
	for _, o := range objs {
		src.Add(o)
	}
	h := testEngine()
	h.ConfigChange = NewConfigChange(src, h.Registry, nil)
	return h
}

func configLinesOf(ws []string) []string {
	var out []string
	for _, w := range ws {
		if strings.HasPrefix(w, "config-diff:") {
			out = append(out, w)
		}
	}
	return out
}

// TestConfigChangeOnUpdate: the example's MeshTimeout change, applied over the
// stored old set, says how many proxies change, the first change, and names
// them in the audit annotation.
func TestConfigChangeOnUpdate(t *testing.T) {
	old := exampleObjects(t, "old")
	h := configEngine(old...)
	obj := findObject(t, exampleObjects(t, "new"), "MeshTimeout", "mesh-timeouts")
	prev := findObject(t, old, "MeshTimeout", "mesh-timeouts")
	resp := h.Validate(context.Background(), admissionRequest(t, "1", admissionv1.Update, obj, prev, "alice"))
	if !resp.Allowed {
		t.Fatalf("denied: %v", resp.Result)
	}
	lines := configLinesOf(resp.Warnings)
	want := []string{
		"config-diff: changes the effective configuration of 5 of 5 proxies it selects",
		"config-diff: 5 proxies: MeshTimeout connectionTimeout: 5s → 2s on outbound to MeshService shop/backend port http",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range resp.Warnings {
		if len(l) > MaxWarningLen {
			t.Errorf("line longer than %d: %q", MaxWarningLen, l)
		}
	}
	var ann configAnnotationDoc
	if err := json.Unmarshal([]byte(resp.AuditAnnotations["config-diff"]), &ann); err != nil {
		t.Fatalf("annotation %q: %v", resp.AuditAnnotations["config-diff"], err)
	}
	if ann.Selected != 5 || ann.Evaluated != 5 || strings.Join(ann.Changed, ",") != "shop/backend-1,shop/backend-2,shop/checkout-1,web/frontend-1,web/frontend-2" {
		t.Errorf("annotation: %+v", ann)
	}
}

// TestConfigChangeOnCreate: a new consumer MeshTimeout selects the frontends
// only; a stored object applied unchanged changes nothing.
func TestConfigChangeOnCreate(t *testing.T) {
	old := exampleObjects(t, "old")
	h := configEngine(old...)
	obj := findObject(t, exampleObjects(t, "new"), "MeshTimeout", "frontend-to-checkout")
	resp := h.Validate(context.Background(), admissionRequest(t, "1", admissionv1.Create, obj, nil, "alice"))
	lines := configLinesOf(resp.Warnings)
	if len(lines) != 2 || lines[0] != "config-diff: changes the effective configuration of 2 of 2 proxies it selects" ||
		lines[1] != "config-diff: 2 proxies: MeshTimeout http.requestTimeout: 15s → 30s on outbound to MeshService shop/checkout port http" {
		t.Fatalf("lines: %q", lines)
	}
	// Two fields change: the second is counted on a third line.
	to, _, _ := unstructured.NestedSlice(obj.Object, "spec", "to")
	to[0].(map[string]any)["default"].(map[string]any)["connectionTimeout"] = "1s"
	if err := unstructured.SetNestedSlice(obj.Object, to, "spec", "to"); err != nil {
		t.Fatal(err)
	}
	resp = h.Validate(context.Background(), admissionRequest(t, "3", admissionv1.Create, obj, nil, "alice"))
	if lines := configLinesOf(resp.Warnings); len(lines) != 3 || lines[2] != "config-diff: and 1 more changes (the config-diff audit annotation lists them, `meshguard diff` too)" {
		t.Errorf("two changes: %q", lines)
	}
	same := findObject(t, old, "MeshRetry", "backend-retry")
	resp = h.Validate(context.Background(), admissionRequest(t, "2", admissionv1.Update, same, same, "alice"))
	if lines := configLinesOf(resp.Warnings); len(lines) != 1 || lines[0] != "config-diff: changes no proxy's effective configuration among 5 proxies it selects" {
		t.Errorf("unchanged: %q", lines)
	}
	if _, ok := resp.AuditAnnotations["config-diff"]; !ok {
		t.Error("no config-diff annotation for an unchanged policy")
	}
}

// TestConfigChangeIsBounded: past MaxConfigDiffProxies selected proxies, the
// first ones are evaluated and the line says so.
func TestConfigChangeIsBounded(t *testing.T) {
	old := exampleObjects(t, "old")
	proto := findObject(t, old, "Dataplane", "backend-1")
	for i := range MaxConfigDiffProxies {
		dp := proto.DeepCopy()
		dp.SetName(fmt.Sprintf("extra-%02d", i))
		old = append(old, dp)
	}
	h := configEngine(old...)
	obj := findObject(t, exampleObjects(t, "new"), "MeshTimeout", "mesh-timeouts")
	prev := findObject(t, old, "MeshTimeout", "mesh-timeouts")
	resp := h.Validate(context.Background(), admissionRequest(t, "1", admissionv1.Update, obj, prev, "alice"))
	lines := configLinesOf(resp.Warnings)
	want := fmt.Sprintf("config-diff: changes the effective configuration of %d of the first %d of the %d proxies it selects (bound per request)",
		MaxConfigDiffProxies, MaxConfigDiffProxies, MaxConfigDiffProxies+5)
	if len(lines) == 0 || lines[0] != want {
		t.Errorf("lines: %q\nwant %q", lines, want)
	}
}

// TestConfigChangeSkipsLargeMeshes: past MaxConfigDiffMeshProxies Dataplanes in
// the mesh, the request does not read them and says so.
func TestConfigChangeSkipsLargeMeshes(t *testing.T) {
	old := exampleObjects(t, "old")
	proto := findObject(t, old, "Dataplane", "backend-1")
	for i := range MaxConfigDiffMeshProxies {
		dp := proto.DeepCopy()
		dp.SetName(fmt.Sprintf("extra-%04d", i))
		old = append(old, dp)
	}
	h := configEngine(old...)
	obj := findObject(t, exampleObjects(t, "new"), "MeshTimeout", "mesh-timeouts")
	resp := h.Validate(context.Background(), admissionRequest(t, "1", admissionv1.Update, obj, findObject(t, old, "MeshTimeout", "mesh-timeouts"), "alice"))
	want := fmt.Sprintf("config-diff: not computed: mesh default has %d proxies, over the %d read at admission; see `meshguard diff`",
		MaxConfigDiffMeshProxies+5, MaxConfigDiffMeshProxies)
	if lines := configLinesOf(resp.Warnings); len(lines) != 1 || lines[0] != want {
		t.Errorf("lines: %q", lines)
	}
}

// TestConfigChangeWithoutCaches: when the caches cannot say which Dataplanes
// exist, the line says the check did not run; MeshTrafficPermissions and
// resources get no config-diff line.
func TestConfigChangeWithoutCaches(t *testing.T) {
	h := testEngine()
	h.ConfigChange = NewConfigChange(&engine.Objects{}, h.Registry, nil)
	obj := findObject(t, exampleObjects(t, "new"), "MeshTimeout", "mesh-timeouts")
	resp := h.Validate(context.Background(), admissionRequest(t, "1", admissionv1.Create, obj, nil, "alice"))
	if lines := configLinesOf(resp.Warnings); len(lines) != 1 || lines[0] != "config-diff: not computed: the informer cache of Dataplanes is not ready" {
		t.Errorf("lines: %q", lines)
	}
	// A policy of a mesh without Dataplanes: nothing said; one that selects
	// none of the mesh's proxies: one line.
	var noProxies []*unstructured.Unstructured
	for _, o := range exampleObjects(t, "old") {
		if o.GetKind() != "Dataplane" {
			noProxies = append(noProxies, o)
		}
	}
	resp = configEngine(noProxies...).Validate(context.Background(), admissionRequest(t, "1", admissionv1.Create, obj, nil, "alice"))
	if lines := configLinesOf(resp.Warnings); len(lines) != 0 {
		t.Errorf("no Dataplanes: %q", lines)
	}
	h = configEngine(exampleObjects(t, "old")...)
	none := obj.DeepCopy()
	if err := unstructured.SetNestedMap(none.Object, map[string]any{"kind": "Dataplane", "labels": map[string]any{"app": "nothing"}}, "spec", "targetRef"); err != nil {
		t.Fatal(err)
	}
	resp = h.Validate(context.Background(), admissionRequest(t, "1", admissionv1.Create, none, nil, "alice"))
	if lines := configLinesOf(resp.Warnings); len(lines) != 1 || lines[0] != "config-diff: selects none of the 5 proxies of mesh default; changes no proxy's configuration" {
		t.Errorf("selects none: %q", lines)
	}
	for _, doc := range []string{denyAll, `apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata: {name: extra, namespace: shop}
spec:
  selector: {dataplaneTags: {kuma.io/service: extra}}
  ports: [{name: http, port: 80, targetPort: 8080, appProtocol: http}]`} {
		resp := h.Validate(context.Background(), admissionRequest(t, "1", admissionv1.Create, mustObj(t, doc), nil, "alice"))
		if lines := configLinesOf(resp.Warnings); len(lines) != 0 {
			t.Errorf("%s: %q", mustObj(t, doc).GetKind(), lines)
		}
	}
}

// BenchmarkConfigChange times one admission's config-diff: the example's
// MeshTimeout UPDATE over its 5 proxies, and over MaxConfigDiffMeshProxies Dataplanes in all of which
// MaxConfigDiffProxies are evaluated (docs/performance.md has the command).
func BenchmarkConfigChange(b *testing.B) {
	t := &testing.T{}
	old := exampleObjects(t, "old")
	obj := findObject(t, exampleObjects(t, "new"), "MeshTimeout", "mesh-timeouts")
	prev := findObject(t, old, "MeshTimeout", "mesh-timeouts")
	proto := findObject(t, old, "Dataplane", "backend-1")
	many := append([]*unstructured.Unstructured{}, old...)
	for i := range MaxConfigDiffMeshProxies - 5 {
		dp := proto.DeepCopy()
		dp.SetName(fmt.Sprintf("extra-%03d", i))
		many = append(many, dp)
	}
	for _, c := range []struct {
		name string
		objs []*unstructured.Unstructured
	}{{"proxies=5", old}, {"proxies=2000", many}} {
		b.Run(c.name, func(b *testing.B) {
			h := configEngine(c.objs...)
			for b.Loop() {
				lines, _ := h.ConfigChange(context.Background(), obj, prev)
				if len(lines) == 0 {
					b.Fatal("no lines")
				}
			}
		})
	}
}
