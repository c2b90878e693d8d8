package schema

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// validatorSuite is Kuma 2.14's own validator tests as manifests (see its README).
const validatorSuite = "../validate/testdata/conformance/kuma-validators-2.14"

type suiteCase struct {
	File   string   `json:"file"`
	Expect string   `json:"expect"`
	Note   string   `json:"note"`
	Fields []string `json:"fields"`
}

func loadSuite(t *testing.T) []suiteCase { return loadSuiteIn(t, validatorSuite) }

// loadSuiteIn reads the cases.json of the validator suite in dir.
func loadSuiteIn(t *testing.T, dir string) []suiteCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Cases []suiteCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &suite); err != nil {
		t.Fatal(err)
	}
	return suite.Cases
}

func readObject(t *testing.T, path string) *unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// TestKumaCRDsCompile: every CRD of the release compiles, as the API server would
// serve it, and the set knows all 31 kinds.
func TestKumaCRDsCompile(t *testing.T) {
	s, err := Load("kuma-2.14")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Kinds()); n != 31 {
		t.Errorf("%d kinds, want the 31 of Kuma 2.14: %v", n, s.Kinds())
	}
	if _, err := Load("kuma-9.99"); err == nil || !strings.Contains(err.Error(), "kuma-2.14") || !strings.Contains(err.Error(), "kuma-2.13") {
		t.Errorf("unknown release: %v", err)
	}
}

// TestKuma213CRDsCompile: Kuma 2.13 LTS's CRDs compile and serve the 2.14 kinds
// but MeshOpenTelemetryBackend and MeshZoneAddress, which came with 2.14.
func TestKuma213CRDsCompile(t *testing.T) {
	s, err := Load(KumaRelease("2.13"))
	if err != nil {
		t.Fatal(err)
	}
	newest, err := Load(KumaRelease("2.14"))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, gvk := range newest.Kinds() {
		if !s.Knows(gvk) {
			missing = append(missing, gvk.Kind)
		}
	}
	slices.Sort(missing)
	if want := []string{"MeshOpenTelemetryBackend", "MeshZoneAddress"}; !slices.Equal(missing, want) || len(s.Kinds()) != 29 {
		t.Errorf("Kuma 2.13 serves %d kinds, lacking %v; want 29, lacking %v", len(s.Kinds()), missing, want)
	}
	if !slices.Equal(KumaVersions(), []string{"2.13", "2.14", "3.0-preview"}) || DefaultKumaVersion != "2.14" {
		t.Errorf("KumaVersions %v, default %s: want 2.13, 2.14 and 3.0-preview, default the newest release", KumaVersions(), DefaultKumaVersion)
	}
}

// TestKuma30PreviewCRDsCompile: the CRDs of Kuma's main branch at the pinned commit
// compile and serve the 2.14 kinds but the built-in gateway's four (MeshGateway,
// MeshGatewayRoute, MeshGatewayInstance, MeshGatewayConfig), which 3.0 removes.
func TestKuma30PreviewCRDsCompile(t *testing.T) {
	s, err := Load(KumaRelease("3.0-preview"))
	if err != nil {
		t.Fatal(err)
	}
	newest, err := Load(KumaRelease("2.14"))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, gvk := range newest.Kinds() {
		if !s.Knows(gvk) {
			missing = append(missing, gvk.Kind)
		}
	}
	slices.Sort(missing)
	want := []string{"MeshGateway", "MeshGatewayConfig", "MeshGatewayInstance", "MeshGatewayRoute"}
	if !slices.Equal(missing, want) || len(s.Kinds()) != 27 {
		t.Errorf("Kuma 3.0-preview serves %d kinds, lacking %v; want 27, lacking %v", len(s.Kinds()), missing, want)
	}
}

// apiServerRefuses are the cases Kuma's validator accepts that the API server refuses
// against Kuma's own CRDs: the five the suite's README notes, by file name without its
// number (the same five in the 2.13 and 2.14 suites).
var apiServerRefuses = map[string]string{
	"meshretry-full-example.yaml":                               "retryOn items are strings in the CRD, the YAML has integers; header match types outside the enum",
	"meshretry-http-retryon-with-status-codes.yaml":             "retryOn items are strings in the CRD, the YAML has integers",
	"meshretry-target-meshhttproute.yaml":                       "retryOn items are strings in the CRD, the YAML has integers",
	"meshtcproute-accepts-valid-resource-without-to-rules.yaml": "the CRD requires spec.to[].rules",
	"meshtcproute-accepts-meshgateway-with-listener-tags.yaml":  "targetRef.tags values are strings in the CRD, the YAML has port: 6000",
}

