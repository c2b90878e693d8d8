package lint

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meshguard/meshguard/api"
)

func TestLoadHelm(t *testing.T) {
	const (
		chart    = testRenders + "chart"
		tpl      = chart + "/templates/timeout.yaml"
		chartYML = chart + "/Chart.yaml"
	)
	sub := t.TempDir()
	write(t, sub, "Chart.yaml", "apiVersion: v2\nname: parent\nversion: 0.1.0\n")
	write(t, sub, "templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}\n")
	write(t, sub, "charts/child/Chart.yaml", "apiVersion: v2\nname: child\nversion: 0.1.0\n")
	write(t, sub, "charts/child/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}\n")
	broken := t.TempDir()
	write(t, broken, "Chart.yaml", "apiVersion: v2\nname: broken\nversion: 0.1.0\n")
	write(t, broken, "templates/cm.yaml", "metadata:\n  name: {{ .Values.name\n")

	timeout := renderedView{File: tpl, Line: 1, Kind: "MeshTimeout", Name: "release-name-timeouts", Namespace: "default", By: chartYML, RenderedLine: 1}
	tests := []struct {
		name    string
		paths   []string
		opts    LoadOptions
		want    []renderedView
		skipped []Skip
	}{
		{"chart directory rendered with its values", []string{chart}, LoadOptions{Helm: true}, []renderedView{timeout}, nil},
		{"Chart.yaml named explicitly", []string{chartYML}, LoadOptions{Helm: true}, []renderedView{timeout}, nil},
		{"release namespace from the options", []string{chart}, LoadOptions{Helm: true, Namespace: "frontend-ns"},
			[]renderedView{{File: tpl, Line: 1, Kind: "MeshTimeout", Name: "release-name-timeouts", Namespace: "frontend-ns", By: chartYML, RenderedLine: 1}}, nil},
		{"subchart rendered with its parent only", []string{sub}, LoadOptions{Helm: true}, []renderedView{
			{File: filepath.Join(sub, "charts/child/templates/cm.yaml"), Line: 1, Kind: "ConfigMap", Name: "child", By: filepath.Join(sub, "Chart.yaml"), RenderedLine: 1},
			{File: filepath.Join(sub, "templates/cm.yaml"), Line: 1, Kind: "ConfigMap", Name: "parent", By: filepath.Join(sub, "Chart.yaml"), RenderedLine: 1},
		}, nil},
		{"template error is an error at the template and line Helm names", []string{broken}, LoadOptions{Helm: true}, []renderedView{
			{File: filepath.Join(broken, "templates/cm.yaml"), Line: 3, Err: "helm template " + broken + " failed: parse error at (broken/templates/cm.yaml:3)"},
		}, nil},
		{"--no-helm: templates as they are", []string{chart}, LoadOptions{}, []renderedView{
			{File: chartYML, Line: 1, Err: "document has no 'kind'"},
			{File: tpl, Line: 1, Err: "invalid YAML"},
		}, []Skip{{File: chart + "/values.yaml", Line: 2, Reason: "not a Kubernetes object (no apiVersion and no kind)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LoadAll(tt.paths, nil, tt.opts)
			if diff := cmp.Diff(tt.want, renderedViews(got.Docs), errSubstring); diff != "" {
				t.Errorf("docs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skipped, got.Skipped, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLintHelmValues: values files switch on the part of the template that
// makes the policy invalid; the finding points into the template.
func TestLintHelmValues(t *testing.T) {
	opts := Options{Settings: api.DefaultSettings(), Namespace: "frontend-ns", Registry: api.DefaultRegistry()}
	tests := []struct {
		name   string
		values []string
		want   []string
	}{
		{"chart defaults are clean", nil, nil},
		{"inbound values add 'from' to 'to'", []string{testRenders + "chart-inbound-values.yaml"}, []string{
			testRenders + "chart/templates/timeout.yaml:18 MG102 spec.from by " + testRenders + "chart/Chart.yaml:17",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loaded := LoadAll([]string{testRenders + "chart"}, nil, LoadOptions{Helm: true, HelmValues: tt.values, Namespace: "frontend-ns"})
			fs, _ := Lint(loaded.Docs, opts)
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s:%d %s %s by %s:%d", f.File, f.Line, f.Code, f.Field, f.RenderedBy, f.RenderedLine))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadHelmDot: `meshguard lint .` inside a chart renders that chart.
func TestLoadHelmDot(t *testing.T) {
	t.Chdir(testRenders + "chart")
	got := renderedViews(LoadAll([]string{"."}, nil, LoadOptions{Helm: true}).Docs)
	want := []renderedView{{File: "templates/timeout.yaml", Line: 1, Kind: "MeshTimeout", Name: "release-name-timeouts", Namespace: "default", By: "Chart.yaml", RenderedLine: 1}}
	if diff := cmp.Diff(want, got, errSubstring); diff != "" {
		t.Errorf("docs (-want +got):\n%s", diff)
	}
}

func TestTemplateLines(t *testing.T) {
	source := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
{{- if .Values.labels }}
  labels:
    {{- toYaml .Values.labels | nindent 4 }}
{{- end }}
data:
  a: {{ .Values.a }}
  - item
`
	rendered := `apiVersion: v1
kind: ConfigMap
metadata:
  name: release-name
  labels:
    team: payments
data:
  a: 1
  - item
`
	// rendered line -> source line; 0 for the line toYaml made.
	want := []int{0, 1, 2, 3, 4, 6, 0, 9, 10, 11}
	if diff := cmp.Diff(want, templateLines([]byte(rendered), []byte(source))); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ line, sig string }{
		{"  name: x", "  name:"}, {"    - kind: Mesh", "    - kind:"}, {"  - item", "  - item"},
		{"# comment", ""}, {"{{- if x }}", ""}, {"   ", ""}, {"  url: http://x", "  url:"},
		{"  {{ .Values.key }}: v", ""}, {"  x-{{ .k }}: v", "  x-{{ .k }}: v"},
	} {
		if got := lineSignature(tt.line); got != tt.sig {
			t.Errorf("lineSignature(%q) = %q, want %q", tt.line, got, tt.sig)
		}
	}
}
