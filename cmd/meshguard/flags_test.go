package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// completions asks the root for the shell completions of args, as the scripts
// of `meshguard completion` do (the hidden __complete command), and returns
// the values offered.
func completions(t *testing.T, args ...string) []string {
	t.Helper()
	out, errOut, code := cli(t, "", append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if code != exitOK {
		t.Fatalf("__complete %v: exit %d\n%s", args, code, errOut)
	}
	var values []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line != "" && !strings.HasPrefix(line, ":") {
			values = append(values, strings.SplitN(line, "\t", 2)[0])
		}
	}
	return values
}

// TestOutputFormatsFromOneList checks that every command's -o offers formats of
// the one list, completes them in the shell, and accepts what it offers.
func TestOutputFormatsFromOneList(t *testing.T) {
	want := map[string][]string{
		"lint":    {"text", "json", "yaml", "sarif", "markdown", "github", "junit"},
		"audit":   {"text", "json", "yaml", "sarif", "markdown", "github", "junit"},
		"default": {"yaml", "json"},
		"rules":   {"text", "json", "yaml", "markdown"},
		"preview": {"yaml", "json", "text", "table"},
		"check":   {"text", "json", "yaml"},
		"diff":    {"text", "json", "yaml", "markdown"},
		"version": {"text", "json", "yaml"},
		"inspect": {"text", "json"},
		"map":     {"text", "csv", "json", "yaml", "markdown", "dot", "html"},
	}
	known := formatNames(allFormats())
	root := newRoot(streams{})
	for _, c := range root.Commands() {
		if c.Flags().Lookup("output") == nil {
			continue
		}
		got := completions(t, c.Name(), "--output", "")
		if diff := cmp.Diff(want[c.Name()], got); diff != "" {
			t.Errorf("%s -o completes (-want +got):\n%s", c.Name(), diff)
		}
		for _, f := range got {
			if !slices.Contains(known, f) {
				t.Errorf("%s -o offers %q, which is not in the one list of formats", c.Name(), f)
			}
		}
	}
}

// TestSharedFlagsMeanOneThing checks the flags several commands share: --fail-on
// takes the same levels everywhere, -n is the namespace everywhere (as in
// kubectl), and --form has one default.
func TestSharedFlagsMeanOneThing(t *testing.T) {
	root := newRoot(streams{})
	forms := map[string]string{}
	for _, c := range root.Commands() {
		if c.Flags().Lookup("fail-on") != nil {
			if diff := cmp.Diff([]string{"error", "warning", "none"}, completions(t, c.Name(), "--fail-on", "")); diff != "" {
				t.Errorf("%s --fail-on levels (-want +got):\n%s", c.Name(), diff)
			}
		}
		if f := c.Flags().ShorthandLookup("n"); f != nil && f.Name != "namespace" {
			t.Errorf("%s -n is --%s, want --namespace", c.Name(), f.Name)
		}
		for _, name := range []string{"form", "preview-form"} {
			if f := c.Flags().Lookup(name); f != nil {
				forms[c.Name()+" --"+name] = f.DefValue
			}
		}
	}
	for _, name := range []string{"check --form", "preview --form", "serve --preview-form"} {
		if forms[name] != defaultForm {
			t.Errorf("%s defaults to %q, want the one default %q (all: %v)", name, forms[name], defaultForm, forms)
		}
	}
}