// apiServerDrops are the cases Kuma's validator accepts with fields its CRD does not
// have: the API server prunes them (kubectl warns; --validate=strict refuses). Keyed
// as apiServerRefuses.
var apiServerDrops = map[string]string{
	"meshcircuitbreaker-full-example.yaml": "healthyPanicThreshold under outlierDetection.detectors, where the CRD has no such field",
	"meshhealthcheck-full-example.yaml":    "set and add directly under http: requestHeadersToAdd is left null (its set/add are indented one level too little), which the API server drops too",
}

// TestKumaValidatorSuiteSchema runs Kuma's own validator cases through the schema
// layer alone: every case Kuma accepts passes the CRD schema with no field dropped,
// except those listed above, which must fail (or drop fields) as listed; for each
// release's suite against that release's CRDs.
func TestKumaValidatorSuiteSchema(t *testing.T) {
	for _, r := range []struct{ release, dir string }{
		{"kuma-2.14", validatorSuite},
		{"kuma-2.13", "../validate/testdata/conformance/kuma-validators-2.13"},
	} {
		t.Run(r.release, func(t *testing.T) { suiteThroughSchema(t, r.release, r.dir) })
	}
}

// suiteThroughSchema is TestKumaValidatorSuiteSchema for the suite in dir.
func suiteThroughSchema(t *testing.T, release, dir string) {
	s, err := Load(release)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, c := range loadSuiteIn(t, dir) {
		obj := readObject(t, filepath.Join(dir, c.File))
		key := c.File[4:]
		res, ok := s.Check(context.Background(), obj)
		if !ok {
			t.Errorf("%s: no schema for %s", c.File, obj.GroupVersionKind())
			continue
		}
		_, refuses := apiServerRefuses[key]
		_, drops := apiServerDrops[key]
		switch {
		case refuses && len(res.Errors) == 0:
			t.Errorf("%s: listed as refused by the API server (%s), the schema accepts it", c.File, apiServerRefuses[key])
		case !refuses && c.Expect == "valid" && len(res.Errors) > 0:
			t.Errorf("%s: Kuma accepts it, the schema refuses it: %v", c.File, res.Errors)
		case c.Expect == "invalid" && len(res.Errors) > 0:
			refused++
		}
		if c.Note != "" && !refuses {
			t.Errorf("%s: the suite notes that the API server refuses it; list it in apiServerRefuses", c.File)
		}
		if c.Expect == "valid" && drops != (len(res.Unknown) > 0) {
			t.Errorf("%s: listed as dropping fields: %v; the API server would drop %v", c.File, drops, res.Unknown)
		}
	}
	t.Logf("the schema alone refuses %d of the cases Kuma's validators refuse", refused)
}

// TestCheckReportsWhatTheAPIServerWould covers each kind of finding on one policy.
func TestCheckReportsWhatTheAPIServerWould(t *testing.T) {
	s, err := Load("kuma-2.14")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, spec  string
		wantErr     string // substring of the aggregated errors; "" for none
		wantUnknown string
	}{
		{"valid", "targetRef: {kind: Mesh}\nto: [{targetRef: {kind: Mesh}, default: {connectionTimeout: 5s}}]", "", ""},
		{"wrong type", "targetRef: {kind: Mesh}\nto: MeshService/backend", "spec.to: Invalid value: \"string\": spec.to in body must be of type array", ""},
		{"enum", "targetRef: {kind: Nope}", "spec.targetRef.kind: Unsupported value: \"Nope\"", ""},
		{"unknown field", "targetRef: {kind: Mesh}\nto: [{targetRef: {kind: Mesh}, defualt: {}}]", "", "spec.to[0].defualt"},
		{"required", "to: [{default: {}}]", "spec.to[0].targetRef: Required value", ""},
		{"null object dropped, as the API server does", "targetRef: {kind: Mesh}\nto: [{targetRef: {kind: Mesh}, default: {connectionTimeout: 5s, http: null}}]", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := readObject(t, writeTemp(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: kuma-system}\nspec:\n"+indent(tc.spec)))
			before := obj.DeepCopy()
			res, ok := s.Check(context.Background(), obj)
			if !ok {
				t.Fatal("no schema for MeshTimeout")
			}
			got := res.Errors.ToAggregate()
			switch {
			case tc.wantErr == "" && got != nil:
				t.Errorf("errors: %v", got)
			case tc.wantErr != "" && (got == nil || !strings.Contains(got.Error(), tc.wantErr)):
				t.Errorf("errors %v, want %q", got, tc.wantErr)
			}
			if u := strings.Join(res.Unknown, ","); u != tc.wantUnknown {
				t.Errorf("unknown fields %q, want %q", u, tc.wantUnknown)
			}
			if !equalJSON(before.Object, obj.Object) {
				t.Error("Check changed the object")
			}
		})
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ") + "\n"
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "obj.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// BenchmarkCheck is the schema layer's cost for one small MeshTimeout, the unit of
// the linter's documents-per-second budget.
func BenchmarkCheck(b *testing.B) {
	s, err := Load("kuma-2.14")
	if err != nil {
		b.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte("apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: ns}\nspec:\n  targetRef: {kind: Dataplane, labels: {app: web}}\n  to:\n  - targetRef: {kind: MeshService, name: backend, namespace: ns}\n    default: {connectionTimeout: 5s, http: {requestTimeout: 10s}}\n"), &m); err != nil {
		b.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: m}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := s.Check(ctx, obj); len(res.Errors) > 0 {
			b.Fatal(res.Errors)
		}
	}
}

