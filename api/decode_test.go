package api

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

func TestCheckReportsPathsAndCleans(t *testing.T) {
	in := map[string]any{}
	if err := yaml.Unmarshal([]byte(`
targetRef: {kind: Mesh, Name: x}
to:
  - targetRef: {kind: 5}
    default: {anything: goes}
  - targetRef: "Mesh"
from: {not: a list}
rules: [{matches: [1, 2], default: {}, extra: true}]
`), &in); err != nil {
		t.Fatal(err)
	}
	r := Check(reflect.TypeOf(PolicySpec{}), in, field.NewPath("spec"))
	type fe struct{ Code, Field string }
	var errs, warns []fe
	for _, e := range r.Errors {
		errs = append(errs, fe{e.Origin, e.Field})
	}
	for _, e := range r.Warnings {
		warns = append(warns, fe{e.Origin, e.Field})
	}
	sort := cmpopts.SortSlices(func(a, b fe) bool { return a.Field < b.Field })
	if diff := cmp.Diff([]fe{
		{CodeWrongType, "spec.from"},
		{CodeWrongType, "spec.rules[0].matches[0]"},
		{CodeWrongType, "spec.rules[0].matches[1]"},
		{CodeWrongType, "spec.to[0].targetRef.kind"},
		{CodeWrongType, "spec.to[1].targetRef"},
	}, errs, sort); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]fe{
		{CodeUnknownField, "spec.rules[0].extra"},
		{CodeUnknownField, "spec.targetRef.Name"},
	}, warns, sort); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	for _, w := range r.Warnings {
		if w.Field == "spec.targetRef.Name" && !cmp.Equal(w.Detail != "", true) {
			t.Error("no detail")
		}
	}
	var spec PolicySpec
	if err := Decode(r.Clean, &spec); err != nil {
		t.Fatalf("clean value must decode: %v", err)
	}
	if spec.TargetRef == nil || spec.TargetRef.Kind != RefMesh || len(spec.To) != 2 || spec.To[1].TargetRef != nil {
		t.Errorf("decoded %+v", spec)
	}
}

func TestCheckNumbers(t *testing.T) {
	type T struct {
		N int64   `json:"n"`
		F float64 `json:"f"`
	}
	for _, tc := range []struct {
		v    any
		errs int
	}{
		{map[string]any{"n": float64(3), "f": int64(2)}, 0},
		{map[string]any{"n": 3.5}, 1},
		{map[string]any{"n": "3"}, 1},
		{map[string]any{"f": true}, 1},
		{"scalar", 1},
	} {
		if got := len(Check(reflect.TypeOf(T{}), tc.v, field.NewPath("x")).Errors); got != tc.errs {
			t.Errorf("%v: %d errors, want %d", tc.v, got, tc.errs)
		}
	}
}

func TestRegistryIsConsistent(t *testing.T) {
	reg := DefaultRegistry()
	seen := map[string]bool{}
	perFamily := map[Family]int{}
	storage := map[string]int{}
	for _, k := range reg.Kinds() {
		perFamily[k.Family]++
		if reg.StorageVersion(k) {
			storage[k.Group+"/"+k.Kind]++
			if k.Deprecated != "" {
				t.Errorf("%s %s: the storage version cannot be deprecated", k.Kind, k.Version)
			}
		}
		if seen[k.GVK().String()] {
			t.Errorf("%s registered twice", k.GVK())
		}
		seen[k.GVK().String()] = true
		if reg.Lookup(k.GVK()) != k {
			t.Errorf("%s: lookup by GVK fails", k.Kind)
		}
		if k.Plural == "" || k.Summary == "" || k.NewSpec == nil {
			t.Errorf("%s: incomplete entry", k.Kind)
		}
		// Kuma policies all have a targetRef; Kuma resources and Linkerd's kinds have none.
		if k.Family == FamilyKuma && !k.Resource && len(k.TopLevel) == 0 {
			t.Errorf("%s: incomplete entry", k.Kind)
		}
		for _, so := range k.SystemOnly {
			if !ContainsRef(k.TopLevel, so) {
				t.Errorf("%s: system-only kind %s missing from TopLevel", k.Kind, so)
			}
		}
		if k.Sections.Has(SecTo) != (len(k.To) > 0) {
			t.Errorf("%s: 'to' section and To kinds disagree", k.Kind)
		}
		if k.Sections.Has(SecFrom) != (len(k.From) > 0) {
			t.Errorf("%s: 'from' section and From kinds disagree", k.Kind)
		}
	}
	// The 16 policies of issue 2 and the 15 resources users write (issue 15): every
	// kind of Kuma 2.14's CRDs.
	if perFamily[FamilyKuma] != 31 {
		t.Errorf("%d Kuma kinds, want the 16 policies and 15 resources", perFamily[FamilyKuma])
	}
	// Server v1beta3/v1beta2/v1beta1/v1alpha1, ServerAuthorization v1beta1/v1alpha1,
	// AuthorizationPolicy, MeshTLSAuthentication, NetworkAuthentication (issue 6);
	// EgressNetwork, HTTPLocalRateLimitPolicy, HTTPRoute v1beta3/v1beta2/v1beta1/v1alpha1
	// and the Gateway API HTTPRoute v1/v1beta1, GRPCRoute v1/v1alpha2, TCPRoute and
	// TLSRoute v1alpha2 (issue 16), TLSRoute v1alpha3 and v1 (Gateway API v1.4 and
	// v1.5, issue 30): every served version of Linkerd's and the Gateway API
	// bundles' CRDs.
	if perFamily[FamilyLinkerd] != 23 {
		t.Errorf("%d Linkerd kind versions, want the 23 served by Linkerd's and the Gateway API bundles' CRDs", perFamily[FamilyLinkerd])
	}
	for gk, n := range storage {
		if n != 1 {
			t.Errorf("%s: %d storage versions", gk, n)
		}
	}
}

