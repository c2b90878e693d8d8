package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// misspeltTimeout has `defualt` for `default`: kubectl apply (strict field
// validation) refuses it, the API server without strict validation prunes it.
const misspeltTimeout = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        connectionTimeout: 5s\n        idleTimeot: 1h\n"

// strayTo is a MeshTrafficPermission with a `to` section, which the kind lacks.
const strayTo = mtpOK + "  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: Allow\n"

// TestUnknownFieldsAreErrorsByDefault checks issue 26 point 2: an unknown field is
// an error in the file doors unless --unknown-fields says otherwise, and MG001 is
// worded as the API server words it, with the whole path.
func TestUnknownFieldsAreErrorsByDefault(t *testing.T) {
	cases := []struct {
		name, in string
		args     []string
		code     int
		want     []string // MG001 lines of the text output
	}{
		{"misspelt field", misspeltTimeout, nil, exitFindings, []string{
			`<stdin>:14: error MG001 spec.to[0].default.idleTimeot: unknown field "spec.to[0].default.idleTimeot": kubectl apply refuses the object (strict field validation; --unknown-fields=warn where your tool prunes instead); did you mean "idleTimeout"?`}},
		{"misspelt field, warn", misspeltTimeout, []string{"--unknown-fields=warn"}, exitOK, []string{
			`<stdin>:14: warning MG001 spec.to[0].default.idleTimeot: unknown field "idleTimeot": the API server drops it; did you mean "idleTimeout"?`}},
		{"misspelt field, ignore", misspeltTimeout, []string{"--unknown-fields", "ignore"}, exitOK, nil},
		{"misspelt field, error", misspeltTimeout, []string{"--unknown-fields", "error"}, exitFindings, []string{
			`<stdin>:14: error MG001 spec.to[0].default.idleTimeot: unknown field "spec.to[0].default.idleTimeot": kubectl apply refuses the object (strict field validation; --unknown-fields=warn where your tool prunes instead); did you mean "idleTimeout"?`}},
		{"to in a MeshTrafficPermission", strayTo, nil, exitFindings, []string{
			`<stdin>:14: error MG001 spec.to: unknown field "spec.to": kubectl apply refuses the object (strict field validation; --unknown-fields=warn where your tool prunes instead); known fields: from, rules, targetRef`}},
		{"to in a MeshTrafficPermission, warn", strayTo, []string{"--unknown-fields=warn"}, exitOK, []string{
			`<stdin>:14: warning MG001 spec.to: unknown field "to": the API server drops it; known fields: from, rules, targetRef`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := cli(t, tc.in, append([]string{"lint", "-"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			var got []string
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, " MG001 ") {
					got = append(got, l)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("MG001 lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnknownFieldsOtherDoors checks that the other file doors judge an unknown
// field as lint does: `default` notes that the object would be refused, and a bad
// --unknown-fields value is a usage error.
func TestUnknownFieldsOtherDoors(t *testing.T) {
	_, errOut, code := cli(t, misspeltTimeout, "default", "-")
	if code != exitFindings || !strings.Contains(errOut, "would be denied: MG001") {
		t.Errorf("default: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = cli(t, misspeltTimeout, "default", "--unknown-fields=warn", "-")
	if code != exitOK {
		t.Errorf("default --unknown-fields=warn: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = cli(t, misspeltTimeout, "lint", "--unknown-fields=strict", "-")
	if code != exitUsage || !strings.Contains(errOut, "--unknown-fields must be one of error, warn, ignore") {
		t.Errorf("bad value: exit %d, stderr %q", code, errOut)
	}
}

// TestStrictReferencesFlag: a reference into a namespace the linted files hold
// nothing of is not judged by default (exit 0), is an error with
// --strict-references (exit 1), and the flag needs the reference checks on.
func TestStrictReferencesFlag(t *testing.T) {
	in := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  namespace: web\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n      default:\n        idleTimeout: 1h\n"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, exitOK, ""},
		{[]string{"--strict-references"}, exitFindings, "error MG401 spec.to[0].targetRef: MeshService web/backend: not found"},
		{[]string{"--strict-references", "--no-inventory"}, exitUsage, ""},
	} {
		out, errOut, code := cli(t, in, append([]string{"lint", "-"}, tc.args...)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d (want %d), output:\n%s%s", tc.args, code, tc.code, out, errOut)
		}
	}
}
