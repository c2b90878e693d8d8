package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/rules"
	"github.com/meshguard/meshguard/validate"
)

var update = flag.Bool("update", false, "rewrite golden files")

// cli runs meshguard in-process with stdin and returns stdout, stderr and the exit code.
func cli(t testing.TB, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, streams{in: strings.NewReader(stdin), out: &out, err: &errb})
	return out.String(), errb.String(), code
}

type jsonReport struct {
	Findings []struct {
		File, APIVersion, Kind, Namespace, Name, Severity, Code, Field, Message string
		Line                                                                    int
	} `json:"findings"`
	Summary struct{ Documents, Errors, Warnings int } `json:"summary"`
}

func lintJSON(t *testing.T, stdin string, args ...string) (jsonReport, int) {
	t.Helper()
	out, errOut, code := cli(t, stdin, append([]string{"lint", "-o", "json"}, args...)...)
	var r jsonReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("lint -o json printed no single JSON object (%v):\n%s\nstderr: %s", err, out, errOut)
	}
	return r, code
}

// TestCatalogueExamples lints every documented bad and good example: the bad one must
// produce its code, the good one no error at all (and not that code).
func TestCatalogueExamples(t *testing.T) {
	// MG004 needs a Linkerd release whose CRDs serve a kind meshguard lacks; no
	// embedded release has one.
	webhookOnly := map[string]bool{validate.CodeMeshChanged: true, validate.CodeOwnedLabel: true, validate.CodeUnknownKind: true}
	for _, r := range rules.Catalogue() {
		t.Run(r.Code, func(t *testing.T) {
			flags := strings.Fields(r.Flags)
			if !webhookOnly[r.Code] {
				rep, _ := lintJSON(t, r.Bad, append(flags, "-")...)
				found := false
				for _, f := range rep.Findings {
					found = found || f.Code == r.Code
				}
				if !found {
					t.Errorf("bad example did not produce %s: %+v", r.Code, rep.Findings)
				}
			}
			rep, code := lintJSON(t, r.Good, append(flags, "-")...)
			for _, f := range rep.Findings {
				if f.Severity == validate.SeverityError || f.Code == r.Code {
					t.Errorf("good example produced %s %s: %s", f.Code, f.Field, f.Message)
				}
			}
			if code != exitOK {
				t.Errorf("good example exit code %d", code)
			}
		})
	}
}

// TestExamples lints examples/: every valid file is clean, every invalid file produces
// the codes and field paths its "# expect:" lines name. The invalid files and their
// expectations come from the rules package (rules/examples/invalid/, of which
// examples/invalid/ and examples/linkerd/invalid/ are checked copies).
func TestExamples(t *testing.T) {
	// examples/ holds the Kuma family (its document counts are part of other tests);
	// examples/linkerd/ holds the Linkerd family.
	for _, root := range []string{"../../examples", "../../examples/linkerd"} {
		rep, code := lintJSON(t, "", root+"/valid")
		if code != exitOK || rep.Summary.Errors != 0 || rep.Summary.Documents == 0 {
			t.Errorf("%s/valid: exit %d, %d documents, findings %+v", root, code, rep.Summary.Documents, rep.Findings)
		}
	}
	invalid, err := rules.InvalidExamples()
	if err != nil || len(invalid) == 0 {
		t.Fatalf("invalid examples: %d, %v", len(invalid), err)
	}
	for _, inv := range invalid {
		t.Run(inv.Path, func(t *testing.T) {
			rep, code := lintJSON(t, "", filepath.Join("../..", filepath.FromSlash(inv.Path)))
			if code != exitFindings {
				t.Errorf("exit code %d, want %d", code, exitFindings)
			}
			for _, w := range inv.Expect {
				found := false
				for _, got := range rep.Findings {
					found = found || (got.Code == w[0] && got.Field == w[1])
				}
				if !found {
					t.Errorf("missing %s at %s; got %+v", w[0], w[1], rep.Findings)
				}
			}
		})
	}
}

