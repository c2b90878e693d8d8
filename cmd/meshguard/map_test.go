package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
)

var kumaMapDir = filepath.Join(repoRoot, "examples", "map", "kuma")

// TestMapGolden pins the map of the Kuma map example and of check's Linkerd
// example in every text format (go test ./cmd/meshguard -run TestMapGolden
// -update rewrites them).
func TestMapGolden(t *testing.T) {
	for _, in := range []struct{ name, dir string }{{"kuma", kumaMapDir}, {"linkerd", linkerdCheckDir}} {
		for _, f := range []string{"text", "csv", "markdown", "dot"} {
			for _, by := range []string{"destination", "namespace"} {
				out, errOut, code := cli(t, "", "map", in.dir, "-o", f, "--by", by)
				if code != exitOK {
					t.Fatalf("%s -o %s --by %s: exit %d\n%s", in.name, f, by, code, errOut)
				}
				out = strings.ReplaceAll(out, repoRoot+string(filepath.Separator), "")
				golden(t, filepath.Join("map", in.name+"-"+by+"."+f+".golden"), out)
			}
		}
	}
}

// mapJSON runs map -o json and decodes it into the documented model,
// refusing unknown fields.
func mapJSON(t *testing.T, args ...string) *access.Map {
	t.Helper()
	out, errOut, code := cli(t, "", append(append([]string{"map"}, args...), "-o", "json")...)
	if code != exitOK {
		t.Fatalf("map %v: exit %d\n%s", args, code, errOut)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	m := &access.Map{}
	if err := dec.Decode(m); err != nil {
		t.Fatalf("map -o json: %v\n%s", err, out)
	}
	return m
}

// TestMapCellsAreCheckAnswers is door parity: every cell of the examples' maps
// is what `meshguard check -o json` answers for that destination and client,
// asked as a user would (--to Kind/name, --port, --from tags, SPIFFE ID,
// ServiceAccount or --from-ip).
func TestMapCellsAreCheckAnswers(t *testing.T) {
	pairs := 0
	for _, dir := range []string{kumaMapDir, linkerdCheckDir} {
		m := mapJSON(t, dir)
		cells := m.CellsByClass()
		for _, d := range m.Destinations {
			for _, c := range m.Clients {
				args := []string{"check", dir, "--to", d.Peer.Workload, "--to-namespace", d.Peer.Namespace, "-o", "json"}
				if d.Peer.Port != "" {
					args = append(args, "--port", d.Peer.Port)
				}
				switch {
				case c.Kind == access.ClientUnauthenticated && m.Mesh == "kuma":
					continue // check has no --from for a client without a certificate
				case c.Peer.SpiffeID != "":
					args = append(args, "--from", c.Peer.SpiffeID)
				case m.Mesh == "kuma":
					args = append(args, "--from", access.TagWords(c.Peer.Tags), "--from-mesh", c.Peer.Mesh)
				case c.Peer.Unauthenticated:
					args = append(args, "--from-ip", c.Peer.IP)
				default:
					args = append(args, "--from", c.Peer.Namespace+"/"+c.Peer.Name)
				}
				out, errOut, code := cli(t, "", args...)
				if code != exitOK && code != exitFindings {
					t.Fatalf("%v: exit %d\n%s", args, code, errOut)
				}
				var want access.Answer
				if err := json.Unmarshal([]byte(out), &want); err != nil {
					t.Fatal(err)
				}
				got := m.PairAnswer(cells.At(d.Class, c.Class), c)
				pick := func(a access.Answer) []any {
					return []any{a.Decision, a.ShadowDecision, a.DecidedBy, a.ShadowDecidedBy, a.Merged, a.Server, a.Route, a.Default}
				}
				if diff := cmp.Diff(pick(want), pick(got)); diff != "" {
					t.Errorf("%s × %s (-check +map):\n%s", d.ID, c.ID, diff)
				}
				pairs++
			}
		}
	}
	if pairs < 40 {
		t.Errorf("only %d pairs compared", pairs)
	}
}

// writeNewPolicies writes the Kuma map example without the payments owner's
// policy (the one that keeps cart out) into a new directory.
func writeNewPolicies(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"workloads.yaml", "policies.yaml"} {
		b, err := os.ReadFile(filepath.Join(kumaMapDir, f))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if f == "policies.yaml" {
			s = s[:strings.Index(s, "---\n# The payments owner")]
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMapChange: dropping the payments owner's deny opens payments to cart and
// changes nothing else; --git-base against the commit of the old set says the
// same pairs.
func TestMapChange(t *testing.T) {
	newDir := filepath.Join(t.TempDir(), "new")
	writeNewPolicies(t, newDir)
	out, errOut, code := cli(t, "", "map", "--change", kumaMapDir, newDir, "-o", "csv")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	want := "change,destination,client,old_decision,old_policy,old_path,new_decision,new_policy,new_path\n" +
		"opened,shop/Deployment/payments:80,shop/Deployment/cart,DENY,shop/payments-owner,spec.from[0],ALLOW,shop/shop-clients,spec.from[0]\n"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	for _, f := range []string{"text", "markdown", "dot", "json"} {
		out, errOut, code := cli(t, "", "map", "--change", kumaMapDir, newDir, "-o", f)
		if code != exitOK || !strings.Contains(out, "shop/Deployment/payments") || !strings.Contains(out, "opened") {
			t.Errorf("-o %s: exit %d\n%s%s", f, code, out, errOut)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	git := gitIn(t, repo)
	mesh := filepath.Join(repo, "mesh")
	git("init", "-q")
	writeNewPolicies(t, mesh)
	b, _ := os.ReadFile(filepath.Join(kumaMapDir, "policies.yaml"))
	os.WriteFile(filepath.Join(mesh, "policies.yaml"), b, 0o644)
	git("add", ".")
	git("commit", "-qm", "old")
	writeNewPolicies(t, mesh)
	out, errOut, code = cli(t, "", "map", "--git-base", "HEAD", mesh, "-o", "csv")
	if code != exitOK || out != want {
		t.Errorf("--git-base: exit %d\n%s%s\nwant:\n%s", code, out, errOut, want)
	}
}

// TestMapUsage: what cannot work is a usage error that says why.
func TestMapUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"map"}, "needs at least one PATH"},
		{[]string{"map", "--change", kumaMapDir}, "--change needs OLD and NEW"},
		{[]string{"map", kumaMapDir, "--by", "team"}, "--by must be destination or namespace"},
		{[]string{"map", kumaMapDir, "-o", "sarif"}, "--output must be"},
		{[]string{"map", kumaMapDir, "-o", "html", "--by", "namespace"}, "--by namespace is for the other formats"},
		{[]string{"map", kumaMapDir, "--kubeconfig", "x"}, "not both"},
		{[]string{"map", kumaMapDir, linkerdCheckDir}, "give --mesh-type"},
	} {
		_, errOut, code := cli(t, "", tt.args...)
		if code != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s", tt.args, code, exitUsage, tt.want, errOut)
		}
	}
}

