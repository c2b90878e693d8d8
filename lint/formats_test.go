package lint

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// helmFinding is a finding on an object a Helm render produced: File and Line
// are in the template, RenderedBy is the chart.
func helmFinding() Finding {
	return Finding{File: "charts/shop/templates/mtp.yaml", Line: 8, APIVersion: "kuma.io/v1alpha1", Kind: "MeshTrafficPermission",
		Namespace: "shop", Name: "allow", Severity: "error", Code: "MG101", Field: "spec.from[0]", Message: "bad",
		RenderedBy: "charts/shop/Chart.yaml", RenderedLine: 14}
}

// TestWriteSARIFToolVersionAndProvenance checks that SARIF names the version of
// the tool that wrote it and keeps a rendered object's provenance as data (the
// chart or kustomization as a related location, renderer, template and line in
// properties), not only in the message text.
func TestWriteSARIFToolVersionAndProvenance(t *testing.T) {
	type driver struct {
		Version         string `json:"version"`
		SemanticVersion string `json:"semanticVersion"`
	}
	type result struct {
		RelatedLocations []struct {
			ID               int            `json:"id"`
			PhysicalLocation map[string]any `json:"physicalLocation"`
			Message          struct{ Text string }
		} `json:"relatedLocations"`
		Properties map[string]any `json:"properties"`
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver driver `json:"driver"`
			} `json:"tool"`
			Results []result `json:"results"`
		} `json:"runs"`
	}
	fs, _, rules := sampleFindings()
	fs = append(fs, helmFinding())
	for _, tc := range []struct {
		version string
		want    driver
	}{
		{"v1.2.3", driver{"v1.2.3", "1.2.3"}},
		{"v0.0.0-20260101120000-abcdef123456+dirty", driver{"v0.0.0-20260101120000-abcdef123456+dirty", "0.0.0-20260101120000-abcdef123456+dirty"}},
		{"devel", driver{Version: "devel"}},
		{"v1.02.3", driver{Version: "v1.02.3"}},
	} {
		var b bytes.Buffer
		if err := WriteSARIF(&b, fs, nil, rules, tc.version); err != nil {
			t.Fatal(err)
		}
		checkSARIF(t, b.Bytes(), len(fs))
		log.Runs = nil
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, log.Runs[0].Tool.Driver); diff != "" {
			t.Errorf("version %q: driver (-want +got):\n%s", tc.version, diff)
		}
	}
	byRendered := map[string]result{}
	for i, f := range fs {
		byRendered[f.RenderedBy] = log.Runs[0].Results[i]
	}
	if r := byRendered[""]; r.Properties != nil || r.RelatedLocations != nil {
		t.Errorf("a finding on a plain file has provenance: %+v", r)
	}
	for by, want := range map[string]map[string]any{
		"charts/shop/Chart.yaml":           {"renderer": "helm", "renderedBy": "charts/shop/Chart.yaml", "renderedLine": 14.0, "template": "charts/shop/templates/mtp.yaml"},
		"overlays/prod/kustomization.yaml": {"renderer": "kustomize", "renderedBy": "overlays/prod/kustomization.yaml", "renderedLine": 12.0},
	} {
		r := byRendered[by]
		if diff := cmp.Diff(want, r.Properties); diff != "" {
			t.Errorf("%s: properties (-want +got):\n%s", by, diff)
		}
		if len(r.RelatedLocations) != 1 || !strings.Contains(r.RelatedLocations[0].Message.Text, "rendered this object") {
			t.Fatalf("%s: related locations %+v", by, r.RelatedLocations)
		}
		uri := r.RelatedLocations[0].PhysicalLocation["artifactLocation"].(map[string]any)["uri"]
		if uri != by {
			t.Errorf("%s: related location %v, want the rendering file", by, uri)
		}
	}
}

// TestWriteGitHub checks the workflow commands and their escaping: % first,
// line breaks in the message, and ':' ',' in properties as well.
func TestWriteGitHub(t *testing.T) {
	fs := []Finding{
		{File: "a,b:c.yaml", Line: 3, Severity: "error", Code: "MG101", Field: "spec.to[0]", Message: "100% wrong\nsecond line\r"},
		{File: "w.yaml", Line: 0, Severity: "warning", Code: "MG126", Message: "no to: nothing, really"},
		{File: "s.yaml", Line: 1, Severity: "warning", Code: "MG203", Message: "accepted", Suppression: &Suppression{Kind: SuppressionInSource, Justification: "ok"}},
		helmFinding(),
	}
	var b bytes.Buffer
	if err := WriteGitHub(&b, fs, Summary{Documents: 4, Errors: 2, Warnings: 1, Suppressed: 1}); err != nil {
		t.Fatal(err)
	}
	want := "::error file=a%2Cb%3Ac.yaml,line=3,title=MG101::spec.to[0]: 100%25 wrong%0Asecond line%0D\n" +
		"::warning file=w.yaml,title=MG126::no to: nothing, really\n" +
		"::error file=charts/shop/templates/mtp.yaml,line=8,title=MG101::spec.from[0]: bad [rendered by charts/shop/Chart.yaml, line 14 of the rendered template]\n" +
		"4 documents, 2 errors, 1 warning, 1 suppressed\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("github (-want +got):\n%s", diff)
	}
}

// TestWriteMarkdown checks the job-summary table: one row per unsuppressed
// finding, cells that cannot break the table, and the row bound.
func TestWriteMarkdown(t *testing.T) {
	fs := []Finding{{File: "p.yaml", Line: 2, Severity: "error", Code: "MG101", Field: "spec", Message: "a | b\n<script>"}}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, fs, Summary{Documents: 1, Errors: 1}); err != nil {
		t.Fatal(err)
	}
	want := "## meshguard lint\n\n1 document, 1 error, 0 warnings\n\n| file | severity | code | field | message |\n| --- | --- | --- | --- | --- |\n" +
		"| p.yaml:2 | error | MG101 | spec | a \\| b &lt;script&gt; |\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
	many := make([]Finding, MaxMarkdownRows+7)
	for i := range many {
		many[i] = Finding{File: "p.yaml", Line: i + 1, Severity: "warning", Code: "MG126"}
	}
	b.Reset()
	if err := WriteMarkdown(&b, many, Summary{}); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(b.String(), "| warning |"); rows != MaxMarkdownRows || !strings.Contains(b.String(), "and 7 more") {
		t.Errorf("%d rows for %d findings, want %d and a count of the rest", rows, len(many), MaxMarkdownRows)
	}
}

// TestWriteYAML checks that -o yaml is the JSON report, key for key.
func TestWriteYAML(t *testing.T) {
	fs, sum, _ := sampleFindings()
	var js, ys bytes.Buffer
	if err := WriteJSON(&js, fs, sum, sampleSkipped()); err != nil {
		t.Fatal(err)
	}
	if err := WriteYAML(&ys, fs, sum, sampleSkipped()); err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML any
	if err := json.Unmarshal(js.Bytes(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(ys.Bytes(), &fromYAML); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromJSON, fromYAML); diff != "" {
		t.Errorf("yaml differs from json (-json +yaml):\n%s", diff)
	}
}
