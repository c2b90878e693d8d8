package crds

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// structural converts crd's schema to the API server's internal form and builds the
// structural schema from it, failing t on any error the API server would report.
func structural(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *structuralschema.Structural {
	t.Helper()
	var internal apiextensions.JSONSchemaProps
	v1 := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, &internal, nil); err != nil {
		t.Fatalf("%s: convert: %v", crd.Name, err)
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatalf("%s: NewStructural: %v", crd.Name, err)
	}
	if errs := structuralschema.ValidateStructural(field.NewPath("openAPIV3Schema"), s); len(errs) > 0 {
		t.Fatalf("%s: not structural: %v", crd.Name, errs.ToAggregate())
	}
	return s
}

func TestSchemasAreStructural(t *testing.T) {
	for _, crd := range CRDs(api.DefaultRegistry()) {
		structural(t, crd)
	}
}

// TestCRDsPassAPIServerValidation runs the API server's own CRD validation (after its
// defaulting), so a bad name, scope or printer column fails here and not in e2e setup.
func TestCRDsPassAPIServerValidation(t *testing.T) {
	for _, crd := range CRDs(api.DefaultRegistry()) {
		c := crd.DeepCopy()
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(c)
		var internal apiextensions.CustomResourceDefinition
		if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(c, &internal, nil); err != nil {
			t.Fatalf("%s: convert: %v", crd.Name, err)
		}
		if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), &internal); len(errs) > 0 {
			t.Errorf("%s: %v", crd.Name, errs.ToAggregate())
		}
	}
}

func TestOneCRDPerKind(t *testing.T) {
	reg := api.DefaultRegistry()
	crds := CRDs(reg)
	byName := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, c := range crds {
		if byName[c.Name] != nil {
			t.Errorf("%s: two CRDs", c.Name)
		}
		byName[c.Name] = c
		storage := 0
		for _, v := range c.Spec.Versions {
			if v.Storage {
				storage++
			}
		}
		if storage != 1 {
			t.Errorf("%s: %d storage versions, want exactly one", c.Name, storage)
		}
	}
	versions := 0
	for _, k := range reg.Kinds() {
		c := byName[k.Plural+"."+k.Group]
		if c == nil {
			t.Fatalf("%s %s: no CRD", k.Kind, k.Version)
		}
		n := c.Spec.Names
		if c.Spec.Group != k.Group || n.Kind != k.Kind || n.Plural != k.Plural || n.ListKind != k.Kind+"List" ||
			n.Singular != strings.ToLower(k.Kind) || len(n.ShortNames) != 0 {
			t.Errorf("%s: names %+v group %q", k.Kind, n, c.Spec.Group)
		}
		if !reflect.DeepEqual(n.Categories, []string{string(k.Family), "meshguard"}) {
			t.Errorf("%s: categories %v", k.Kind, n.Categories)
		}
		if c.Spec.Scope != apiextensionsv1.NamespaceScoped {
			t.Errorf("%s: scope %s", k.Kind, c.Spec.Scope)
		}
		var v apiextensionsv1.CustomResourceDefinitionVersion
		for _, cv := range c.Spec.Versions {
			if cv.Name == k.Version {
				v = cv
				versions++
			}
		}
		if v.Name != k.Version || !v.Served || v.Storage != reg.StorageVersion(k) || v.Subresources != nil ||
			v.Deprecated != (k.Deprecated != "") {
			t.Errorf("%s: version %s served=%v storage=%v subresources=%v", k.Kind, v.Name, v.Served, v.Storage, v.Subresources)
		}
		root := v.Schema.OpenAPIV3Schema
		if len(root.Required) != 0 || root.Type != "object" {
			t.Errorf("%s: root type %q required %v", k.Kind, root.Type, root.Required)
		}
		for _, key := range []string{"apiVersion", "kind"} {
			if root.Properties[key].Type != "string" {
				t.Errorf("%s: %s is %q", k.Kind, key, root.Properties[key].Type)
			}
		}
		if m := root.Properties["metadata"]; !reflect.DeepEqual(m, apiextensionsv1.JSONSchemaProps{Type: "object"}) {
			t.Errorf("%s: metadata schema %+v, want type: object only", k.Kind, m)
		}
		// Only the kind's sections, so the API server prunes the others like Kuma does.
		spec := root.Properties["spec"]
		if got, want := sortedKeys(spec.Properties), k.Sections.Names(); k.Family == api.FamilyKuma && !k.Resource && !reflect.DeepEqual(got, sorted(want)) {
			t.Errorf("%s: spec properties %v, want sections %v", k.Kind, got, want)
		}
	}
	if versions != len(reg.Kinds()) {
		t.Errorf("%d CRD versions for %d registry entries", versions, len(reg.Kinds()))
	}
}

