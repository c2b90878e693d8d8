package charts_test

import (
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

// TestFailOpenUntilReady: failOpenUntilReady registers meshguard's two webhooks
// with Ignore (the Linkerd annotation webhook keeps its own policy) and passes
// --fail-open-until-ready, which switches them to Fail after the self-check; it
// refuses values where that switch would be wrong.
func TestFailOpenUntilReady(t *testing.T) {
	m := mustRender(t, map[string]any{"failOpenUntilReady": true})
	mut, val := webhooks(t, m)
	for name, w := range map[string]webhookView{"mutating": mut, "validating": val} {
		if *w.failurePolicy != admissionv1.Ignore {
			t.Errorf("%s: failurePolicy = %s, want Ignore until meshguard's self-check", name, *w.failurePolicy)
		}
	}
	if c := deployment(t, m).Spec.Template.Spec.Containers[0]; !slices.Contains(c.Args, "--fail-open-until-ready") {
		t.Errorf("args lack --fail-open-until-ready: %v", c.Args)
	}
	if c := deployment(t, mustRender(t, nil)).Spec.Template.Spec.Containers[0]; slices.Contains(c.Args, "--fail-open-until-ready") {
		t.Error("--fail-open-until-ready passed by default")
	}
	for _, tc := range []struct {
		name string
		vals map[string]any
		want string
	}{
		{"an Ignore policy", map[string]any{"failOpenUntilReady": true, "failurePolicy": map[string]any{"mutating": "Ignore", "validating": "Fail"}}, "needs failurePolicy"},
		{"no rotation", map[string]any{"failOpenUntilReady": true, "certRotation": map[string]any{"enabled": false, "certSecretName": "x"}}, "needs certRotation.enabled"},
	} {
		_, err := renderChart(t, tc.vals, namespace)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: render error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
