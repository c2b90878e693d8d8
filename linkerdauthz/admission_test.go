package linkerdauthz

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func checkLines(t *testing.T, lines []string) {
	t.Helper()
	if len(lines) == 0 || len(lines) > 4 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 120 || strings.ContainsAny(l, "\n\r") {
			t.Errorf("line too long or multi-line: %q", l)
		}
	}
}

// TestSummaryLimits keeps every preview's summary within the admission-warning
// budget, including one with many clients.
func TestSummaryLimits(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Build(objects(t, string(in)), Options{}) {
		checkLines(t, Summary(p))
	}
	many := Preview{Namespace: "a", Name: "b", Port: "80", Pods: strings.Repeat("pods with x=y,", 20), Policy: "authorizations"}
	for range 5 {
		many.Clients = append(many.Clients, Client{Kind: ClientIdentity, Name: strings.Repeat("x", 200), Networks: allNetworks(), Via: "ServerAuthorization a/c"})
	}
	lines := Summary(many)
	checkLines(t, lines)
	if !strings.Contains(lines[3], "3 more") {
		t.Errorf("last line %q", lines[3])
	}
}

// TestAdmissionSummary answers for the object being admitted against the stored
// set: a new Server, an authorization, an authentication a policy uses.
func TestAdmissionSummary(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stored := objects(t, string(in))
	byName := func(kind, name string) int {
		for i, o := range stored {
			if o.GetKind() == kind && o.GetName() == name {
				return i
			}
		}
		t.Fatalf("no %s %s", kind, name)
		return -1
	}
	cases := []struct {
		kind, name, want string
	}{
		{"Server", "web-http", "Linkerd Server emojivoto/web-http port http"},
		{"ServerAuthorization", "web-public", "ServerAuthorization emojivoto/web-public allows anyone"},
		{"AuthorizationPolicy", "web-ingress", "AuthorizationPolicy emojivoto/web-ingress allows identity"},
		{"MeshTLSAuthentication", "web-clients", "AuthorizationPolicy emojivoto/web-ingress allows identity"},
		{"AuthorizationPolicy", "metrics", "route-level"},
	}
	for _, c := range cases {
		obj := stored[byName(c.kind, c.name)].DeepCopy()
		lines := AdmissionSummary(obj, stored)
		checkLines(t, lines)
		if !strings.Contains(strings.Join(lines, "\n"), c.want) {
			t.Errorf("%s %s: %q lacks %q", c.kind, c.name, lines, c.want)
		}
	}
	if got := AdmissionSummary(stored[byName("Deployment", "web")].DeepCopy(), stored); got != nil {
		t.Errorf("Deployment: %q", got)
	}
	// A new Server that nothing authorizes reads as denied.
	srv := stored[byName("Server", "web-http")].DeepCopy()
	srv.SetName("fresh")
	srv.SetLabels(nil)
	lines := AdmissionSummary(srv, stored)
	checkLines(t, lines)
	if !strings.Contains(lines[1], "Server accessPolicy default deny allows no one") {
		t.Errorf("fresh Server: %q", lines)
	}
}
