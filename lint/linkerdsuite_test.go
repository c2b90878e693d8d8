package lint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// linkerdSuite is Linkerd edge-26.8.3's admission test cases as manifests (see its
// README); linkerdDoc lists, between the markers below, every case where meshguard's
// verdict differs from Linkerd's, with the reason. The same tests at version-2.18,
// 2.19 and 2.20 are linkerdSuite-<tag>, their differences listed in docs/conformance.md.
const (
	linkerdSuite = "../validate/testdata/conformance/linkerd-admission"
	linkerdDoc   = "../docs/linkerd.md"
)

// linkerdSuites are the admission suites of every Linkerd release meshguard has a
// profile for: the directory, and the document and marker listing its differences.
func linkerdSuites() []struct{ release, dir, doc, marker string } {
	out := []struct{ release, dir, doc, marker string }{{api.LinkerdEdge, linkerdSuite, linkerdDoc, "linkerd-admission-suite"}}
	for _, r := range []string{api.LinkerdV218, api.LinkerdV219, api.LinkerdV220} {
		out = append(out, struct{ release, dir, doc, marker string }{r, linkerdSuite + "-" + r, conformanceDoc, "linkerd-admission-suite-" + r})
	}
	return out
}

// TestLinkerdAdmissionSuite lints every manifest of each Linkerd release's admission
// suite on its own, under that release's --linkerd-version (and the Gateway API
// bundle it installs or documents), with the CRDs loaded as every door loads them,
// and holds the verdicts that differ from Linkerd's against the release's table: an
// unlisted difference, or a listed one that no longer happens, fails the test, and
// so does agreement under 98%.
func TestLinkerdAdmissionSuite(t *testing.T) {
	for _, suite := range linkerdSuites() {
		t.Run(suite.release, func(t *testing.T) {
			got, agree, n := runLinkerdSuite(t, suite.dir, suite.release)
			t.Logf("Linkerd %s: %d/%d admission verdicts agree", suite.release, agree, n)
			if agree*100 < n*98 {
				t.Errorf("Linkerd %s: %d/%d verdicts agree, under 98%%", suite.release, agree, n)
			}
			rows := make(map[string]string, len(got))
			for d, desc := range got {
				rows[d] = fmt.Sprintf("| %s | %s | %s |", strings.Replace(d, ": ", " | ", 1), desc, "(reason)")
			}
			holdListed(t, rows, listedDiffs(t, suite.doc, suite.marker, regexp.MustCompile(`^\s*\d{3}\s*$`)),
				"differences from Linkerd "+suite.release+"'s admission", strings.TrimPrefix(suite.doc, "../"))
		})
	}
}

// runLinkerdSuite lints the cases of the suite in dir under Linkerd release: the
// differing verdicts ("NNN: verdict: ..." → "Kind: test"), how many agree, of how many.
func runLinkerdSuite(t *testing.T, dir, release string) (map[string]string, int, int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Cases []struct {
			File   string `json:"file"`
			Kind   string `json:"kind"`
			Test   string `json:"test"`
			Expect string `json:"expect"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &suite); err != nil {
		t.Fatal(err)
	}
	if len(suite.Cases) != 91 {
		t.Fatalf("%d cases, want Linkerd's 91", len(suite.Cases))
	}
	s := api.DefaultSettings()
	s.LinkerdVersion = release
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
	got := map[string]string{}
	agree := 0
	for _, c := range suite.Cases {
		fs, _, _ := Run([]string{filepath.Join(dir, c.File)}, nil, LoadOptions{}, o, nil)
		var errs []Finding
		for _, f := range fs {
			if f.Severity == "error" {
				errs = append(errs, f)
			}
		}
		var d string
		switch {
		case c.Expect == "admitted" && len(errs) > 0:
			d = fmt.Sprintf("verdict: Linkerd admitted, meshguard rejected (%s %s)", errs[0].Code, errs[0].Field)
		case c.Expect == "rejected" && len(errs) == 0:
			d = "verdict: Linkerd rejected, meshguard admitted"
		default:
			agree++
			continue
		}
		got[c.File[:3]+": "+d] = c.Kind + ": " + c.Test
	}
	return got, agree, len(suite.Cases)
}

// TestLinkerdDocsManifestsLintClean: manifests written the way Linkerd's docs write
// them (and a route of another gateway, which is left alone) draw no finding at all.
func TestLinkerdDocsManifestsLintClean(t *testing.T) {
	s := api.DefaultSettings()
	// Linkerd's docs write TLSRoute v1alpha2, which Gateway API v1.5 (the default
	// under edge-26.8.3) deprecates: MG340, as the API server warns. They were
	// written for the bundle Linkerd's CRDs chart carries, v1.1.1.
	s.GatewayAPIVersion = "v1.1.1"
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocument(s, "default")}
	fs, sum, _ := Run([]string{"testdata/linkerd-docs"}, nil, LoadOptions{}, o, nil)
	if sum.Documents != 13 {
		t.Errorf("%d documents linted, want 13", sum.Documents)
	}
	for _, f := range fs {
		t.Errorf("%s:%d %s %s %s: %s", f.File, f.Line, f.Severity, f.Code, f.Field, f.Message)
	}
}
