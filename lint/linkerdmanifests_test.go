package lint

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// linkerdManifests is a corpus of real, valid Linkerd edge-26.8.3 manifests from
// Linkerd's tests, install goldens and documentation (see its README): every one is
// accepted by Linkerd's CRDs and by Linkerd's admission.
const linkerdManifests = "../validate/testdata/conformance/linkerd-manifests-edge-26.8.3"

// TestLinkerdManifests lints every manifest of the corpus on its own, as
// `meshguard lint FILE` does, and requires no error finding: these are manifests Linkerd
// accepts. An error that stays must be listed, with the reason, between the
// linkerd-manifests markers of docs/linkerd.md; the test fails when the list and the
// findings disagree.
func TestLinkerdManifests(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(linkerdManifests, "*.yaml"))
	if len(files) < 80 {
		t.Fatalf("only %d manifests under %s", len(files), linkerdManifests)
	}
	reg := api.DefaultRegistry()
	s := api.DefaultSettings()
	// The corpus is what Linkerd edge-26.8.3's own CRDs accept: its charts/linkerd-crds,
	// whose Gateway API routes are v1.1.1. Under the default v1.5.1 (what edge tells
	// users to install) its GRPCRoute v1alpha2 manifests are refused, as that API
	// server refuses them (TestGatewayAPIVersions).
	s.GatewayAPIVersion = "v1.1.1"
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // "file: CODE field" → message
	kinds := map[string]int{}
	for _, f := range files {
		kind, err := groupKind(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		kinds[kind]++
		manifestErrors(got, f, s, reg)
	}
	t.Logf("%d manifests of %d kinds: %v", len(files), len(kinds), kinds)
	// The kinds the corpus holds: the eight policy.linkerd.io kinds and the Gateway API
	// routes Linkerd's docs parent to its objects. Neither Linkerd's repository nor its
	// docs have a TCPRoute (see the README).
	for _, k := range []string{
		"gateway.networking.k8s.io/GRPCRoute", "gateway.networking.k8s.io/HTTPRoute",
		"gateway.networking.k8s.io/TLSRoute", "policy.linkerd.io/AuthorizationPolicy",
		"policy.linkerd.io/EgressNetwork", "policy.linkerd.io/HTTPLocalRateLimitPolicy",
		"policy.linkerd.io/HTTPRoute", "policy.linkerd.io/MeshTLSAuthentication",
		"policy.linkerd.io/NetworkAuthentication", "policy.linkerd.io/Server",
		"policy.linkerd.io/ServerAuthorization",
	} {
		if kinds[k] == 0 {
			t.Errorf("the corpus has no %s", k)
		}
	}
	holdListed(t, manifestRows(got), markedManifestRows(t, linkerdDoc, "linkerd-manifests"), "errors on manifests Linkerd accepts", "docs/linkerd.md")
}

// groupKind reads a corpus file's top-level apiVersion and kind as "group/Kind": the
// corpus has two HTTPRoute kinds, Linkerd's and the Gateway API's.
func groupKind(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	var group, kind string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "apiVersion: "); ok {
			group, _, _ = strings.Cut(v, "/")
		}
		if k, ok := strings.CutPrefix(line, "kind: "); ok {
			kind = k
		}
	}
	if group == "" || kind == "" {
		return "", fmt.Errorf("no top-level apiVersion or kind")
	}
	return group + "/" + kind, sc.Err()
}

// markedManifestRows reads the table between the `<name>:begin` and `<name>:end`
// markers of the document at path: rows "| file | CODE field | why |".
func markedManifestRows(t *testing.T, path, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	row := regexp.MustCompile(`^\|\s*(\S+\.yaml)\s*\|\s*` + "`?" + `([^|` + "`" + `]+?)` + "`?" + `\s*\|\s*(.*?)\s*\|\s*$`)
	for _, line := range strings.Split(markedTable(t, path, name), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			out[m[1]+": "+m[2]] = m[3]
		}
	}
	return out
}