func TestExitCodesAndJSONShape(t *testing.T) {
	good := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\nspec:\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n"
	warnOnly := strings.Replace(good, "idleTimeout: 1h", "idleTimeout: 1h\n        bogus: 1", 1)
	broken := good + "---\nkind: [\n---\n" + good
	cases := []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"clean", good, nil, exitOK},
		{"unknown field is an error", warnOnly, nil, exitFindings},
		{"warning below threshold", warnOnly, []string{"--unknown-fields=warn"}, exitOK},
		{"warning at threshold", warnOnly, []string{"--unknown-fields=warn", "--fail-on", "warning"}, exitFindings},
		{"parse error wins", broken, nil, exitUsage},
		{"bad flag", good, []string{"--mode", "mars"}, exitUsage},
		{"zone needs a name", good, []string{"--mode", "zone"}, exitUsage},
		{"bad output", good, []string{"-o", "xml"}, exitUsage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := cli(t, tc.stdin, append(append([]string{"lint"}, tc.args...), "-")...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errOut)
			}
		})
	}
	// The parse error is a finding with file and line, and the other documents are linted.
	rep, _ := lintJSON(t, broken, "-")
	if rep.Summary.Documents != 3 {
		t.Errorf("documents = %d, want 3", rep.Summary.Documents)
	}
	var parse int
	for _, f := range rep.Findings {
		if f.Code == validate.CodeParse {
			parse++
			if f.Line < 11 || f.File != "<stdin>" {
				t.Errorf("parse error at %s:%d, want <stdin> line ≥ 11", f.File, f.Line)
			}
		}
	}
	if parse != 1 {
		t.Errorf("parse findings = %d, want 1: %+v", parse, rep.Findings)
	}
	// The documented JSON shape: object fields present with these names.
	rep, _ = lintJSON(t, strings.Replace(good, "kind: Mesh\n", "kind: MeshSubset\n", 1), "-n", "ns", "-")
	if len(rep.Findings) != 1 {
		t.Fatalf("want one finding, got %+v", rep.Findings)
	}
	f := rep.Findings[0]
	want := []string{"<stdin>", "kuma.io/v1alpha1", "MeshTimeout", "ns", "t", "error", validate.CodeToKind, "spec.to[0].targetRef.kind"}
	if diff := cmp.Diff(want, []string{f.File, f.APIVersion, f.Kind, f.Namespace, f.Name, f.Severity, f.Code, f.Field}); diff != "" {
		t.Error(diff)
	}
	if f.Line != 8 {
		t.Errorf("line = %d, want 8 (the kind: MeshSubset line)", f.Line)
	}
}

// TestDefaultCommand checks `meshguard default` against a golden file and that
// defaulting its own output changes nothing (idempotence through the door).
func TestDefaultCommand(t *testing.T) {
	out, errOut, code := cli(t, "", "default", "--mode", "zone", "--zone", "zone-1", "../../examples/valid")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden := "testdata/default-examples.golden.yaml"
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out); diff != "" {
		t.Errorf("default output (-golden +got), rerun with -update if intended:\n%s", diff)
	}
	again, _, _ := cli(t, out, "default", "--mode", "zone", "--zone", "zone-1", "-")
	if diff := cmp.Diff(out, again); diff != "" {
		t.Errorf("defaulting twice changed the output:\n%s", diff)
	}
	// Every document comes back, in order, and is valid for the same settings.
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 12 {
		t.Errorf("printed %d documents, want 12", len(docs))
	}
	for _, d := range docs {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(d), &u.Object); err != nil {
			t.Fatal(err)
		}
		if u.GetLabels()[api.LabelPolicyRole] == "" || u.GetLabels()[api.LabelZone] != "zone-1" {
			t.Errorf("%s: labels not set: %v", u.GetName(), u.GetLabels())
		}
	}
}

// TestRulesDocInSync keeps docs/rules.md equal to `meshguard rules -o markdown`.
func TestRulesDocInSync(t *testing.T) {
	out, _, code := cli(t, "", "rules", "-o", "markdown")
	if code != exitOK {
		t.Fatal(code)
	}
	path := "../../docs/rules.md"
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := os.ReadFile(path)
	if string(want) != out {
		t.Error("docs/rules.md is stale: run `make docs` (or go test ./cmd/meshguard -update)")
	}
	text, _, _ := cli(t, "", "rules")
	for _, r := range rules.Catalogue() {
		if !strings.Contains(text, r.Code) {
			t.Errorf("meshguard rules does not list %s", r.Code)
		}
	}
}

// TestPreviewCommand checks `meshguard preview -o json`: one object with a preview per
// proxy group, policies in merge order, and denied policies skipped with a note.
func TestPreviewCommand(t *testing.T) {
	in := `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: global, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Deny}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: backend, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: backend}
  from:
    - targetRef: {kind: MeshSubset, tags: {env: dev}}
      default: {action: Allow}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: broken, namespace: kuma-system}
spec:
  from:
    - targetRef: {kind: Mesh}
      default: {action: MAYBE}
`
	for _, form := range []string{"expanded", "compact"} {
		out, errOut, code := cli(t, in, "preview", "--form", form, "-o", "json", "-")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, "skipped kuma-system/broken") {
			t.Errorf("denied policy not reported as skipped: %q", errOut)
		}
		var got struct {
			Previews []struct {
				Target   map[string]any  `json:"target"`
				Policies []string        `json:"policies"`
				Form     string          `json:"form"`
				RBAC     json.RawMessage `json:"rbac"`
			} `json:"previews"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("not one JSON object: %v\n%s", err, out)
		}
		var groups [][]string
		for _, p := range got.Previews {
			groups = append(groups, p.Policies)
			if p.Form != form || len(p.RBAC) == 0 || p.Target["kind"] == nil {
				t.Errorf("preview %+v", p)
			}
		}
		want := [][]string{{"kuma-system/global"}, {"kuma-system/global", "kuma-system/backend"}}
		if diff := cmp.Diff(want, groups); diff != "" {
			t.Errorf("groups (-want +got):\n%s", diff)
		}
	}
	if _, _, code := cli(t, in, "preview", "--form", "sideways", "-"); code != exitUsage {
		t.Errorf("bad --form: exit %d", code)
	}
}
