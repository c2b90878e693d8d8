package lint

import (
	"encoding/json"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// TestScalarsAsKubectlReadsThem holds the converter to the decoder kubectl, Helm
// and the API server use for YAML (sigs.k8s.io/yaml, YAML 1.1 scalars): every
// plain scalar below, as a value and as a key, gives the JSON kubectl would send.
// Without this, `enabled: on` passes lint as a string the API server never sees,
// and `labels: {canary: yes}` lints clean while the cluster refuses it.
func TestScalarsAsKubectlReadsThem(t *testing.T) {
	scalars := []string{
		"yes", "Yes", "YES", "y", "Y", "n", "N", "no", "No", "NO", "on", "On", "ON",
		"off", "Off", "OFF", "true", "True", "TRUE", "tRue", "false", "FALSE", "yES", "nO", "oN",
		"yep", "nope", "one", "onn", "o", "O", "null", "~",
		"1", "-1", "+1", "0x1F", "0o17", "017", "0b101", "-0b101", "1_000", "1e3", "1.5", "-1.5",
		".5", "+.5", "1.", "0x1p-2", "+0x1F", "-0", "1e+3", "1_0.5",
		"2001-12-14", "2001-12-14T21:59:43.10Z", "1.2.3", "10.0.0.0/8", "-foo", "+foo", "00", "08",
		"12:30", "3:25:45", "Infinity", "inf", "NaN", "frontend", "ALLOW", "Mesh",
	}
	for _, s := range scalars {
		for _, doc := range []string{"a: " + s + "\n", s + ": x\n", "a: [" + s + "]\n"} {
			want, err := sigsyaml.YAMLToJSON([]byte(doc))
			if err != nil {
				continue // kubectl refuses it too (a null key); not the question here
			}
			docs := LoadBytes("s.yaml", []byte("apiVersion: v1\nkind: A\nspec:\n  "+strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ")+"\n"))
			if len(docs) != 1 || docs[0].Err != nil {
				t.Errorf("%q: want one good document, got %+v", doc, docs)
				continue
			}
			got, err := json.Marshal(docs[0].Object.Object["spec"])
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, want, got) {
				t.Errorf("%q: kubectl sends %s, meshguard reads %s", doc, want, got)
			}
		}
	}
}

// jsonEqual compares two JSON texts as the API server decodes them (numbers as
// float64 here: 9007199254740993 is not among the scalars).
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// TestYAML11WordsStayStringsWhenQuoted: only plain scalars change; quoted and
// tagged ones are strings for kubectl too.
func TestYAML11WordsStayStringsWhenQuoted(t *testing.T) {
	in := "apiVersion: v1\nkind: A\nspec:\n  plain: on\n  quoted: \"on\"\n  single: 'yes'\n  tagged: !!str no\n  block: |-\n    off\n"
	docs := LoadBytes("q.yaml", []byte(in))
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("want one good document, got %+v", docs)
	}
	got, _ := json.Marshal(docs[0].Object.Object["spec"])
	want := `{"block":"off","plain":true,"quoted":"on","single":"yes","tagged":"no"}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestYAML11HintOnFindings: a finding at an unquoted YAML 1.1 boolean says why
// the value is a boolean; lines and key lookups follow the converted key.
func TestYAML11HintOnFindings(t *testing.T) {
	in := "apiVersion: v1\nkind: A\nspec:\n  on: x\n  value: on\n  other: frontend\n"
	d := &LoadBytes("h.yaml", []byte(in))[0]
	if got := d.LineOf("spec.true"); got != 4 {
		t.Errorf("LineOf(spec.true) = %d, want 4 (the key `on`)", got)
	}
	f := FindingFor(d, "error", "MG002", "spec.value", "must be of type string")
	if !strings.Contains(f.Message, "unquoted on is the boolean true") || f.Line != 5 {
		t.Errorf("finding at spec.value: line %d, %q", f.Line, f.Message)
	}
	if f := FindingFor(d, "error", "MG002", "spec.other", "m"); f.Message != "m" {
		t.Errorf("a plain string got a hint: %q", f.Message)
	}
}

// TestComplexKeysReadWell checks the message for a key YAML allows but JSON
// cannot hold: it names what the key is in plain English (it once read "mapping
// key is a not a mapping" and "is a a list").
func TestComplexKeysReadWell(t *testing.T) {
	head := "apiVersion: v1\nkind: A\nmetadata: {name: a}\nspec:\n"
	cases := map[string]string{
		"  ? [a]\n  : b\n":    "a mapping key is a list; keys must be scalars (a string, number or boolean)",
		"  ? {a: 1}\n  : b\n": "a mapping key is a mapping; keys must be scalars (a string, number or boolean)",
	}
	for body, want := range cases {
		docs := LoadBytes("f.yaml", []byte(head+body))
		if len(docs) != 1 || docs[0].Err == nil {
			t.Fatalf("%q: want one document with an error, got %+v", body, docs)
		}
		if got := docs[0].Err.Error(); got != want {
			t.Errorf("%q:\n got %q\nwant %q", body, got, want)
		}
	}
}