// TestNothingRequired: a missing field must reach meshguard, which reports it with
// its own code and hint, instead of being refused by the schema first.
func TestNothingRequired(t *testing.T) {
	for _, crd := range CRDs(api.DefaultRegistry()) {
		walkSchema(*crd.Spec.Versions[0].Schema.OpenAPIV3Schema, "", func(p string, s apiextensionsv1.JSONSchemaProps) {
			if len(s.Required) > 0 {
				t.Errorf("%s: %s requires %v", crd.Name, p, s.Required)
			}
		})
	}
}

func TestMeshTrafficPermissionSchema(t *testing.T) {
	spec := specOf(t, "MeshTrafficPermission")
	for _, key := range []string{"targetRef", "from", "rules"} {
		if _, ok := spec.Properties[key]; !ok {
			t.Errorf("spec.%s missing", key)
		}
	}
	// Like Kuma 2.14's CRD: no to, and no top-level default (matchers live in rules).
	for _, key := range []string{"to", "default"} {
		if _, ok := spec.Properties[key]; ok {
			t.Errorf("spec.%s present; MeshTrafficPermission has none", key)
		}
	}
	if got := at(t, spec, "from", "[]", "default", "action").Type; got != "string" {
		t.Errorf("from[].default.action type %q", got)
	}
	for _, base := range [][]string{{"rules", "[]", "default"}} {
		for _, list := range []string{"allow", "deny", "allowWithShadowDeny"} {
			match := at(t, spec, append(append([]string{}, base...), list, "[]")...)
			// Both spellings: the SPIFFE-matches MADR writes spiffeId, Kuma spiffeID; the API server
			// must keep whichever the user wrote for meshguard to see it.
			for _, key := range []string{"spiffeId", "spiffeID"} {
				if got := at(t, match, key, "value").Type; got != "string" {
					t.Errorf("%v.%s[].%s.value type %q", base, list, key, got)
				}
			}
		}
	}
}

func TestMeshRetryHasNoFrom(t *testing.T) {
	spec := specOf(t, "MeshRetry")
	for _, key := range []string{"from", "rules", "default"} {
		if _, ok := spec.Properties[key]; ok {
			t.Errorf("MeshRetry spec has %s", key)
		}
	}
	if def := at(t, spec, "to", "[]", "default"); preserves(def) || at(t, def, "http", "retryOn").Type != "array" {
		t.Errorf("MeshRetry to[].default is not its typed conf: %+v", def)
	}
}

func TestFreePartsPreserveUnknown(t *testing.T) {
	for _, c := range []struct {
		kind string
		path []string
	}{
		{"MeshAccessLog", []string{"to", "[]", "default", "backends", "[]", "openTelemetry", "body"}},
		{"MeshHTTPRoute", []string{"to", "[]", "rules", "[]", "default", "filters", "[]", "requestMirror", "percentage"}},
	} {
		s := at(t, specOf(t, c.kind), c.path...)
		if !preserves(s) || s.Type != "" || len(s.Properties) != 0 {
			t.Errorf("%s %v: %+v, want x-kubernetes-preserve-unknown-fields with no type", c.kind, c.path, s)
		}
	}
}

// TestTypedConfs: a kind typed as api.Policy[C] gets C's schema in every section's
// default, so an unknown key is pruned like in Kuma, and int-or-string fields accept
// both.
func TestTypedConfs(t *testing.T) {
	spec := specOf(t, "MeshTimeout")
	for _, list := range []string{"to", "from", "rules"} {
		def := at(t, spec, list, "[]", "default")
		if preserves(def) || def.Type != "object" {
			t.Fatalf("%s[].default: %+v", list, def)
		}
		if got := at(t, def, "http", "requestTimeout").Type; got != "string" {
			t.Errorf("%s[].default.http.requestTimeout type %q", list, got)
		}
	}
	// Rule matches are typed too: sni and spiffeID.
	if m := at(t, spec, "rules", "[]", "matches", "[]"); preserves(m) || len(m.Properties) == 0 {
		t.Errorf("rules[].matches[] is not typed: %+v", m)
	}
	hpt := at(t, specOf(t, "MeshCircuitBreaker"), "to", "[]", "default", "outlierDetection", "healthyPanicThreshold")
	if !hpt.XIntOrString || len(hpt.AnyOf) != 2 {
		t.Errorf("healthyPanicThreshold: %+v, want int-or-string", hpt)
	}
	if overall := at(t, specOf(t, "MeshTrace"), "default", "sampling", "overall"); !overall.XIntOrString {
		t.Errorf("MeshTrace sampling.overall: %+v, want int-or-string", overall)
	}
}

