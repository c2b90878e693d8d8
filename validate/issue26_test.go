package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// schemaSettings are the defaults with the CRDs loaded, as every door runs.
func schemaSettings(t testing.TB) api.Settings {
	t.Helper()
	s := api.DefaultSettings()
	if err := s.LoadSchemas(); err != nil {
		t.Fatal(err)
	}
	return s
}

// finding is one finding as a test compares its words.
type finding struct {
	Code, Field, Severity, Detail string
}

func findings(r Result) []finding {
	var out []finding
	for _, e := range r.Errors {
		out = append(out, finding{e.Origin, e.Field, SeverityError, e.Detail})
	}
	for _, e := range r.Warnings {
		out = append(out, finding{e.Origin, e.Field, SeverityWarning, e.Detail})
	}
	return out
}

// TestSchemaErrorsWithoutAPath checks that the errors kube-openapi makes without a
// field path (a oneOf on an object, a type check inside an anyOf) point at the
// field their text names, never at "<nil>", and show no empty value.
func TestSchemaErrorsWithoutAPath(t *testing.T) {
	s := schemaSettings(t)
	cases := []struct {
		name, doc string
		want      finding
	}{
		{"oneOf on spec", `apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: test, namespace: web}
spec:
  identities: ["a.b"]
  identityRefs: [{kind: ServiceAccount, name: web}]
`, finding{api.CodeWrongType, "spec", SeverityError, "must validate one and only one schema (oneOf). Found 2 valid alternatives"}},
		{"anyOf inside a Kuma conf", `apiVersion: kuma.io/v1alpha1
kind: MeshCircuitBreaker
metadata: {name: cb, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  rules:
    - default:
        outlierDetection:
          detectors:
            successRate: {standardDeviationFactor: 1.9}
`, finding{api.CodeWrongType, "spec.rules[0].default.outlierDetection.detectors.successRate.standardDeviationFactor", SeverityError, "must validate at least one schema (anyOf)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := findings(lintOne(t, tc.doc, s, api.Request{}))
			found := false
			for _, f := range got {
				if f.Field == "<nil>" || f.Field == "" || strings.Contains(f.Detail, `Invalid value: ""`) {
					t.Errorf("unplaced finding %+v", f)
				}
				found = found || cmp.Equal(f, tc.want)
			}
			if !found {
				t.Errorf("no %+v in\n%+v", tc.want, got)
			}
		})
	}
}