// TestMapByNamespaceCounts: the namespace aggregation counts every pair of
// the map once, and its allowed pairs are the map's.
func TestMapByNamespaceCounts(t *testing.T) {
	m := mapJSON(t, kumaMapDir)
	cells := m.CellsByClass()
	allowed := 0
	for _, d := range m.Destinations {
		for _, c := range m.Clients {
			if cells.At(d.Class, c.Class).Answer.Decision == "ALLOW" {
				allowed++
			}
		}
	}
	ns := m.ByNamespace()
	pairs, nsAllowed := 0, 0
	for _, c := range ns.Cells {
		pairs += c.Pairs
		nsAllowed += c.Allowed
	}
	if pairs != len(m.Destinations)*len(m.Clients) || nsAllowed != allowed || allowed == 0 {
		t.Errorf("by namespace: %d pairs, %d allowed; the map: %d pairs, %d allowed", pairs, nsAllowed, len(m.Destinations)*len(m.Clients), allowed)
	}
}

// TestMapJSONStreamed: the cell-by-cell JSON is exactly json.MarshalIndent's.
func TestMapJSONStreamed(t *testing.T) {
	for _, dir := range []string{kumaMapDir, linkerdCheckDir} {
		m := mapJSON(t, dir)
		want, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		if err := m.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want)+"\n" {
			t.Errorf("%s: streamed JSON differs:\n%s", dir, cmp.Diff(string(want)+"\n", got.String()))
		}
	}
}

// TestMapFile: the file audit --map writes is the map of what was read, in
// the format its extension names.
func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	o := defaultMapOptions(api.DefaultSettings())
	loaded := lint.LoadAll([]string{kumaMapDir}, nil, o.loadOptions())
	for ext, want := range map[string]string{".md": "### Kuma access map", ".csv": "destination,destination_class", ".txt": "kuma access map:", ".dot": "// kuma access map"} {
		path := filepath.Join(dir, "map"+ext)
		var errb strings.Builder
		if err := writeMapFile(streams{err: &errb}, o, loaded, path); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if !strings.HasPrefix(string(b), want) || !strings.Contains(errb.String(), "wrote the kuma access map (5 destinations") {
			t.Errorf("%s: %.80q, stderr %q", ext, b, errb.String())
		}
	}
	if _, errOut, code := cli(t, "", "audit", "--map", "x.md", "--interval", "1m"); code != exitUsage || !strings.Contains(errOut, "does not go with --interval") {
		t.Errorf("audit --map --interval: exit %d\n%s", code, errOut)
	}
}

// TestMapHTML: -o html writes the page of the map, and of a change.
func TestMapHTML(t *testing.T) {
	for _, args := range [][]string{{"map", kumaMapDir, "-o", "html"}, {"map", linkerdCheckDir, "-o", "html"}, {"map", "--change", kumaMapDir, kumaMapDir, "-o", "html"}} {
		out, errOut, code := cli(t, "", args...)
		if code != exitOK || !strings.Contains(strings.ToLower(out[:min(len(out), 200)]), "<!doctype html") || !strings.Contains(out, "meshguard-data") {
			t.Errorf("%v: exit %d, %.200q\n%s", args, code, out, errOut)
		}
	}
}