// TestCheckIntOrString: int-or-string fields accept a string or a 32-bit integer,
// and what they accept decodes.
func TestCheckIntOrString(t *testing.T) {
	for _, tc := range []struct {
		in   any
		good bool
	}{
		{"50.5", true}, {int64(60), true}, {float64(3), true}, {int64(1) << 31, false},
		{1.5, false}, {true, false}, {map[string]any{}, false},
	} {
		v := map[string]any{"outlierDetection": map[string]any{"healthyPanicThreshold": tc.in}}
		r := Check(reflect.TypeOf(MeshCircuitBreakerConf{}), v, field.NewPath("default"))
		if (len(r.Errors) == 0) != tc.good {
			t.Errorf("%#v: errors %v, want good=%v", tc.in, r.Errors, tc.good)
		}
		var conf MeshCircuitBreakerConf
		if err := Decode(r.Clean, &conf); err != nil {
			t.Errorf("%#v: clean value does not decode: %v", tc.in, err)
		}
		if tc.good && (conf.OutlierDetection == nil || conf.OutlierDetection.HealthyPanicThreshold == nil) {
			t.Errorf("%#v: decoded %+v", tc.in, conf.OutlierDetection)
		}
	}
}

// TestCheckSharesWhatItKeeps: a well-formed spec comes back as the very same map
// (no copy: a 2.9 MB policy's was 30 MB), a spec with one bad value as a copy
// without it, the input untouched, with its well-formed parts shared.
func TestCheckSharesWhatItKeeps(t *testing.T) {
	decode := func(s string) map[string]any {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	typ := reflect.TypeOf(MeshTrafficPermissionSpec{})
	good := decode("targetRef: {kind: Mesh}\nfrom:\n- targetRef: {kind: MeshSubset, tags: {a: b}}\n  default: {action: Allow}\n- targetRef: {kind: Mesh}\n  default: {action: Deny}\n")
	res := Check(typ, good, field.NewPath("spec"))
	if len(res.Errors)+len(res.Warnings) > 0 {
		t.Fatalf("findings on a good spec: %v %v", res.Errors, res.Warnings)
	}
	if reflect.ValueOf(res.Clean).UnsafePointer() != reflect.ValueOf(good).UnsafePointer() {
		t.Error("a well-formed spec was copied")
	}

	bad := decode("targetRef: {kind: Mesh}\nfrom:\n- targetRef: {kind: MeshSubset, tags: {a: b}}\n  default: {action: Allow}\n- targetRef: {kind: 5}\n  default: {action: Deny}\n")
	before := decode("targetRef: {kind: Mesh}\nfrom:\n- targetRef: {kind: MeshSubset, tags: {a: b}}\n  default: {action: Allow}\n- targetRef: {kind: 5}\n  default: {action: Deny}\n")
	res = Check(typ, bad, field.NewPath("spec"))
	if len(res.Errors) != 1 {
		t.Fatalf("errors %v, want the one of spec.from[1].targetRef.kind", res.Errors)
	}
	want := decode("targetRef: {kind: Mesh}\nfrom:\n- targetRef: {kind: MeshSubset, tags: {a: b}}\n  default: {action: Allow}\n- targetRef: {}\n  default: {action: Deny}\n")
	if d := cmp.Diff(want, res.Clean); d != "" {
		t.Errorf("clean (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, bad); d != "" {
		t.Errorf("the input changed (-before +after):\n%s", d)
	}
	clean := res.Clean.(map[string]any)
	if reflect.ValueOf(clean["targetRef"]).UnsafePointer() != reflect.ValueOf(bad["targetRef"]).UnsafePointer() ||
		reflect.ValueOf(clean["from"].([]any)[0]).UnsafePointer() != reflect.ValueOf(bad["from"].([]any)[0]).UnsafePointer() {
		t.Error("the well-formed parts of a spec with an error were copied")
	}
}
