package defaults

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
)

func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func kindOf(t *testing.T, u *unstructured.Unstructured) *api.Kind {
	k := api.DefaultRegistry().Lookup(u.GroupVersionKind())
	if k == nil {
		t.Fatalf("unregistered %v", u.GroupVersionKind())
	}
	return k
}

func zoneSettings() api.Settings {
	s := api.DefaultSettings()
	s.Mode, s.Zone = api.ModeZone, "zone-1"
	return s
}

// TestSeedSugar checks the policy-on-namespace MADR's "semantically equal" pairs: the short form, once
// defaulted, equals the explicit form (without a MeshSubset: Kuma deprecates that kind).
func TestSeedSugar(t *testing.T) {
	cases := []struct {
		name      string
		s         api.Settings
		in, want  string
		wantLabel map[string]string
	}{
		{
			name: "producer: empty targetRef and namespace",
			s:    zoneSettings(),
			in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: p, namespace: backend-ns}
spec:
  to:
    - targetRef: {kind: MeshService, name: backend}`,
			want: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: p
  namespace: backend-ns
  labels: {kuma.io/mesh: default, k8s.kuma.io/namespace: backend-ns, kuma.io/policy-role: producer,
    kuma.io/origin: zone, kuma.io/zone: zone-1, kuma.io/env: kubernetes}
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: backend-ns}`,
		},
		{
			name: "workload-owner: empty from targetRef",
			s:    zoneSettings(),
			in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: w, namespace: backend-ns}
spec:
  from:
    - default: {}`,
			want: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: w
  namespace: backend-ns
  labels: {kuma.io/mesh: default, k8s.kuma.io/namespace: backend-ns, kuma.io/policy-role: workload-owner,
    kuma.io/origin: zone, kuma.io/zone: zone-1, kuma.io/env: kubernetes}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {}`,
		},
		{
			name: "consumer keeps the other namespace; unknown fields survive",
			s:    api.DefaultSettings(),
			in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: c, namespace: frontend-ns, labels: {kuma.io/mesh: prod}}
spec:
  futureField: {keep: me}
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: backend-ns}
      default: {someNewKnob: 3}`,
			want: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: c
  namespace: frontend-ns
  labels: {kuma.io/mesh: prod, k8s.kuma.io/namespace: frontend-ns, kuma.io/policy-role: consumer}
spec:
  futureField: {keep: me}
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: backend-ns}
      default: {someNewKnob: 3}`,
		},
		{
			name: "system namespace: no namespace sugar, role system, wrong owned labels overwritten",
			s:    api.DefaultSettings(),
			in: `apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata: {name: r, namespace: kuma-system, labels: {k8s.kuma.io/namespace: x, kuma.io/policy-role: consumer}}
spec:
  targetRef: {kind: MeshGateway, name: edge}
  to:
    - targetRef: {kind: Mesh}
      rules:
        - default:
            backendRefs: [{kind: MeshService, name: backend}]`,
			want: `apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata:
  name: r
  namespace: kuma-system
  labels: {kuma.io/mesh: default, k8s.kuma.io/namespace: kuma-system, kuma.io/policy-role: system}
spec:
  targetRef: {kind: MeshGateway, name: edge}
  to:
    - targetRef: {kind: Mesh}
      rules:
        - default:
            backendRefs: [{kind: MeshService, name: backend}]`,
		},
		{
			name: "route backendRefs and mirrors get the policy namespace",
			s:    api.DefaultSettings(),
			in: `apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata: {name: r, namespace: backend-ns}
spec:
  to:
    - targetRef: {kind: MeshService, name: backend}
      rules:
        - default:
            filters: [{type: RequestMirror, requestMirror: {backendRef: {kind: MeshService, name: shadow}}}]
            backendRefs: [{kind: MeshService, name: backend-v2}, {kind: MeshServiceSubset, name: backend, tags: {version: v2}}]`,
			want: `apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata:
  name: r
  namespace: backend-ns
  labels: {kuma.io/mesh: default, k8s.kuma.io/namespace: backend-ns, kuma.io/policy-role: producer}
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: backend-ns}
      rules:
        - default:
            filters: [{type: RequestMirror, requestMirror: {backendRef: {kind: MeshService, name: shadow, namespace: backend-ns}}}]
            backendRefs: [{kind: MeshService, name: backend-v2, namespace: backend-ns}, {kind: MeshServiceSubset, name: backend, tags: {version: v2}}]`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := obj(t, tc.in)
			Apply(u, kindOf(t, u), tc.s, api.Request{Operation: api.OpCreate})
			want := obj(t, tc.want)
			if diff := cmp.Diff(want.Object, u.Object); diff != "" {
				t.Errorf("defaulted object (-want +got):\n%s", diff)
			}
			again := u.DeepCopy()
			Apply(again, kindOf(t, again), tc.s, api.Request{Operation: api.OpCreate})
			if diff := cmp.Diff(u.Object, again.Object); diff != "" {
				t.Errorf("not idempotent (-first +second):\n%s", diff)
			}
		})
	}
}

