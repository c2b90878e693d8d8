package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// actionEnv is what GitHub gives the composite's shell steps, pointed at files in dir.
func actionEnv(t *testing.T, bin, dir string, extra ...string) []string {
	t.Helper()
	for _, f := range []string{"output", "path", "summary"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return append([]string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GITHUB_OUTPUT=" + filepath.Join(dir, "output"), "GITHUB_PATH=" + filepath.Join(dir, "path"),
		"GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary"), "RUNNER_TEMP=" + dir}, extra...)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestActionScript runs the GitHub Action's shell steps (action/run.sh) as
// action.yml calls them, with a locally built meshguard on fixtures: a clean tree,
// a tree with a bad policy, and the diff step on a git work tree.
func TestActionScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds meshguard")
	}
	needTool(t, "bash", "apt-get install bash")
	bin := buildBinary(t)
	script, err := filepath.Abs(filepath.Join(repoRoot, "action", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	copyFile(t, filepath.Join(repoRoot, "examples/valid/02-producer-backend.yaml"), filepath.Join(work, "good/policy.yaml"))
	copyFile(t, filepath.Join(repoRoot, "examples/invalid/wrong-type.yaml"), filepath.Join(work, "bad/policy.yaml"))

	tmp := t.TempDir()
	out, code := sh(t, work, actionEnv(t, bin, tmp, "MESHGUARD_VERSION=path"), "bash", script, "install")
	if code != 0 || !strings.Contains(out, "meshguard ") || !strings.Contains(out, "kuma-2.14") {
		t.Errorf("install (version: path): exit %d\n%s", code, out)
	}

	// A shim in front of meshguard counts its runs: the lint step lints once.
	shim := t.TempDir()
	if err := os.WriteFile(filepath.Join(shim, "meshguard"), []byte("#!/bin/sh\necho run >>\"$MESHGUARD_RUNS\"\nexec "+filepath.Join(bin, "meshguard")+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		paths, flags string
		annotations  bool
		code         string
		results      int
	}{
		{paths: "good", code: "0"},
		// wrong-type.yaml: MG002, and the MG126 warning that its MeshRetry has no 'to'.
		{paths: "good bad", flags: "--mode standalone", code: "1", results: 2},
		{paths: "good bad", annotations: true, code: "1", results: 2},
		// A missing PATH is an input error before any output: no SARIF report (an
		// alert on a file that does not exist), so no upload either.
		{paths: "missing.yaml", code: "2", results: -1},
	} {
		tmp := t.TempDir()
		sarif := filepath.Join(tmp, "out.sarif")
		runs := filepath.Join(tmp, "runs")
		env := actionEnv(t, shim, tmp, "INPUT_PATHS="+tc.paths, "INPUT_FLAGS="+tc.flags, "INPUT_SARIF_FILE="+sarif,
			"MESHGUARD_RUNS="+runs, fmt.Sprintf("INPUT_ANNOTATIONS=%t", tc.annotations))
		log, code := sh(t, work, env, "bash", script, "lint")
		if code != 0 {
			t.Errorf("lint %s: the step itself failed (exit %d); it must leave failing to finish\n%s", tc.paths, code, log)
		}
		if n := strings.Count(readFile(t, runs), "run\n"); n != 1 {
			t.Errorf("lint %s: meshguard ran %d times, want once for text, SARIF and the summary", tc.paths, n)
		}
		if summary := readFile(t, filepath.Join(tmp, "summary")); tc.results >= 0 && !strings.Contains(summary, "## meshguard lint") {
			t.Errorf("lint %s: the job summary lacks the lint report:\n%s", tc.paths, summary)
		}
		annotated := strings.Contains(log, "::error file=bad/policy.yaml,line=") && strings.Contains(log, "title=MG002::")
		if annotated != (tc.annotations && tc.code == "1") {
			t.Errorf("lint %s (annotations %t): annotations in the log: %t\n%s", tc.paths, tc.annotations, annotated, log)
		}
		outputs := readFile(t, filepath.Join(tmp, "output"))
		if tc.results < 0 {
			if !strings.Contains(outputs, "exit-code="+tc.code+"\n") || strings.Contains(outputs, "sarif-file=") {
				t.Errorf("lint %s: outputs %q, want exit-code=%s and no sarif-file", tc.paths, outputs, tc.code)
			}
			if !strings.Contains(log, "no such file or directory") {
				t.Errorf("lint %s: the log does not say the PATH is missing:\n%s", tc.paths, log)
			}
			continue
		}
		if !strings.Contains(outputs, "exit-code="+tc.code+"\n") || !strings.Contains(outputs, "sarif-file="+sarif+"\n") {
			t.Errorf("lint %s: outputs %q, want exit-code=%s and sarif-file", tc.paths, outputs, tc.code)
		}
		if tc.code == "1" && (!strings.Contains(log, "MG002") || !strings.Contains(log, "::error::")) {
			t.Errorf("lint %s: the log lacks the text findings or the error annotation:\n%s", tc.paths, log)
		}
		var report struct {
			Version string `json:"version"`
			Runs    []struct {
				Results []struct {
					RuleID string `json:"ruleId"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(readFile(t, sarif)), &report); err != nil || report.Version != "2.1.0" || len(report.Runs) != 1 {
			t.Fatalf("lint %s: not a SARIF 2.1.0 report: %v", tc.paths, err)
		}
		if n := len(report.Runs[0].Results); n != tc.results {
			t.Errorf("lint %s: %d SARIF results, want %d", tc.paths, n, tc.results)
		}
		_, fin := sh(t, work, []string{"LINT_EXIT_CODE=" + tc.code}, "bash", script, "finish")
		if want := map[string]int{"0": 0, "1": 1, "2": 2}[tc.code]; fin != want {
			t.Errorf("finish after lint %s: exit %d, want %d", tc.paths, fin, want)
		}
	}

	// The diff step: the pull request's base is the commit, the change a new
	// permission in the working tree; the job summary gets the markdown diff.
	needTool(t, "git", "apt-get install git")
	kumaExample := func(side string) {
		for _, f := range []string{"mesh.yaml", "policies.yaml"} {
			copyFile(t, filepath.Join(repoRoot, "examples/diff/kuma-timeout", side, f), filepath.Join(work, "mesh", f))
		}
	}
	kumaExample("old")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-qm", "base"}} {
		if log, code := sh(t, work, nil, "git", args...); code != 0 {
			t.Fatalf("git %v: exit %d\n%s", args, code, log)
		}
	}
	copyFile(t, filepath.Join(repoRoot, "examples/valid/04-workload-owner.yaml"), filepath.Join(work, "good/owner.yaml"))
	tmp = t.TempDir()
	log, code := sh(t, work, actionEnv(t, bin, tmp, "INPUT_PATHS=good", "INPUT_BASE=HEAD"), "bash", script, "diff")
	summary := readFile(t, filepath.Join(tmp, "summary"))
	if code != 0 || !strings.Contains(summary, "## meshguard policy diff") || !strings.Contains(summary, "| **widened** |") {
		t.Errorf("diff: exit %d\n%s\nsummary:\n%s", code, log, summary)
	}
	// A timeout change: the summary says what it does to every proxy.
	kumaExample("new")
	tmp = t.TempDir()
	log, code = sh(t, work, actionEnv(t, bin, tmp, "INPUT_PATHS=mesh", "INPUT_BASE=HEAD"), "bash", script, "diff")
	summary = readFile(t, filepath.Join(tmp, "summary"))
	if code != 0 || !strings.Contains(summary, "#### Kuma: proxy configuration") || !strings.Contains(summary, "| MeshTimeout | `connectionTimeout` | `5s` | `2s` |") {
		t.Errorf("diff of the timeout change: exit %d\n%s\nsummary:\n%s", code, log, summary)
	}
	actionMapReal(t, bin)
}

// TestActionManifest keeps action.yml and action/run.sh in step: every shell step
// calls a subcommand the script has, every input a step uses is declared, and the
// upload uses the standard code-scanning action.
func TestActionManifest(t *testing.T) {
	var action struct {
		Inputs map[string]any `json:"inputs"`
		Runs   struct {
			Using string `json:"using"`
			Steps []struct {
				Run  string            `json:"run"`
				Uses string            `json:"uses"`
				If   string            `json:"if"`
				Env  map[string]string `json:"env"`
				With map[string]string `json:"with"`
			} `json:"steps"`
		} `json:"runs"`
	}
	data := readFile(t, filepath.Join(repoRoot, "action.yml"))
	if err := yaml.Unmarshal([]byte(data), &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", action.Runs.Using)
	}
	script := readFile(t, filepath.Join(repoRoot, "action", "run.sh"))
	subcommands := regexp.MustCompile(`(?m)^  ([a-z |]+)\) "\$1" ;;$`).FindStringSubmatch(script)
	if subcommands == nil {
		t.Fatal("action/run.sh has no subcommand dispatch line")
	}
	uploads := 0
	for _, in := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(data, -1) {
		if _, ok := action.Inputs[in[1]]; !ok {
			t.Errorf("action.yml uses inputs.%s, which it does not declare", in[1])
		}
	}
	for _, s := range action.Runs.Steps {
		if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") {
			uploads++
		}
		if s.Run == "" {
			continue
		}
		m := regexp.MustCompile(`^bash "\$GITHUB_ACTION_PATH/action/run.sh" ([a-z]+)$`).FindStringSubmatch(s.Run)
		if m == nil || !strings.Contains(" "+subcommands[1]+" ", " "+m[1]+" ") {
			t.Errorf("step run %q does not call a run.sh subcommand", s.Run)
		}
	}
	if uploads != 1 {
		t.Errorf("%d upload-sarif steps, want 1", uploads)
	}
}

// releaseArchive is a release's tar.gz of meshguard and meshguard-render from the
// directory bin, as hack/release.sh packs them (two files at the root).
func releaseArchive(t *testing.T, bin string) []byte {
	t.Helper()
	var b bytes.Buffer
	// BestSpeed: the archive of two large executables is only unpacked and
	// checksummed here; for the 100 MB meshguard alone the default level took 20 s,
	// BestSpeed 4 s (load average 20, docs/performance.md).
	gz, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(gz)
	for _, name := range []string{"meshguard", "meshguard-render"} {
		data, err := os.ReadFile(filepath.Join(bin, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestActionInstall runs the action's install step against fake releases
// served on loopback in hack/release.sh's layout: the archive for this runner is
// downloaded and its SHA-256 checked against the checksums file; a mismatch
// fails and installs nothing; a release without an archive for the runner falls
// back to go install (a fake go records the call); a version with no release
// fails.
func TestActionInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds meshguard")
	}
	needTool(t, "bash", "apt-get install bash")
	needTool(t, "curl", "apt-get install curl")
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the action runs on Linux and macOS runners")
	}
	binDir := buildBinary(t)
	bin := filepath.Join(binDir, "meshguard")
	script, err := filepath.Abs(filepath.Join(repoRoot, "action", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	archive := releaseArchive(t, binDir)
	sum := sha256.Sum256(archive)
	platform := runtime.GOOS + "_" + runtime.GOARCH
	rel := t.TempDir()
	release := func(version, sums string, withArchive bool) {
		dir := filepath.Join(rel, version)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "meshguard_"+version+"_checksums.txt"), []byte(sums), 0o644); err != nil {
			t.Fatal(err)
		}
		if withArchive {
			if err := os.WriteFile(filepath.Join(dir, "meshguard_"+version+"_"+platform+".tar.gz"), archive, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	line := func(version, hash string) string {
		return hash + "  meshguard_" + version + "_" + platform + ".tar.gz\n" + strings.Repeat("0", 64) + "  meshguard_" + version + "_" + platform + ".cdx.json\n"
	}
	release("v9.9.9", line("v9.9.9", hex.EncodeToString(sum[:])), true)
	release("v9.9.8", line("v9.9.8", strings.Repeat("ab", 32)), true)
	release("v9.9.7", strings.Repeat("cd", 32)+"  meshguard_v9.9.7_plan9_mips.tar.gz\n", false)
	srv := httptest.NewServer(http.FileServer(http.Dir(rel)))
	defer srv.Close()

	// A fake go on PATH records the fallback and "builds" by copying the binary.
	fake := t.TempDir()
	goScript := "#!/bin/sh\necho \"$@\" >>\"$GO_CALLS\"\ncase \"$*\" in *meshguard-render@*) cp " + bin + "-render \"$GOBIN/meshguard-render\" ;; *) cp " + bin + " \"$GOBIN/meshguard\" ;; esac\n"
	if err := os.WriteFile(filepath.Join(fake, "go"), []byte(goScript), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version   string
		code      int
		installed bool
		goCall    string
		log       string
	}{
		{version: "v9.9.9", installed: true, log: "verified"},
		{version: "v9.9.8", code: 1, log: "checksum mismatch"},
		{version: "v9.9.7", installed: true, goCall: "install github.com/meshguard/meshguard/cmd/meshguard@v9.9.7\ninstall github.com/meshguard/meshguard/cmd/meshguard-render@v9.9.7", log: "no release binary for this runner"},
		{version: "v9.9.6", code: 1, log: "cannot download"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			tmp := t.TempDir()
			calls := filepath.Join(tmp, "go-calls")
			env := actionEnv(t, fake, tmp, "MESHGUARD_VERSION="+tc.version, "MESHGUARD_DOWNLOAD_URL="+srv.URL, "GO_CALLS="+calls)
			log, code := sh(t, t.TempDir(), env, "bash", script, "install")
			if code != tc.code || !strings.Contains(log, tc.log) {
				t.Errorf("install: exit %d, want %d and %q in the log:\n%s", code, tc.code, tc.log, log)
			}
			installed := filepath.Join(tmp, "meshguard-bin", "meshguard")
			for _, exe := range []string{installed, installed + "-render"} {
				_, err := os.Stat(exe)
				if (err == nil) != tc.installed {
					t.Errorf("%s installed: %t, want %t", filepath.Base(exe), err == nil, tc.installed)
				}
			}
			if tc.installed && !strings.Contains(readFile(t, filepath.Join(tmp, "path")), filepath.Dir(installed)) {
				t.Errorf("GITHUB_PATH does not name %s", filepath.Dir(installed))
			}
			got, _ := os.ReadFile(calls)
			if strings.TrimSpace(string(got)) != tc.goCall {
				t.Errorf("go called with %q, want %q", got, tc.goCall)
			}
		})
	}
}

// TestActionPinsItsRelease keeps the action's default version a release tag (the
// action's own release, bumped in the release commit) and the one the docs show.
func TestActionPinsItsRelease(t *testing.T) {
	var action struct {
		Inputs map[string]struct {
			Default string `json:"default"`
		} `json:"inputs"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(repoRoot, "action.yml"))), &action); err != nil {
		t.Fatal(err)
	}
	v := action.Inputs["version"].Default
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(v) {
		t.Fatalf("action.yml's version input defaults to %q, want a release tag vX.Y.Z", v)
	}
	if doc := readFile(t, filepath.Join(repoRoot, "docs", "integrations.md")); !strings.Contains(doc, "meshguard/meshguard@"+v) {
		t.Errorf("docs/integrations.md does not show the action pinned at %s", v)
	}
}
