package lint

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/rules"
	"github.com/meshguard/meshguard/validate"
)

// openMTP is a mesh-wide allow in namespace ns: MG190 (deprecated from) on the
// object, MG203 (everyone reaches everyone) from the RBAC stage.
func openMTP(ns, name, ignore string) string {
	ann := ""
	if ignore != "" {
		ann = "  annotations:\n    meshguard.io/ignore: \"" + ignore + "\"\n"
	}
	return "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: " + name + "\n  namespace: " + ns + "\n" + ann +
		"spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: Allow\n"
}

type verdict struct {
	Code, Name, Suppression string
}

func verdicts(fs []Finding) []verdict {
	var out []verdict
	for _, f := range fs {
		v := verdict{Code: f.Code, Name: f.Name}
		if f.Suppression != nil {
			v.Suppression = f.Suppression.Kind + ": " + f.Suppression.Justification
		}
		out = append(out, v)
	}
	return out
}

func suppressOptions() Options {
	s := api.DefaultSettings()
	return Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocument(s, "default"),
		Now: time.Date(2027, 1, 15, 0, 0, 0, 0, time.UTC)}
}

func TestAnnotationSuppressions(t *testing.T) {
	for _, tc := range []struct {
		name, ignore string
		want         []verdict
		suppressed   int
	}{
		{"none", "", []verdict{{"MG190", "a", ""}, {"MG203", "a", ""}}, 0},
		// MG203 comes from the cross-document RBAC stage, MG190 from validation.
		{"stage and object findings", "MG203: open on purpose; MG190: migrating",
			[]verdict{{"MG190", "a", "inSource: migrating"}, {"MG203", "a", "inSource: open on purpose"}}, 2},
		{"expired", "MG203 until 2027-01-14: open on purpose",
			[]verdict{{"MG053", "a", ""}, {"MG190", "a", ""}, {"MG203", "a", ""}}, 0},
		{"unused", "MG203: open; MG201: nothing shadowed",
			[]verdict{{"MG054", "a", ""}, {"MG190", "a", ""}, {"MG203", "a", "inSource: open"}}, 1},
		{"no reason", "MG203",
			[]verdict{{"MG051", "a", ""}, {"MG190", "a", ""}, {"MG203", "a", ""}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, sum := Lint(LoadBytes("x.yaml", []byte(openMTP("kuma-system", "a", tc.ignore))), suppressOptions())
			if diff := cmp.Diff(tc.want, verdicts(fs)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if sum.Suppressed != tc.suppressed || sum.Warnings != len(fs)-tc.suppressed {
				t.Errorf("summary %+v, want %d suppressed of %d", sum, tc.suppressed, len(fs))
			}
		})
	}
}

// TestErrorsAreNotSuppressed: an annotation naming an error code is itself a
// finding and the error stays, so the exit code still fails.
func TestErrorsAreNotSuppressed(t *testing.T) {
	doc := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  namespace: kuma-system\n  annotations:\n    meshguard.io/ignore: \"MG002: wrong\"\nspec:\n  to: Mesh\n"
	fs, sum := Lint(LoadBytes("x.yaml", []byte(doc)), suppressOptions())
	got := map[verdict]bool{}
	for _, v := range verdicts(fs) {
		got[v] = true
	}
	if sum.Errors == 0 || sum.Suppressed != 0 || !got[verdict{"MG052", "t", ""}] || !got[verdict{"MG002", "t", ""}] {
		t.Fatalf("summary %+v: %+v", sum, verdicts(fs))
	}
}

func writeIgnore(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ignore.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIgnoreFile(t *testing.T) {
	o := suppressOptions()
	path := writeIgnore(t, `suppressions:
  - code: MG190
    kind: MeshTraffic*
    namespace: team-a
    name: "*"
    reason: teams migrate in Q3
  - codes: [MG190]
    name: b
    reason: b is next
    expires: 2027-01-31
  - code: MG190
    name: c
    reason: too late
    expires: 2027-01-01
  - code: MG201
    reason: stale
  - code: MG002
    reason: no
  - code: MG203
  - code: MG203
    colour: red
    reason: x
`)
	f, err := ReadIgnoreFile(path, RuleSeverity, o.Now)
	if err != nil {
		t.Fatal(err)
	}
	o.Ignore = f
	docs := LoadBytes("x.yaml", []byte(openMTP("team-a", "a", "")+"---\n"+openMTP("team-b", "b", "")+"---\n"+openMTP("kuma-system", "c", "")))
	fs, sum := Lint(docs, o)
	got := map[verdict]bool{}
	for _, v := range verdicts(fs) {
		got[v] = true
	}
	want := map[verdict]bool{
		{"MG190", "a", "external: teams migrate in Q3"}: true,
		{"MG190", "b", "external: b is next"}:           true,
		{"MG190", "c", ""}:                              true, {"MG203", "c", ""}: true,
		// About the file: the expired entry, the unused one, the error code, the
		// missing reason, the unknown key.
		{"MG053", "", ""}: true, {"MG054", "", ""}: true, {"MG052", "", ""}: true, {"MG051", "", ""}: true, {"MG050", "", ""}: true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if sum.Suppressed != 2 {
		t.Errorf("summary %+v", sum)
	}
	for _, fi := range fs {
		if fi.File == path && fi.Line == 0 {
			t.Errorf("finding about the file without a line: %+v", fi)
		}
	}
}

func TestReadIgnoreFileErrors(t *testing.T) {
	for _, body := range []string{"- code: MG201\n", "suppressions: {code: MG201}\n", "rules: []\n", "suppressions: [\n"} {
		if _, err := ReadIgnoreFile(writeIgnore(t, body), RuleSeverity, time.Now()); err == nil {
			t.Errorf("%q: no error", body)
		}
	}
	if _, err := ReadIgnoreFile(filepath.Join(t.TempDir(), "missing.yaml"), RuleSeverity, time.Now()); err == nil {
		t.Error("missing file: no error")
	}
	if f, err := ReadIgnoreFile(writeIgnore(t, "# nothing yet\n"), RuleSeverity, time.Now()); err != nil || len(f.Entries) != 0 {
		t.Errorf("empty file: %v %+v", err, f)
	}
}

// TestSuppressedOutput: JSON keeps suppressed findings, marked; SARIF records
// them in suppressions with the kind SARIF defines; text lists them only when
// asked and counts them.
func TestSuppressedOutput(t *testing.T) {
	o := suppressOptions()
	f, err := ReadIgnoreFile(writeIgnore(t, "suppressions:\n  - {code: MG190, reason: migrating}\n"), RuleSeverity, o.Now)
	if err != nil {
		t.Fatal(err)
	}
	o.Ignore = f
	fs, sum := Lint(LoadBytes("x.yaml", []byte(openMTP("kuma-system", "a", "MG203: open"))), o)
	var js bytes.Buffer
	if err := WriteJSON(&js, fs, sum, nil); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Findings []Finding
		Summary  Summary
	}
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 2 || rep.Summary.Suppressed != 2 || rep.Summary.Warnings != 0 {
		t.Errorf("json: %s", js.String())
	}
	var sarif bytes.Buffer
	if err := WriteSARIF(&sarif, fs, nil, rules.Catalogue(), ""); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID       string
				Suppressions []struct{ Kind, Status, Justification string }
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, r := range log.Runs[0].Results {
		for _, s := range r.Suppressions {
			kinds[r.RuleID] = s.Kind + "/" + s.Status + "/" + s.Justification
		}
	}
	if diff := cmp.Diff(map[string]string{"MG190": "external/accepted/migrating", "MG203": "inSource/accepted/open"}, kinds); diff != "" {
		t.Errorf("sarif suppressions (-want +got):\n%s", diff)
	}
	var text bytes.Buffer
	if err := WriteText(&text, Unsuppressed(fs), sum, false); err != nil {
		t.Fatal(err)
	}
	if want := "1 document, 0 errors, 0 warnings, 2 suppressed\n"; text.String() != want {
		t.Errorf("text:\n%s\nwant %q", text.String(), want)
	}
	text.Reset()
	_ = WriteText(&text, fs, sum, false)
	if !strings.Contains(text.String(), "[suppressed by metadata.annotations[meshguard.io/ignore]: open]") {
		t.Errorf("text with suppressed:\n%s", text.String())
	}
}

func FuzzParseIgnoreFile(f *testing.F) {
	for _, s := range []string{"suppressions:\n  - {code: MG201, reason: x, expires: 2027-01-01}\n", "suppressions: []\n", "- a\n", "suppressions:\n  - codes: [MG1, MG2]\n    name: '[a'\n", "&a [*a]"} {
		f.Add([]byte(s))
	}
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseIgnoreFile("f.yaml", data, RuleSeverity, now)
		if err != nil {
			return
		}
		for _, e := range file.Entries {
			if e.Reason == "" || len(e.Codes) == 0 {
				t.Fatalf("entry without reason or codes: %+v", e)
			}
		}
	})
}

// TestPrivilegedObjects: an object Options.Privileged names is judged as the
// webhook judges the mesh's own sync (audit: objects synced from global).
func TestPrivilegedObjects(t *testing.T) {
	doc := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  namespace: kuma-system\n  labels:\n    kuma.io/origin: global\n" +
		"spec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n"
	s := api.DefaultSettings()
	s.Mode, s.Zone = api.ModeZone, "zone-1"
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
	codes := func(o Options) []string {
		fs, _ := Lint(LoadBytes("x.yaml", []byte(doc)), o)
		var out []string
		for _, f := range fs {
			out = append(out, f.Code)
		}
		return out
	}
	if got := codes(o); !slices.Contains(got, validate.CodeOrigin) {
		t.Errorf("a user's object of origin global on a zone: %v, want %s", got, validate.CodeOrigin)
	}
	o.Privileged = func(*unstructured.Unstructured) bool { return true }
	if got := codes(o); len(got) != 0 {
		t.Errorf("the sync's object: %v, want none", got)
	}
}
