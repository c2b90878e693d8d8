package webhook

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"
)

// deprecatedFrom is a MeshTrafficPermission whose 'from' draws MG190 (a warning).
func deprecatedFrom(t *testing.T, ignore string) *unstructured.Unstructured {
	t.Helper()
	doc := "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: p\n  namespace: backend-ns\n" +
		"spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: frontend\n      default:\n        action: Allow\n"
	u := &unstructured.Unstructured{}
	if err := sigsyaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	if ignore != "" {
		u.SetAnnotations(map[string]string{"meshguard.io/ignore": ignore})
	}
	return u
}

// codesOf lists the rule codes of warning lines ("MG190 spec.from: ...").
func codesOf(warnings []string) []string {
	var out []string
	for _, w := range warnings {
		if c, _, ok := strings.Cut(w, " "); ok && strings.HasPrefix(c, "MG") {
			out = append(out, c)
		}
	}
	return out
}

func TestValidateSuppressions(t *testing.T) {
	const user, mesh = "alice", "system:serviceaccount:kuma-system:kuma-control-plane"
	for _, tc := range []struct {
		name, ignore, oldIgnore, user string
		op                            admissionv1.Operation
		want                          []string
	}{
		{"no annotation", "", "", user, admissionv1.Create, []string{"MG190"}},
		{"suppressed warning not returned", "MG190: migrating to rules", "", user, admissionv1.Create, nil},
		{"no reason: warned, not suppressed", "MG190", "", user, admissionv1.Create, []string{"MG190", "MG051"}},
		{"error code: warned on create", "MG002: x; MG190: migrating", "", user, admissionv1.Create, []string{"MG052"}},
		{"error code: warned when added on update", "MG002: x; MG190: migrating", "MG190: migrating", user, admissionv1.Update, []string{"MG052"}},
		{"error code: quiet when unchanged", "MG002: x; MG190: migrating", "MG002: x; MG190: migrating", user, admissionv1.Update, nil},
		{"privileged writer: no warning about the annotation", "MG002: x; MG190: migrating", "", mesh, admissionv1.Create, nil},
		{"expired", "MG190 until 2020-01-01: migrating", "", user, admissionv1.Create, []string{"MG190", "MG053"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var old *unstructured.Unstructured
			if tc.op == admissionv1.Update {
				old = deprecatedFrom(t, tc.oldIgnore)
			}
			e := testEngine()
			e.Preview = nil
			resp := e.Validate(context.Background(), admissionRequest(t, "u", tc.op, deprecatedFrom(t, tc.ignore), old, tc.user))
			if !resp.Allowed {
				t.Fatalf("denied: %v", resp.Result)
			}
			if diff := cmp.Diff(tc.want, codesOf(resp.Warnings)); diff != "" {
				t.Errorf("warning codes (-want +got):\n%s\n%q", diff, resp.Warnings)
			}
		})
	}
}

// TestErrorsStayDenied: an annotation cannot turn a denial into an admission.
func TestErrorsStayDenied(t *testing.T) {
	u := deprecatedFrom(t, "MG120: no action on purpose")
	from := u.Object["spec"].(map[string]any)["from"].([]any)
	delete(from[0].(map[string]any)["default"].(map[string]any), "action")
	resp := testEngine().Validate(context.Background(), admissionRequest(t, "u", admissionv1.Create, u, nil, "alice"))
	if resp.Allowed {
		t.Fatal("allowed an object with an error because of the annotation")
	}
	if got := codesOf(resp.Warnings); !strings.Contains(strings.Join(got, " "), "MG052") {
		t.Errorf("no MG052 warning: %q", resp.Warnings)
	}
}
