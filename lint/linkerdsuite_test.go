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
// verdict differs from Linkerd's, with the reason.
const (
	linkerdSuite = "../validate/testdata/conformance/linkerd-admission"
	linkerdDoc   = "../docs/linkerd.md"
)

// TestLinkerdAdmissionSuite lints every manifest of Linkerd's admission suite on its
// own, with Linkerd's CRDs loaded as every door loads them, and holds the verdicts
// that differ from Linkerd's against the table in docs/linkerd.md: an unlisted
// difference, or a listed one that no longer happens, fails the test.
func TestLinkerdAdmissionSuite(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(linkerdSuite, "cases.json"))
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
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
	got := map[string]string{}
	agree := 0
	for _, c := range suite.Cases {
		fs, _, _ := Run([]string{filepath.Join(linkerdSuite, c.File)}, nil, LoadOptions{}, o, nil)
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
	t.Logf("%d/%d Linkerd admission verdicts agree", agree, len(suite.Cases))
	rows := make(map[string]string, len(got))
	for d, desc := range got {
		rows[d] = fmt.Sprintf("| %s | %s | %s |", strings.Replace(d, ": ", " | ", 1), desc, "(reason)")
	}
	holdListed(t, rows, listedDiffs(t, linkerdDoc, "linkerd-admission-suite", regexp.MustCompile(`^\s*\d{3}\s*$`)), "differences from Linkerd's admission", "docs/linkerd.md")
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
