package validate

import (
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/defaults"
)

// got is one finding reduced to what tests compare: code, field and severity.
type got struct {
	Code, Field, Severity string
}

func mustObj(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("bad test YAML: %v\n%s", err, doc)
	}
	return &unstructured.Unstructured{Object: m}
}

func settings(mode api.Mode, zone string) api.Settings {
	s := api.DefaultSettings()
	s.Mode = mode
	s.Zone = zone
	return s
}

// lintOne runs the pipeline the linter and the webhook run: default, then validate.
func lintOne(t testing.TB, doc string, s api.Settings, req api.Request) Result {
	t.Helper()
	o := mustObj(t, doc)
	if o.GetNamespace() == "" {
		_ = unstructured.SetNestedField(o.Object, "default", "metadata", "namespace")
	}
	kind := api.DefaultRegistry().Lookup(o.GroupVersionKind())
	if kind == nil {
		t.Fatalf("kind %v not registered", o.GroupVersionKind())
	}
	if req.Operation == "" {
		req.Operation = api.OpCreate
	}
	return pipeline(o, kind, s, req)
}

// pipeline is what a cluster does: the mutating webhook, then the validating one.
func pipeline(o *unstructured.Unstructured, kind *api.Kind, s api.Settings, req api.Request) Result {
	defaults.Apply(o, kind, s, req)
	return Validate(o, kind, s, req)
}

func reduce(r Result) []got {
	var out []got
	add := func(l field.ErrorList, sev string) {
		for _, e := range l {
			out = append(out, got{Code: e.Origin, Field: e.Field, Severity: sev})
		}
	}
	add(r.Errors, SeverityError)
	add(r.Warnings, SeverityWarning)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Code != out[j].Code {
			return out[i].Code < out[j].Code
		}
		return out[i].Field < out[j].Field
	})
	return out
}

func errorsOnly(r Result) []got {
	var out []got
	for _, g := range reduce(r) {
		if g.Severity == SeverityError {
			out = append(out, g)
		}
	}
	return out
}
