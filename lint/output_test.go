package lint

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// sampleFindings covers every shape a finding takes: with and without a field,
// both severities, a parse error without object identity, a multi-line message.
func sampleFindings() ([]Finding, Summary, []rules.Rule) {
	fs := []Finding{
		{File: "policies/mtp.yaml", Line: 12, APIVersion: "kuma.io/v1alpha1", Kind: "MeshTrafficPermission", Namespace: "payments", Name: "allow-web",
			Severity: "error", Code: "MG101", Field: "spec.to[1].targetRef.namespace", Message: "namespace <other> is not allowed here"},
		{File: "policies/mtp.yaml", Line: 3, APIVersion: "kuma.io/v1alpha1", Kind: "MeshTimeout", Namespace: "payments", Name: "t",
			Severity: "warning", Code: "MG002", Field: "metadata.labels[kuma.io/mesh]", Message: "first line\nsecond line"},
		{File: "broken.yaml", Line: 7, Severity: "error", Code: "MG000", Message: "invalid YAML: did not find expected key"},
		{File: "policies/mtp.yaml", Line: 3, Kind: "MeshTimeout", Severity: "warning", Code: "MG001", Message: "object-level problem"},
		{File: "base/timeout.yaml", Line: 9, APIVersion: "kuma.io/v1alpha1", Kind: "MeshTimeout", Namespace: "frontend-ns", Name: "prod-t",
			Severity: "error", Code: "MG102", Field: "spec", Message: "both from and to",
			RenderedBy: "overlays/prod/kustomization.yaml", RenderedLine: 12},
	}
	SortFindings(fs)
	catalogue := []rules.Rule{
		{Code: "MG000", Severity: "error", Summary: "the document cannot be read or parsed as YAML/JSON"},
		{Code: "MG001", Severity: "warning", Summary: "a field the kind does not have"},
		{Code: "MG101", Severity: "error", Summary: "a targetRef field is not allowed for this kind"},
	}
	return fs, Summary{Documents: 4, Errors: 3, Warnings: 2, Skipped: 1}, catalogue
}

// sampleSkipped is what a run over a chart's values file leaves out.
func sampleSkipped() []Skip {
	return []Skip{{File: "charts/app/values.yaml", Line: 1, Reason: "not a Kubernetes object (no apiVersion and no kind)"}}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lint/ -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test ./lint/ -update rewrites it):\n%s", path, diff)
	}
}

