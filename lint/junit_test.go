package lint

import (
	"bytes"
	"encoding/xml"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// junitDoc is the common JUnit schema's shape, read back with encoding/xml.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failures  []struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Errors []struct {
				Type string `xml:"type,attr"`
			} `xml:"error"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// junitView is what a JUnit reader shows per testcase: suite, case, failure
// types, error types, and whether it has output.
type junitView struct {
	Suite, Case      string
	Failures, Errors []string
	Output           bool
}

func readJUnit(t *testing.T, data []byte) (junitDoc, []junitView) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(xml.Header)) {
		t.Errorf("no XML declaration:\n%s", data)
	}
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, data)
	}
	var views []junitView
	tests, failures, errs := 0, 0, 0
	for _, s := range doc.Suites {
		if s.Tests != len(s.Cases) {
			t.Errorf("suite %s: tests=%d, %d testcases", s.Name, s.Tests, len(s.Cases))
		}
		sf, se := 0, 0
		for _, c := range s.Cases {
			if c.Classname != s.Name {
				t.Errorf("case %s: classname %q, want the suite's file %q", c.Name, c.Classname, s.Name)
			}
			v := junitView{Suite: s.Name, Case: c.Name, Output: c.SystemOut != ""}
			for _, f := range c.Failures {
				v.Failures = append(v.Failures, f.Type)
			}
			for _, e := range c.Errors {
				v.Errors = append(v.Errors, e.Type)
			}
			if len(v.Failures) > 0 {
				sf++
			}
			if len(v.Errors) > 0 {
				se++
			}
			views = append(views, v)
		}
		if s.Failures != sf || s.Errors != se {
			t.Errorf("suite %s: failures=%d errors=%d, counted %d and %d", s.Name, s.Failures, s.Errors, sf, se)
		}
		tests, failures, errs = tests+s.Tests, failures+s.Failures, errs+s.Errors
	}
	if doc.Tests != tests || doc.Failures != failures || doc.Errors != errs {
		t.Errorf("testsuites: tests=%d failures=%d errors=%d, suites add up to %d, %d, %d", doc.Tests, doc.Failures, doc.Errors, tests, failures, errs)
	}
	return doc, views
}

// TestWriteJUnit lints real documents with the object-recording stage and
// checks the report: a suite per file, a testcase per object (passing ones
// too), failures for findings at or above --fail-on, errors for unreadable
// documents, output for findings below it.
func TestWriteJUnit(t *testing.T) {
	good, err := os.ReadFile("../examples/valid/02-producer-backend.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad, err := os.ReadFile("../examples/invalid/wrong-type.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := append(LoadBytes("good.yaml", good), LoadBytes("bad.yaml", bad)...)
	docs = append(docs, LoadBytes("broken.yaml", []byte("kind: MeshTimeout\nspec: [unclosed\n"))...)
	objects := &Objects{}
	o := suppressOptions()
	stages := o.Stages
	o.Stages = func() []Stage { return append(stages(), objects.Stage()) }
	fs, _ := Lint(docs, o)
	if len(objects.List()) != 4 {
		t.Fatalf("recorded %d objects: %+v", len(objects.List()), objects.List())
	}
	for _, tc := range []struct {
		failOn string
		want   []junitView
	}{
		{"error", []junitView{
			{Suite: "bad.yaml", Case: "MeshRetry kuma-system/retries", Failures: []string{"MG002"}, Output: true},
			{Suite: "broken.yaml", Case: "broken.yaml:2", Errors: []string{"MG000"}},
			{Suite: "good.yaml", Case: "MeshTimeout backend-ns/backend-timeouts"},
			{Suite: "good.yaml", Case: "MeshRetry backend-ns/backend-retries"},
			{Suite: "good.yaml", Case: "MeshHTTPRoute backend-ns/backend-v2"},
		}},
		{"warning", []junitView{
			{Suite: "bad.yaml", Case: "MeshRetry kuma-system/retries", Failures: []string{"MG126", "MG002"}},
			{Suite: "broken.yaml", Case: "broken.yaml:2", Errors: []string{"MG000"}},
			{Suite: "good.yaml", Case: "MeshTimeout backend-ns/backend-timeouts"},
			{Suite: "good.yaml", Case: "MeshRetry backend-ns/backend-retries"},
			{Suite: "good.yaml", Case: "MeshHTTPRoute backend-ns/backend-v2"},
		}},
	} {
		var b bytes.Buffer
		if err := WriteJUnit(&b, fs, objects.List(), tc.failOn); err != nil {
			t.Fatal(err)
		}
		_, got := readJUnit(t, b.Bytes())
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("--fail-on %s: testcases (-want +got):\n%s\n%s", tc.failOn, diff, b.String())
		}
	}
}