// BenchmarkLoad is what compiling the embedded CRDs costs a process, once.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load("kuma-2.14"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestKumaCRDRefusesMADRSpellings pins two facts the e2e suite found when it ran
// against Kuma 2.14's real CRDs, which meshguard's own rules do not know yet (issue
// 15): the CRD lists only Kuma's action spellings, so the MeshTrafficPermission
// MADR's ALLOW / DENY / ALLOW_WITH_SHADOW_DENY / DENY_WITH_SHADOW_ALLOW are refused;
// and the SPIFFE-matches MADR's top-level spec.default is not in the CRD (pruned, or
// refused by kubectl's strict field validation), where Kuma writes spec.rules[].default.
func TestKumaCRDRefusesMADRSpellings(t *testing.T) {
	s, err := Load("kuma-2.14")
	if err != nil {
		t.Fatal(err)
	}
	head := "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: p, namespace: kuma-system}\nspec:\n  targetRef: {kind: Mesh}\n"
	for _, action := range []string{"ALLOW", "DENY", "ALLOW_WITH_SHADOW_DENY", "DENY_WITH_SHADOW_ALLOW"} {
		obj := readObject(t, writeTemp(t, head+"  from:\n  - targetRef: {kind: Mesh}\n    default: {action: "+action+"}\n"))
		if res, _ := s.Check(context.Background(), obj); len(res.Errors) == 0 {
			t.Errorf("action %s: the CRD accepts it", action)
		}
	}
	for _, action := range []string{"Allow", "Deny", "AllowWithShadowDeny"} {
		obj := readObject(t, writeTemp(t, head+"  from:\n  - targetRef: {kind: Mesh}\n    default: {action: "+action+"}\n"))
		if res, _ := s.Check(context.Background(), obj); len(res.Errors) > 0 {
			t.Errorf("action %s: %v", action, res.Errors)
		}
	}
	obj := readObject(t, writeTemp(t, head+"  default:\n    allow: [{spiffeID: {type: Exact, value: \"spiffe://td/ns/a/sa/b\"}}]\n"))
	if res, _ := s.Check(context.Background(), obj); strings.Join(res.Unknown, ",") != "spec.default" {
		t.Errorf("spec.default: unknown %v", res.Unknown)
	}
}

// linkerdSuite is Linkerd edge-26.8.3's admission test cases as manifests; each
// case's crdSchema is what a real kube-apiserver (v1.36.3) said about it with only
// Linkerd's CRDs installed (see its README).
const linkerdSuite = "../validate/testdata/conformance/linkerd-admission"

