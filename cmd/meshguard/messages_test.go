package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// relabelled is a valid system policy whose kuma.io/policy-role the mutating stage
// replaces (system, computed from the namespace).
const relabelled = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  namespace: kuma-system\n  labels:\n    kuma.io/policy-role: producer\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n"

// mixed is denied (MG101: producer and consumer items in one 'to').
const mixed = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: mixed\n  namespace: finance-ns\nspec:\n  to:\n    - targetRef: {kind: MeshService, name: backend}\n      default: {idleTimeout: 1h}\n    - targetRef: {kind: MeshService, name: redis, namespace: redis-ns}\n      default: {idleTimeout: 1h}\n"

// TestReplacedLabelThroughLint checks that lint reports a replaced owned label as
// the MG016 warning, at the label's line, without failing the run.
func TestReplacedLabelThroughLint(t *testing.T) {
	rep, code := lintJSON(t, relabelled, "-")
	if code != exitOK || len(rep.Findings) != 1 {
		t.Fatalf("exit %d, findings %+v", code, rep.Findings)
	}
	f := rep.Findings[0]
	got := []any{f.Severity, f.Code, f.Field, f.Line, f.Message}
	want := []any{"warning", "MG016", "metadata.labels[kuma.io/policy-role]", 7, `"producer" replaced by "system": computed from namespace and targets`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("finding (-want +got):\n%s", diff)
	}
}

// TestDefaultCommandNotes checks what `meshguard default` says on standard error
// and its exit codes: a warning per replaced label, a note per object the webhook
// would deny (exit 1), and exit 2 for an unreadable document, which wins.
func TestDefaultCommandNotes(t *testing.T) {
	cases := []struct {
		name, in string
		code     int
		stderr   []string
		docs     int
	}{
		{"admitted", mtpOK, exitOK, nil, 1},
		{"replaced label", relabelled, exitOK, []string{
			`<stdin>:7: warning MG016 metadata.labels[kuma.io/policy-role]: "producer" replaced by "system": computed from namespace and targets`}, 1},
		{"would be denied", relabelled + "---\n" + mixed, exitFindings, []string{
			`<stdin>:7: warning MG016 metadata.labels[kuma.io/policy-role]: "producer" replaced by "system": computed from namespace and targets`,
			`<stdin>:26: note: this object would be denied: MG101`}, 2},
		{"annotation the webhook denies", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web-ns\n  annotations:\n    config.linkerd.io/default-inbound-policy: allow-all\n", exitFindings, []string{
			`<stdin>:6: note: this object would be denied: MG341`}, 1},
		{"unreadable wins", mixed + "---\nkind: [\n", exitUsage, []string{
			`<stdin>:10: note: this object would be denied: MG101`,
			`<stdin>:14: error MG000: invalid YAML`}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := cli(t, tc.in, "default", "-")
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if errOut == "" {
				lines = nil
			}
			if len(lines) != len(tc.stderr) {
				t.Fatalf("stderr:\n%s\nwant:\n%s", errOut, strings.Join(tc.stderr, "\n"))
			}
			for i, w := range tc.stderr {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("stderr line %d:\n got %s\nwant %s", i+1, lines[i], w)
				}
			}
			if n := strings.Count(out, "\n---\n") + 1; n != tc.docs {
				t.Errorf("printed %d documents, want %d:\n%s", n, tc.docs, out)
			}
		})
	}
}

const mtpOK = "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: p\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: Allow\n"