// TestEnumFlagsComplete checks that every flag taking one of a fixed set of
// values completes them in the shell, wherever it is.
func TestEnumFlagsComplete(t *testing.T) {
	root := newRoot(streams{})
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name := range enumFlags() {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			seen[name] = true
			if _, ok := c.GetFlagCompletionFunc(name); !ok {
				t.Errorf("%s --%s has no completion", c.CommandPath(), name)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for name := range enumFlags() {
		if !seen[name] {
			t.Errorf("enumFlags names --%s, which no command has", name)
		}
	}
	if got := completions(t, "lint", "--mode", ""); !slices.Contains(got, "zone") {
		t.Errorf("lint --mode completes %v", got)
	}
	if _, errOut, code := cli(t, "", "completion", "bash"); code != exitOK {
		t.Errorf("completion bash: exit %d\n%s", code, errOut)
	}
}

// TestVersionFlag checks --version on the root.
func TestVersionFlag(t *testing.T) {
	out, _, code := cli(t, "", "--version")
	if code != exitOK || out != "meshguard "+toolVersion()+"\n" {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

// TestUnknownFlagHint checks that an unknown flag names the command's help and
// the closest flag it has.
func TestUnknownFlagHint(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lint", "--fial-on", "warning", "x.yaml"}, "unknown flag --fial-on (did you mean --fail-on?); see 'meshguard lint --help'"},
		{[]string{"check", "--to-namespce", "shop"}, "unknown flag --to-namespce (did you mean --to-namespace?); see 'meshguard check --help'"},
		{[]string{"diff", "--git-bas", "HEAD"}, "unknown flag --git-bas (did you mean --git-base?); see 'meshguard diff --help'"},
		{[]string{"rules", "--foo"}, "unknown flag --foo; see 'meshguard rules --help'"},
		{[]string{"lint", "-Z"}, "unknown flag -Z; see 'meshguard lint --help'"},
		{[]string{"lint", "--progress-delay=1s", "--output"}, "flag needs an argument: --output; see 'meshguard lint --help'"},
	} {
		_, errOut, code := cli(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestLintWritesSeveralReports runs lint once with text on standard output and
// SARIF, JUnit, GitHub annotations and Markdown into files.
func TestLintWritesSeveralReports(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	out, errOut, code := cli(t, "", "lint", "-o", "text,sarif="+file("r.sarif")+",junit="+file("r.xml")+",github="+file("r.gh")+",markdown="+file("r.md")+",yaml="+file("r.yaml"),
		"../../examples/invalid/wrong-type.yaml", "../../examples/valid/02-producer-backend.yaml")
	if code != exitFindings || !strings.Contains(out, "error MG002") || strings.Contains(out, "\x1b") {
		t.Fatalf("exit %d, text:\n%s%s", code, out, errOut)
	}
	read := func(name string) []byte {
		data, err := os.ReadFile(file(name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	var sarif struct {
		Runs []struct {
			Tool struct{ Driver struct{ Version string } }
		}
	}
	if err := json.Unmarshal(read("r.sarif"), &sarif); err != nil || sarif.Runs[0].Tool.Driver.Version != toolVersion() {
		t.Errorf("SARIF: %v, driver %+v", err, sarif)
	}
	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(read("r.xml"), &junit); err != nil || junit.Tests != 4 || junit.Failures != 1 {
		t.Errorf("JUnit: %v, %+v; want 4 objects (3 passing), 1 failure", err, junit)
	}
	if gh := string(read("r.gh")); !strings.Contains(gh, "::error file=../../examples/invalid/wrong-type.yaml,line=") {
		t.Errorf("github annotations:\n%s", gh)
	}
	if md := string(read("r.md")); !strings.Contains(md, "| MG002 |") {
		t.Errorf("markdown:\n%s", md)
	}
	var y map[string]any
	if err := yaml.Unmarshal(read("r.yaml"), &y); err != nil || y["summary"] == nil {
		t.Errorf("yaml: %v\n%s", err, read("r.yaml"))
	}

	for _, tc := range []struct{ value, want string }{
		{"text,json", "sends 2 reports to standard output"},
		{"sarif=a,json=a", "file a is named twice"},
		{"sarif=", "names no file"},
		{"csv", `format must be text, json, yaml, sarif, markdown, github or junit, optionally =FILE (got "csv")`},
	} {
		_, errOut, code := cli(t, "", "lint", "-o", tc.value, "../../examples/valid/02-producer-backend.yaml")
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("-o %s: exit %d, %q, want %q", tc.value, code, errOut, tc.want)
		}
	}
}

// TestDataFormats checks the -o json and yaml of rules, default and version.
func TestDataFormats(t *testing.T) {
	out, _, code := cli(t, "", "rules", "-o", "json")
	var rules struct {
		Rules []struct{ Code, Severity, Summary, HelpURI, Bad string }
	}
	if err := json.Unmarshal([]byte(out), &rules); code != exitOK || err != nil || len(rules.Rules) < 10 || rules.Rules[0].Code != "MG000" || rules.Rules[0].Bad == "" {
		t.Errorf("rules -o json: exit %d, %v, %d rules", code, err, len(rules.Rules))
	}
	out, _, code = cli(t, "", "rules", "-o", "yaml")
	if err := yaml.Unmarshal([]byte(out), &rules); code != exitOK || err != nil || rules.Rules[0].Code != "MG000" {
		t.Errorf("rules -o yaml: exit %d, %v", code, err)
	}
	out, errOut, code := cli(t, "", "default", "-o", "json", "../../examples/valid/02-producer-backend.yaml")
	var list struct {
		Kind  string
		Items []struct {
			Metadata struct{ Labels map[string]string }
		}
	}
	if err := json.Unmarshal([]byte(out), &list); code != exitOK || err != nil || list.Kind != "List" || len(list.Items) != 3 || list.Items[0].Metadata.Labels["kuma.io/mesh"] != "default" {
		t.Errorf("default -o json: exit %d, %v, %+v\n%s", code, err, list, errOut)
	}
	out, _, code = cli(t, "", "version", "-o", "yaml")
	if code != exitOK || !strings.Contains(out, "version: ") {
		t.Errorf("version -o yaml: exit %d\n%s", code, out)
	}
}