func TestSchemaOfScalarsAndMaps(t *testing.T) {
	type inner struct {
		N int32 `json:"n"`
	}
	type embedded struct {
		E string `json:"e"`
	}
	type sample struct {
		embedded
		S       string            `json:"s,omitempty"`
		I       *int64            `json:"i,omitempty"`
		F       float64           `json:"f"`
		B       bool              `json:"b"`
		L       []inner           `json:"l"`
		M       map[string]*inner `json:"m"`
		Skipped string            `json:"-"`
		Untag   string
		hidden  string //nolint:unused // must not appear
	}
	s := SchemaOf(reflect.TypeOf(&sample{}))
	want := map[string]string{"e": "string", "s": "string", "i": "integer", "f": "number", "b": "boolean",
		"l": "array", "m": "object", "Untag": "string"}
	if got := sortedKeys(s.Properties); !reflect.DeepEqual(got, sortedKeys(want)) {
		t.Fatalf("properties %v, want %v", got, sortedKeys(want))
	}
	for k, typ := range want {
		if s.Properties[k].Type != typ {
			t.Errorf("%s: type %q, want %q", k, s.Properties[k].Type, typ)
		}
	}
	if s.Properties["i"].Format != "int64" || at(t, s, "l", "[]", "n").Format != "int64" {
		t.Error("integers lack format int64")
	}
	if got := s.Properties["m"].AdditionalProperties.Schema.Properties["n"].Type; got != "integer" {
		t.Errorf("map values: %q", got)
	}
}

func specOf(t *testing.T, kind string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	for _, k := range api.DefaultRegistry().Kinds() {
		if k.Kind == kind {
			return CRD(k).Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		}
	}
	t.Fatalf("no kind %s", kind)
	return apiextensionsv1.JSONSchemaProps{}
}

// at follows path through properties ("[]" steps into array items).
func at(t *testing.T, s apiextensionsv1.JSONSchemaProps, path ...string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	for i, p := range path {
		if p == "[]" {
			if s.Type != "array" || s.Items == nil || s.Items.Schema == nil {
				t.Fatalf("%v: not an array", path[:i])
			}
			s = *s.Items.Schema
			continue
		}
		next, ok := s.Properties[p]
		if !ok {
			t.Fatalf("%v: no property %q (have %v)", path[:i], p, sortedKeys(s.Properties))
		}
		s = next
	}
	return s
}

func preserves(s apiextensionsv1.JSONSchemaProps) bool {
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

func walkSchema(s apiextensionsv1.JSONSchemaProps, path string, fn func(string, apiextensionsv1.JSONSchemaProps)) {
	fn(path, s)
	for k, p := range s.Properties {
		walkSchema(p, path+"."+k, fn)
	}
	if s.Items != nil && s.Items.Schema != nil {
		walkSchema(*s.Items.Schema, path+"[]", fn)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walkSchema(*s.AdditionalProperties.Schema, path+"{}", fn)
	}
}

// TestInstalledCoversTheRegistry: every registry kind is served by the CRDs the e2e
// control plane installs, Kuma's from Kuma's own files, but for the Gateway API route
// versions the installed bundle (the default, v1.5.1) does not serve, which a cluster
// with that bundle refuses too (GRPCRoute v1alpha2: only Linkerd's v1.1.1 bundle).
func TestInstalledCoversTheRegistry(t *testing.T) {
	reg := api.DefaultRegistry()
	crds, err := Installed(reg)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	names := map[string]bool{}
	for _, c := range crds {
		if names[c.Name] {
			t.Errorf("two CRDs named %s", c.Name)
		}
		names[c.Name] = true
		// Kuma's own CRDs are written by controller-gen; the generated ones are not.
		if c.Spec.Group == api.KumaGroup && c.Annotations["controller-gen.kubebuilder.io/version"] == "" {
			t.Errorf("%s: a kuma.io CRD that is not Kuma's own", c.Name)
		}
		for _, v := range c.Spec.Versions {
			if v.Served {
				served[c.Spec.Group+"/"+v.Name+"/"+c.Spec.Names.Kind] = true
			}
		}
	}
	unserved := map[string]bool{api.GatewayGroup + "/v1alpha2/" + api.KindGRPCRoute: true}
	for _, k := range reg.Kinds() {
		if id := k.Group + "/" + k.Version + "/" + k.Kind; served[id] == unserved[id] {
			t.Errorf("%s/%s %s: served by the installed CRDs %v, want %v", k.Group, k.Version, k.Kind, served[id], !unserved[id])
		}
	}
}