func TestKeepAndTrustedWriters(t *testing.T) {
	in := `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: p, namespace: backend-ns, labels: {kuma.io/origin: global}}
spec:
  to:
    - targetRef: {kind: MeshService, name: backend}`
	// --sugar=keep: labels only.
	s := api.DefaultSettings()
	s.Sugar = api.SugarKeep
	u := obj(t, `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: p, namespace: backend-ns}
spec:
  to:
    - targetRef: {kind: MeshService, name: backend}`)
	spec := runtime.DeepCopyJSONValue(u.Object["spec"])
	Apply(u, kindOf(t, u), s, api.Request{Operation: api.OpCreate})
	if diff := cmp.Diff(spec, u.Object["spec"]); diff != "" {
		t.Errorf("keep changed spec:\n%s", diff)
	}
	if u.GetLabels()[api.LabelPolicyRole] != "producer" {
		t.Errorf("keep must still label: %v", u.GetLabels())
	}
	// Objects synced from global are stored untouched on a zone, and so are
	// privileged writes.
	for name, req := range map[string]api.Request{
		"other side": {Operation: api.OpCreate},
		"privileged": {Operation: api.OpCreate, Privileged: true},
	} {
		u := obj(t, in)
		before := u.DeepCopy()
		Apply(u, kindOf(t, u), zoneSettings(), req)
		if diff := cmp.Diff(before.Object, u.Object); diff != "" {
			t.Errorf("%s: object changed:\n%s", name, diff)
		}
	}
}

// TestMeshDefaults: with --sugar expand the mutating stage writes the prometheus
// defaults Kuma's defaulting webhook writes into a Mesh, and only what is absent.
func TestMeshDefaults(t *testing.T) {
	in := obj(t, `apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata: {name: default}
spec:
  metrics:
    enabledBackend: prom
    backends:
      - name: prom
        type: prometheus
      - name: prom-2
        type: prometheus
        conf: {port: 1234, skipMTLS: true, tags: {team: a}}`)
	s := api.DefaultSettings()
	ApplyChanges(in, kindOf(t, in), s, api.Request{Operation: api.OpCreate})
	want := obj(t, `apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata: {name: default, labels: {}}
spec:
  metrics:
    enabledBackend: prom
    backends:
      - name: prom
        type: prometheus
        conf: {port: 5670, path: /metrics, tags: {kuma.io/service: dataplane-metrics}, tls: {mode: activeMTLSBackend}}
      - name: prom-2
        type: prometheus
        conf: {port: 1234, path: /metrics, skipMTLS: true, tags: {team: a}, tls: {mode: disabled}}`)
	// numbers: YAML gives float64, the mutating stage int64, as unstructured objects do
	if w, g := fmt.Sprint(want.Object), fmt.Sprint(in.Object); w != g {
		t.Errorf("want\n%s\ngot\n%s", w, g)
	}
	keep := obj(t, `apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata: {name: default}
spec:
  metrics:
    backends: [{name: prom, type: prometheus}]`)
	s.Sugar = api.SugarKeep
	if _, changes := ApplyChanges(keep, kindOf(t, keep), s, api.Request{Operation: api.OpCreate}); len(changes) > 1 {
		t.Errorf("--sugar keep writes no spec values, got %v", changes)
	}
}

// TestResourceLabels checks the labels Kuma's defaulting webhook computes for
// resources (pkg/core/resources/labels Compute): the mesh of mesh-scoped kinds, the
// zone origin of kinds a zone provides (MeshGateway too), and the namespace of
// locally originated objects, which on global includes those marked global.
func TestResourceLabels(t *testing.T) {
	cases := []struct {
		name string
		s    api.Settings
		doc  string
		want map[string]string
	}{
		{"MeshService on a zone", zoneSettings(), "kind: MeshService\nmetadata: {name: a, namespace: ns}",
			map[string]string{"kuma.io/mesh": "default", "kuma.io/origin": "zone", "kuma.io/zone": "zone-1", "kuma.io/env": "kubernetes", "k8s.kuma.io/namespace": "ns"}},
		{"MeshGateway on a zone", zoneSettings(), "kind: MeshGateway\nmetadata: {name: a}",
			map[string]string{"kuma.io/mesh": "default", "kuma.io/origin": "zone", "kuma.io/zone": "zone-1", "kuma.io/env": "kubernetes"}},
		{"MeshGateway's top-level mesh wins over its label", api.DefaultSettings(), "kind: MeshGateway\nmesh: edge\nmetadata: {name: a, labels: {kuma.io/mesh: default}}",
			map[string]string{"kuma.io/mesh": "edge"}},
		{"MeshMultiZoneService on a zone", zoneSettings(), "kind: MeshMultiZoneService\nmetadata: {name: a, namespace: kuma-system}",
			map[string]string{"kuma.io/mesh": "default", "k8s.kuma.io/namespace": "kuma-system"}},
		{"HostnameGenerator marked global, on global", func() api.Settings { s := api.DefaultSettings(); s.Mode = api.ModeGlobal; return s }(),
			"kind: HostnameGenerator\nmetadata: {name: a, namespace: kuma-system, labels: {kuma.io/origin: global}}",
			map[string]string{"kuma.io/origin": "global", "k8s.kuma.io/namespace": "kuma-system"}},
		{"HostnameGenerator marked global, on a standalone zone", api.DefaultSettings(),
			"kind: HostnameGenerator\nmetadata: {name: a, namespace: kuma-system, labels: {kuma.io/origin: global}}",
			map[string]string{"kuma.io/origin": "global"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := obj(t, "apiVersion: kuma.io/v1alpha1\n"+c.doc+"\nspec: {}")
			Apply(o, kindOf(t, o), c.s, api.Request{Operation: api.OpCreate})
			if diff := cmp.Diff(c.want, o.GetLabels()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