func TestSortFindings(t *testing.T) {
	fs, _, _ := sampleFindings()
	var got []string
	for _, f := range fs {
		got = append(got, f.File+":"+f.Code+":"+f.Field)
	}
	want := []string{"base/timeout.yaml:MG102:spec", "broken.yaml:MG000:", "policies/mtp.yaml:MG001:", "policies/mtp.yaml:MG002:metadata.labels[kuma.io/mesh]", "policies/mtp.yaml:MG101:spec.to[1].targetRef.namespace"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestWriteText(t *testing.T) {
	fs, sum, _ := sampleFindings()
	for _, tt := range []struct {
		name  string
		color bool
	}{{"text.golden", false}, {"text-color.golden", true}} {
		var b bytes.Buffer
		if err := WriteText(&b, fs, sum, tt.color); err != nil {
			t.Fatal(err)
		}
		if !tt.color && strings.Contains(b.String(), "\x1b") {
			t.Error("escape codes without color")
		}
		golden(t, tt.name, b.Bytes())
	}
	var b bytes.Buffer
	if err := WriteText(&b, nil, Summary{Documents: 1}, false); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "1 document, 0 errors, 0 warnings\n" {
		t.Errorf("empty report = %q", got)
	}
}

func TestWriteJSON(t *testing.T) {
	fs, sum, _ := sampleFindings()
	var b bytes.Buffer
	if err := WriteJSON(&b, fs, sum, sampleSkipped()); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", b.Bytes())

	// Exactly one object, and it round-trips.
	dec := json.NewDecoder(bytes.NewReader(b.Bytes()))
	var got jsonReport
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Error("more than one JSON value")
	}
	if diff := cmp.Diff(jsonReport{Findings: fs, Summary: sum, Skipped: sampleSkipped()}, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	b.Reset()
	if err := WriteJSON(&b, nil, Summary{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, empty := range []string{`"findings": []`, `"skipped": []`} {
		if !strings.Contains(b.String(), empty) {
			t.Errorf("empty lists must be [], want %s in %s", empty, b.String())
		}
	}
}

func TestWriteSARIF(t *testing.T) {
	fs, _, rules := sampleFindings()
	var b bytes.Buffer
	if err := WriteSARIF(&b, fs, sampleSkipped(), rules, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.sarif", b.Bytes())
	checkSARIF(t, b.Bytes(), len(fs))

	b.Reset()
	if err := WriteSARIF(&b, nil, nil, nil, ""); err != nil {
		t.Fatal(err)
	}
	checkSARIF(t, b.Bytes(), 0)
	if strings.Contains(b.String(), "invocations") {
		t.Errorf("a run that skipped nothing has no invocation notes:\n%s", b.String())
	}
}

func TestWriteNotes(t *testing.T) {
	var b bytes.Buffer
	skipped := append(sampleSkipped(), Skip{File: "overlays/prod/old.yaml", Reason: "unused"})
	if err := WriteNotes(&b, skipped); err != nil {
		t.Fatal(err)
	}
	want := "charts/app/values.yaml:1: note: skipped: not a Kubernetes object (no apiVersion and no kind)\n" +
		"overlays/prod/old.yaml: note: skipped: unused\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// checkSARIF checks the parts of the SARIF 2.1.0 schema that code-scanning
// services require, on the generic JSON rather than on our own structs.
func checkSARIF(t *testing.T, data []byte, results int) {
	t.Helper()
	var log map[string]any
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	str := func(m any, key string) string {
		t.Helper()
		s, ok := m.(map[string]any)[key].(string)
		if !ok || s == "" {
			t.Errorf("missing string %q in %v", key, m)
		}
		return s
	}
	if str(log, "version") != "2.1.0" || !strings.Contains(str(log, "$schema"), "sarif") {
		t.Errorf("version/$schema wrong: %v", log)
	}
	runs, _ := log["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("want one run, got %v", log["runs"])
	}
	run := runs[0].(map[string]any)
	driver, _ := run["tool"].(map[string]any)["driver"].(map[string]any)
	if str(driver, "name") != "meshguard" {
		t.Error("driver name")
	}
	str(driver, "informationUri")
	ruleIDs := map[string]int{}
	ruleList, ok := driver["rules"].([]any)
	if !ok {
		t.Fatal("driver.rules must be an array")
	}
	for i, r := range ruleList {
		ruleIDs[str(r, "id")] = i
		str(r.(map[string]any)["shortDescription"], "text")
		if lvl := str(r.(map[string]any)["defaultConfiguration"], "level"); lvl != "error" && lvl != "warning" && lvl != "note" {
			t.Errorf("rule level %q", lvl)
		}
		if h := str(r, "helpUri"); !strings.HasSuffix(h, "docs/rules.md#"+strings.ToLower(str(r, "id"))) {
			t.Errorf("helpUri %q", h)
		}
	}
	res, ok := run["results"].([]any)
	if !ok || len(res) != results {
		t.Fatalf("results must be an array of %d, got %v", results, run["results"])
	}
	for _, r := range res {
		rm := r.(map[string]any)
		idx, known := ruleIDs[str(r, "ruleId")]
		if !known || int(rm["ruleIndex"].(float64)) != idx {
			t.Errorf("ruleId %v / ruleIndex %v do not resolve", rm["ruleId"], rm["ruleIndex"])
		}
		str(r, "level")
		str(rm["message"], "text")
		locs, _ := rm["locations"].([]any)
		if len(locs) != 1 {
			t.Fatalf("want one location, got %v", rm["locations"])
		}
		phys := locs[0].(map[string]any)["physicalLocation"].(map[string]any)
		uri := str(phys["artifactLocation"], "uri")
		if strings.Contains(uri, `\`) || strings.HasPrefix(uri, "/") {
			t.Errorf("uri %q is not a relative forward-slash path", uri)
		}
		if line, _ := phys["region"].(map[string]any)["startLine"].(float64); line < 1 {
			t.Errorf("startLine %v < 1", line)
		}
	}
}

func TestArtifactURI(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"a/b.yaml":                       "a/b.yaml",
		"./a/b c.yaml":                   "a/b%20c.yaml",
		filepath.Join(wd, "x", "y.yaml"): "x/y.yaml",
		StdinName:                        "%3Cstdin%3E",
		filepath.Join(string(filepath.Separator), "elsewhere-not-under-wd", "p.yaml"): "file:///elsewhere-not-under-wd/p.yaml",
	}
	for in, want := range tests {
		if got := artifactURI(in); got != want {
			t.Errorf("artifactURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) || IsTerminal(nil) {
		t.Error("a regular file or nil is not a terminal")
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		t.Setenv("NO_COLOR", "1")
		if IsTerminal(tty) {
			t.Error("NO_COLOR must disable colour")
		}
	}
}

// TestWriteJSONMatchesWholeEncoding: writing findings one at a time gives the
// bytes of encoding the whole report, for none, one and several findings with
// characters JSON escapes (or, with HTML escaping off, does not).
func TestWriteJSONMatchesWholeEncoding(t *testing.T) {
	all := []Finding{
		{File: "a.yaml", Line: 3, Kind: "MeshTrafficPermission", Name: "p<1>", Severity: "warning", Code: "MG201", Field: "spec.from[0]", Message: "a & b \"quoted\" \u2028 ünïcode"},
		{File: "b.yaml", Line: 1, Severity: "error", Code: "MG000", Message: "tab\there"},
		{File: "c.yaml", Line: 9, APIVersion: "v1", Namespace: "ns", Severity: "warning", Code: "MG341", Field: "metadata.annotations[x]", Message: "m"},
	}
	skips := []Skip{{File: "values.yaml", Line: 1, Reason: "not a Kubernetes object <no kind>"}, {File: "x.yaml", Reason: "unused"}}
	for n := 0; n <= len(all); n++ {
		for k := 0; k <= len(skips); k++ {
			fs, sum, skipped := all[:n], Summary{Documents: 7, Errors: 1, Warnings: n, Skipped: k}, skips[:k]
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(jsonReport{Findings: append([]Finding{}, fs...), Summary: sum, Skipped: append([]Skip{}, skipped...)}); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := WriteJSON(&got, fs, sum, skipped); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%d findings, %d skipped:\ngot  %q\nwant %q", n, k, got.String(), want.String())
			}
		}
	}
}