// TestLinkerdCRDsAgreeWithTheAPIServer: for every case, this package refuses exactly
// what the API server refused, drops the fields it dropped, and names the same field.
func TestLinkerdCRDsAgreeWithTheAPIServer(t *testing.T) {
	s, err := Load("linkerd-edge-26.8.3")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(linkerdSuite, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Cases []struct {
			File      string `json:"file"`
			CRDSchema string `json:"crdSchema"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &suite); err != nil {
		t.Fatal(err)
	}
	if len(suite.Cases) < 90 {
		t.Fatalf("%d cases", len(suite.Cases))
	}
	for _, c := range suite.Cases {
		obj := readObject(t, filepath.Join(linkerdSuite, c.File))
		res, ok := s.Check(context.Background(), obj)
		if !ok {
			t.Errorf("%s: no schema for %s", c.File, obj.GroupVersionKind())
			continue
		}
		apiRefused := strings.HasPrefix(c.CRDSchema, "rejects")
		switch {
		case apiRefused && len(res.Errors) == 0:
			t.Errorf("%s: the API server refused it (%s); the schema accepts it", c.File, c.CRDSchema)
		case !apiRefused && len(res.Errors) > 0:
			t.Errorf("%s: the API server accepted it; the schema refuses it: %v", c.File, res.Errors)
		case apiRefused:
			// The API server's message names the field; so must ours.
			if got := res.Errors.ToAggregate().Error(); !strings.Contains(c.CRDSchema, firstField(got)) {
				t.Errorf("%s: API server %q, schema %q", c.File, c.CRDSchema, got)
			}
		}
		for _, u := range res.Unknown {
			if !strings.Contains(c.CRDSchema, `unknown field "`+u+`"`) {
				t.Errorf("%s: drops %s; the API server said %q", c.File, u, c.CRDSchema)
			}
		}
	}
}

// firstField is the field path an aggregated error message starts with.
func firstField(msg string) string {
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "["), "* ")
	f, _, _ := strings.Cut(msg, ":")
	return f
}

// BenchmarkLoadLinkerd is the cost of compiling Linkerd's CRDs, Gateway API routes
// and their CEL rules included, once per process.
func BenchmarkLoadLinkerd(b *testing.B) {
	for b.Loop() {
		if _, err := Load("linkerd-edge-26.8.3"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCheckUpdateRatchets: an update is judged as the API server judges it with
// CRDValidationRatcheting. A value the stored object already had, invalid under
// today's CRD (stored before the CRD tightened), does not fail an update that
// leaves it alone; a value the update writes is checked in full.
func TestCheckUpdateRatchets(t *testing.T) {
	s, err := Load("kuma-2.14")
	if err != nil {
		t.Fatal(err)
	}
	mtp := func(action, labels string) *unstructured.Unstructured {
		return readObject(t, writeTemp(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: p, namespace: kuma-system"+labels+"}\n"+
			"spec:\n  targetRef: {kind: Mesh}\n  from:\n  - targetRef: {kind: Mesh}\n    default: {action: "+action+"}\n  - targetRef: {kind: MeshSubset, tags: {app: a}}\n    default: {action: Allow}\n"))
	}
	stored := mtp("Permit", "")
	for _, tc := range []struct {
		name    string
		obj     *unstructured.Unstructured
		wantErr string
	}{
		{"the update leaves the stored invalid value alone", mtp("Permit", ", labels: {team: a}"), ""},
		{"the update writes another invalid value", mtp("Forbid", ""), `spec.from[0].default.action: Unsupported value: "Forbid"`},
		{"the update writes a valid value", mtp("Deny", ""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, ok := s.CheckUpdate(context.Background(), tc.obj, stored)
			if !ok {
				t.Fatal("no schema for MeshTrafficPermission")
			}
			got := res.Errors.ToAggregate()
			switch {
			case tc.wantErr == "" && got != nil:
				t.Errorf("errors: %v", got)
			case tc.wantErr != "" && (got == nil || !strings.Contains(got.Error(), tc.wantErr)):
				t.Errorf("errors %v, want %q", got, tc.wantErr)
			}
			// As a create, every case with an invalid action fails.
			if create, _ := s.Check(context.Background(), tc.obj); (len(create.Errors) == 0) != (tc.name == "the update writes a valid value") {
				t.Errorf("as a create: %v", create.Errors)
			}
		})
	}
}

// TestCheckUpdateRatchetsListTypes: a list-map with a duplicate key that the stored
// object already had does not fail an update; one the update introduces does.
func TestCheckUpdateRatchetsListTypes(t *testing.T) {
	s, err := Load("kuma-2.14")
	if err != nil {
		t.Fatal(err)
	}
	hc := func(names ...string) *unstructured.Unstructured {
		var adds []string
		for _, n := range names {
			adds = append(adds, "{name: "+n+", value: v}")
		}
		return readObject(t, writeTemp(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshHealthCheck\nmetadata: {name: h, namespace: kuma-system}\n"+
			"spec:\n  targetRef: {kind: Mesh}\n  to:\n  - targetRef: {kind: Mesh}\n    default:\n      interval: 10s\n      http:\n        requestHeadersToAdd:\n          add: ["+strings.Join(adds, ", ")+"]\n"))
	}
	dup, unique := hc("x-a", "x-a"), hc("x-a", "x-b")
	if res, _ := s.Check(context.Background(), dup); len(res.Errors) == 0 {
		t.Fatal("the CRD's list-map accepts a duplicate name on create")
	}
	if res, _ := s.CheckUpdate(context.Background(), dup, dup); len(res.Errors) > 0 {
		t.Errorf("an update keeping the stored duplicate is refused: %v", res.Errors)
	}
	if res, _ := s.CheckUpdate(context.Background(), dup, unique); len(res.Errors) == 0 {
		t.Error("an update introducing a duplicate is admitted")
	}
}
