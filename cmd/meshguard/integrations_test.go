package main

import (
	"bytes"
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/schema"
)

// runCapture runs the command as name with args and returns its exit code and output.
func runCapture(name string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runAs(name, args, streams{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// TestCompletionScripts checks that every shell the docs promise gets a script that
// completes meshguard's commands.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errs := runCapture("meshguard", "completion", shell)
		if code != exitOK || errs != "" {
			t.Errorf("completion %s: exit %d, stderr %q", shell, code, errs)
		}
		if !strings.Contains(out, "meshguard") || len(out) < 500 {
			t.Errorf("completion %s: the script does not look like one for meshguard:\n%.300s", shell, out)
		}
	}
	// The scripts call `meshguard __complete`; it must offer the subcommands.
	code, out, _ := runCapture("meshguard", "__complete", "")
	for _, sub := range []string{"lint", "version", "completion"} {
		if code != exitOK || !strings.Contains(out, sub) {
			t.Errorf("__complete '' does not offer %q (exit %d):\n%s", sub, code, out)
		}
	}
}

func TestInvokedAs(t *testing.T) {
	for argv0, want := range map[string]string{
		"meshguard":                           "meshguard",
		"/usr/local/bin/meshguard":            "meshguard",
		"/home/u/.krew/bin/kubectl-meshguard": "kubectl meshguard",
		`C:\bin\kubectl-meshguard.exe`:        "kubectl meshguard",
		"kubectl-meshguard.exe":               "kubectl meshguard",
		"./bin/meshguard-linux-amd64":         "meshguard",
	} {
		if got := invokedAs(argv0); got != want {
			t.Errorf("invokedAs(%q) = %q, want %q", argv0, got, want)
		}
	}
}

// TestKubectlPluginHelp checks that, run as kubectl's plugin, help and usage show
// what the user types: `kubectl meshguard lint`, never a bare `meshguard lint`.
func TestKubectlPluginHelp(t *testing.T) {
	bare := "\n  meshguard "
	for _, args := range [][]string{{"--help"}, {"lint", "--help"}, {"version", "--help"}, {"preview", "--help"}} {
		code, out, _ := runCapture("kubectl meshguard", args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d", args, code)
		}
		if !strings.Contains(out, "kubectl meshguard") {
			t.Errorf("%v: help does not say kubectl meshguard:\n%s", args, out)
		}
		if strings.Contains(out, bare) || strings.Contains(out, "Usage:\n  meshguard") {
			t.Errorf("%v: help still tells the plugin user to type meshguard:\n%s", args, out)
		}
	}
	_, out, _ := runCapture("kubectl meshguard", "lint", "--help")
	if !strings.Contains(out, "Usage:\n  kubectl meshguard lint [PATH|-]...") {
		t.Errorf("lint usage line is not kubectl's:\n%s", out)
	}
	// The plain binary is unchanged.
	_, out, _ = runCapture("meshguard", "lint", "--help")
	if !strings.Contains(out, "Usage:\n  meshguard lint") || strings.Contains(out, "kubectl meshguard") {
		t.Errorf("meshguard lint --help changed:\n%s", out)
	}
	// Errors name the plugin too.
	code, _, errs := runCapture("kubectl meshguard", "lint")
	if code != exitUsage || !strings.HasPrefix(errs, "kubectl meshguard: ") {
		t.Errorf("usage error as plugin: exit %d, stderr %q", code, errs)
	}
}

func TestVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-11-24T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	embedded := versionInfo{KumaVersions: schema.KumaVersions(), DefaultKumaVersion: schema.DefaultKumaVersion, CRDReleases: schema.Releases(),
		CRDSources: map[string]string{}, LinkerdVersions: schema.LinkerdVersions(), DefaultLinkerdVersion: schema.DefaultLinkerdVersion}
	// Every embedded release is listed with its source, read from its SOURCE.md: the
	// ones known here by value, one added later by being there.
	known := map[string]releaseInfo{
		"kuma-2.13":            {Name: "kuma-2.13", Mesh: "kuma", Version: "2.13", Source: "kumahq/kuma v2.13.10"},
		"kuma-2.14":            {Name: "kuma-2.14", Mesh: "kuma", Version: "2.14", Source: "kumahq/kuma v2.14.3"},
		"kuma-3.0-preview":     {Name: "kuma-3.0-preview", Mesh: "kuma", Version: "3.0-preview", Source: "kumahq/kuma 348b6528bc234b3c4bd7f22ad7c5bf950d6149fc"},
		"linkerd-edge-26.8.3":  {Name: "linkerd-edge-26.8.3", Mesh: "linkerd", Version: "edge-26.8.3", Source: "linkerd/linkerd2 edge-26.8.3"},
		"linkerd-version-2.19": {Name: "linkerd-version-2.19", Mesh: "linkerd", Version: "version-2.19", Source: "linkerd/linkerd2 version-2.19"},
		"linkerd-version-2.20": {Name: "linkerd-version-2.20", Mesh: "linkerd", Version: "version-2.20", Source: "linkerd/linkerd2 version-2.20"},
		"gateway-api-v1.1.1":   {Name: "gateway-api-v1.1.1", Mesh: "gateway-api", Version: "v1.1.1", Source: "linkerd/linkerd2 edge-26.8.3"},
		"gateway-api-v1.5.1":   {Name: "gateway-api-v1.5.1", Mesh: "gateway-api", Version: "v1.5.1", Source: "kubernetes-sigs/gateway-api v1.5.1"},
	}
	for _, r := range schema.Releases() {
		ri, ok := known[r]
		if !ok {
			mesh, v := releaseParts(r)
			ri = releaseInfo{Name: r, Mesh: mesh, Version: v, Source: schema.Source(r)}
		}
		embedded.CRDSources[r] = ri.Source
		embedded.Releases = append(embedded.Releases, ri)
	}
	if len(embedded.Releases) < len(known) {
		t.Fatalf("releases embedded: %v", embedded.Releases)
	}
	for _, tc := range []struct {
		name             string
		bi               *debug.BuildInfo
		ok               bool
		ldVersion, ldCom string
		want             versionInfo
	}{
		{name: "no build info", want: versionInfo{Version: "devel"}},
		{name: "go install m@v with vcs", bi: bi, ok: true,
			want: versionInfo{Version: "v1.2.3", Commit: "0123abc", CommitTime: "2026-11-24T10:00:00Z", Modified: true, GoVersion: "go1.26.8"}},
		{name: "devel checkout", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, ok: true,
			want: versionInfo{Version: "devel", GoVersion: "go1.26.8"}},
		{name: "release ldflags win", bi: bi, ok: true, ldVersion: "v2.0.0", ldCom: "fedcba",
			want: versionInfo{Version: "v2.0.0", Commit: "fedcba", CommitTime: "2026-11-24T10:00:00Z", Modified: true, GoVersion: "go1.26.8"}},
	} {
		tc.want.KumaVersions, tc.want.DefaultKumaVersion, tc.want.CRDReleases, tc.want.CRDSources = embedded.KumaVersions, embedded.DefaultKumaVersion, embedded.CRDReleases, embedded.CRDSources
		tc.want.LinkerdVersions, tc.want.DefaultLinkerdVersion, tc.want.Releases = embedded.LinkerdVersions, embedded.DefaultLinkerdVersion, embedded.Releases
		if d := cmp.Diff(tc.want, buildVersion(tc.bi, tc.ok, tc.ldVersion, tc.ldCom)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}

	code, out, _ := runCapture("meshguard", "version")
	if code != exitOK || !strings.HasPrefix(out, "meshguard ") || !strings.Contains(out, "kuma-2.14 (kumahq/kuma v2.14.3)") ||
		!strings.Contains(out, "kuma-2.13 (kumahq/kuma v2.13.10)") || !strings.Contains(out, "kuma versions: 2.13, 2.14, 3.0-preview (default 2.14") ||
		!strings.Contains(out, "kuma-3.0-preview (kumahq/kuma 348b6528bc234b3c4bd7f22ad7c5bf950d6149fc)") || !strings.Contains(out, "linkerd-") {
		t.Errorf("version: exit %d:\n%s", code, out)
	}
	code, out, _ = runCapture("meshguard", "version", "-o", "json")
	var got versionInfo
	if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil {
		t.Fatalf("version -o json: exit %d, %v:\n%s", code, err, out)
	}
	if got.Version == "" || !cmp.Equal(got.KumaVersions, embedded.KumaVersions) || !cmp.Equal(got.CRDReleases, embedded.CRDReleases) || !cmp.Equal(got.CRDSources, embedded.CRDSources) {
		t.Errorf("version -o json = %+v", got)
	}
	if code, _, _ := runCapture("meshguard", "version", "-o", "csv"); code != exitUsage {
		t.Errorf("version -o csv: exit %d, want %d", code, exitUsage)
	}
}
