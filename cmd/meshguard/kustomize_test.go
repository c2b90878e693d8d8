package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meshguard/meshguard/lint"
)

// renders holds the kustomize trees the lint package tests with.
const renders = "../../lint/testdata/render/"

// renderedReport is `lint -o json` with the fields rendering adds.
type renderedReport struct {
	Findings []lint.Finding `json:"findings"`
	Summary  lint.Summary   `json:"summary"`
	Skipped  []lint.Skip    `json:"skipped"`
}

func TestLintKustomize(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		findings []string // file:line code field [by renderedBy]
		sum      lint.Summary
		notes    []string // substrings of stderr lines, in order
	}{
		{"overlay patch introduces MG102", []string{renders + "tree"}, exitFindings,
			[]string{"tree/overlays/prod/add-from.yaml:7 MG102 spec.from by tree/overlays/prod/kustomization.yaml"},
			lint.Summary{Documents: 3, Errors: 1, Skipped: 2},
			[]string{"tree/charts/app/values.yaml:2: note: skipped: not a Kubernetes object", "tree/overlays/prod/unused.yaml: note: skipped: in kustomization directory"}},
		// MG190: the fixture's MeshTrafficPermission uses 'from', deprecated in Kuma 2.14.
		{"renders are alternatives: no cross-render findings", []string{renders + "envs"}, exitOK,
			[]string{"envs/base/mtp.yaml:11 MG190 spec.from by envs/base/kustomization.yaml", "envs/base/mtp.yaml:11 MG190 spec.from by envs/prod/kustomization.yaml", "envs/base/mtp.yaml:11 MG190 spec.from by envs/staging/kustomization.yaml"},
			lint.Summary{Documents: 3, Warnings: 3}, nil},
		{"within one render the cross-document checks still run", []string{renders + "envs-both"}, exitOK,
			[]string{"envs/base/mtp.yaml:11 MG190 spec.from by envs-both/kustomization.yaml", "envs/base/mtp.yaml:11 MG190 spec.from by envs-both/kustomization.yaml",
				"envs/base/mtp.yaml:12 MG201 spec.from[0] by envs-both/kustomization.yaml", "envs/base/mtp.yaml:16 MG201 spec.from[1] by envs-both/kustomization.yaml"},
			lint.Summary{Documents: 2, Warnings: 4}, nil},
		{"kustomization-only directory", []string{renders + "only-kustomization"}, exitOK,
			nil, lint.Summary{Documents: 1}, nil},
		{"values.yaml skipped with a note, exit unaffected", []string{renders + "tree/charts"}, exitOK,
			nil, lint.Summary{Skipped: 1}, []string{"values.yaml:2: note: skipped"}},
		// Read as they are, the patch and the base are two documents of one
		// MeshTimeout (kubectl apply -f of these files keeps the last): MG006. The patch is a MeshTimeout with 'from': Kuma 2.14 warns
		// that it is deprecated (MG192).
		{"--no-kustomize: the raw files, the overlay error unseen", []string{"--no-kustomize", renders + "tree/overlays/prod/add-from.yaml", renders + "tree/overlays/prod/kustomization.yaml", renders + "tree/base"}, exitFindings,
			[]string{"tree/overlays/prod/add-from.yaml:4 MG006 metadata.name", "tree/overlays/prod/add-from.yaml:7 MG192 spec.from"}, lint.Summary{Documents: 3, Errors: 1, Warnings: 1, Skipped: 1}, []string{"tree/overlays/prod/kustomization.yaml:3: note: skipped: not a Kubernetes object"}},
		{"Helm chart with values that add 'from'", []string{"-n", "frontend-ns", "--helm-values", renders + "chart-inbound-values.yaml", renders + "chart"}, exitFindings,
			[]string{"chart/templates/timeout.yaml:18 MG102 spec.from by chart/Chart.yaml"}, lint.Summary{Documents: 1, Errors: 1}, nil},
		{"Helm chart with its own values", []string{renders + "chart"}, exitOK, nil, lint.Summary{Documents: 1}, nil},
		{"--no-helm: templates are not YAML", []string{"--no-helm", renders + "chart"}, exitUsage,
			[]string{"chart/Chart.yaml:1 MG000 ", "chart/templates/timeout.yaml:17 MG000 "}, lint.Summary{Documents: 2, Errors: 2, Skipped: 1},
			[]string{"chart/values.yaml:2: note: skipped"}},
		{"missing --helm-values file: MG000 on Chart.yaml, exit 2", []string{"--helm-values", renders + "nope.yaml", renders + "chart"}, exitUsage,
			[]string{"chart/Chart.yaml:1 MG000 "}, lint.Summary{Documents: 1, Errors: 1}, nil},
		{"broken kustomization: MG000 on its file, exit 2", []string{renders + "broken", renders + "tree/base"}, exitUsage,
			[]string{"broken/kustomization.yaml:1 MG000 "}, lint.Summary{Documents: 2, Errors: 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, "", append([]string{"lint", "-o", "json"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			var rep renderedReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("not one JSON object (%v):\n%s", err, out)
			}
			var got []string
			for _, f := range rep.Findings {
				s := fmt.Sprintf("%s:%d %s %s", strings.TrimPrefix(f.File, renders), f.Line, f.Code, f.Field)
				if f.RenderedBy != "" {
					s += " by " + strings.TrimPrefix(f.RenderedBy, renders)
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.findings, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.sum, rep.Summary); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if len(rep.Skipped) != tt.sum.Skipped {
				t.Errorf("skipped list %+v, want %d entries", rep.Skipped, tt.sum.Skipped)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if errOut == "" {
				lines = nil
			}
			if len(lines) != len(tt.notes) {
				t.Fatalf("stderr has %d lines, want %d:\n%s", len(lines), len(tt.notes), errOut)
			}
			for i, want := range tt.notes {
				if !strings.Contains(lines[i], want) {
					t.Errorf("stderr line %d = %q, want it to contain %q", i, lines[i], want)
				}
			}
		})
	}
}

// TestLintKustomizeText: the text format names the overlay next to the finding.
func TestLintKustomizeText(t *testing.T) {
	out, _, code := cli(t, "", "lint", renders+"tree/overlays/prod")
	if code != exitFindings {
		t.Errorf("exit %d, want %d", code, exitFindings)
	}
	want := renders + "tree/overlays/prod/add-from.yaml:7: error MG102 spec.from: "
	if !strings.HasPrefix(out, want) || !strings.Contains(out, "[rendered by "+renders+"tree/overlays/prod/kustomization.yaml, line 7 of its output]") {
		t.Errorf("text output:\n%s\nwant a line starting %q naming the overlay", out, want)
	}
	if !strings.HasSuffix(out, "1 document, 1 error, 0 warnings, 1 skipped\n") {
		t.Errorf("summary line wrong:\n%s", out)
	}
}

// TestDefaultKustomize: `meshguard default` prints the rendered, defaulted
// objects with no trace of the annotations meshguard used for provenance.
func TestDefaultKustomize(t *testing.T) {
	// The overlay's patch makes the policy one the webhook denies (MG102): default
	// still prints it, says so where lint would, and exits 1.
	out, errOut, code := cli(t, "", "default", renders+"tree/overlays/prod")
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := renders + "tree/overlays/prod/add-from.yaml:7: note: this object would be denied: MG102"; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
	for _, want := range []string{"name: prod-frontend-to-backend", "from:", "to:", "kuma.io/mesh: default"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "config.kubernetes.io") || strings.Contains(out, "annotations") {
		t.Errorf("provenance annotation leaked into the output:\n%s", out)
	}
	// The broken kustomization: reported on stderr, exit 2, no panic.
	_, errOut, code = cli(t, "", "default", renders+"broken")
	if code != exitUsage || !strings.Contains(errOut, "broken/kustomization.yaml:1: error MG000: kustomize build") {
		t.Errorf("exit %d, stderr %q; want 2 and an MG000 on the kustomization file", code, errOut)
	}
}

// TestLintSARIFSkipped: skipped documents are notifications, not results.
func TestLintSARIFSkipped(t *testing.T) {
	out, _, code := cli(t, "", "lint", "-o", "sarif", renders+"tree/charts")
	if code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	var log struct {
		Runs []struct {
			Results     []any `json:"results"`
			Invocations []struct {
				Notes []struct {
					Level   string `json:"level"`
					Message struct{ Text string }
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || len(log.Runs[0].Results) != 0 || len(log.Runs[0].Invocations) != 1 {
		t.Fatalf("want one run with no results and one invocation:\n%s", out)
	}
	notes := log.Runs[0].Invocations[0].Notes
	if len(notes) != 1 || notes[0].Level != "note" || !strings.Contains(notes[0].Message.Text, "not a Kubernetes object") {
		t.Errorf("notifications %+v", notes)
	}
}
