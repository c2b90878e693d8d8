package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestKrewManifestTemplate fills deploy/krew/meshguard.yaml as hack/release.sh does
// and checks the result: every placeholder is one the script fills, each platform
// points at an archive the script builds, and krew's link name is the one meshguard
// recognises as the plugin.
func TestKrewManifestTemplate(t *testing.T) {
	tmpl := readFile(t, filepath.Join(repoRoot, "deploy/krew/meshguard.yaml"))
	script := readFile(t, filepath.Join(repoRoot, "hack/release.sh"))
	targets := regexp.MustCompile(`TARGETS:-([a-z0-9/ ]+)\}`).FindStringSubmatch(script)
	if targets == nil {
		t.Fatal("hack/release.sh names no default TARGETS")
	}
	filled := strings.ReplaceAll(tmpl, "{{VERSION}}", "v1.2.3")
	for _, tg := range strings.Fields(targets[1]) {
		goos, arch, _ := strings.Cut(tg, "/")
		filled = strings.ReplaceAll(filled, "{{SHA256_"+goos+"_"+arch+"}}", strings.Repeat("a", 64))
	}
	if i := strings.Index(filled, "{{"); i >= 0 {
		t.Fatalf("placeholder the release script does not fill: %.40s", filled[i:])
	}
	var m struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Version   string `json:"version"`
			Platforms []struct {
				Selector struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"selector"`
				URI    string `json:"uri"`
				SHA256 string `json:"sha256"`
				Bin    string `json:"bin"`
			} `json:"platforms"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(filled), &m); err != nil {
		t.Fatal(err)
	}
	// krew links the bin as kubectl-<name>; that is what argv[0] shows.
	if m.Kind != "Plugin" || invokedAs("kubectl-"+m.Metadata.Name) != "kubectl meshguard" || m.Spec.Version != "v1.2.3" {
		t.Errorf("manifest: kind %q, name %q, version %q", m.Kind, m.Metadata.Name, m.Spec.Version)
	}
	if len(m.Spec.Platforms) != len(strings.Fields(targets[1])) {
		t.Errorf("%d platforms, release builds %v", len(m.Spec.Platforms), targets[1])
	}
	for _, p := range m.Spec.Platforms {
		l := p.Selector.MatchLabels
		want := "/v1.2.3/meshguard_v1.2.3_" + l["os"] + "_" + l["arch"] + ".tar.gz"
		if !strings.HasSuffix(p.URI, want) || p.Bin != "meshguard" || len(p.SHA256) != 64 {
			t.Errorf("platform %v: uri %q (want …%s), bin %q", l, p.URI, want, p.Bin)
		}
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "CHANGELOG.md")); err != nil {
		t.Errorf("releases need a CHANGELOG.md: %v", err)
	}
}
