package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// renderRepo is a user's repository with a Helm chart, a kustomize base and
// overlays, plain policies, an ignore file, and a pre-commit config using
// hook id from hooksRepo at rev with args.
func renderRepo(t *testing.T, hooksRepo, rev, id string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	timeout := func(name, to string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: " + name + "\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n" + to
	}
	meshTo := "  - targetRef:\n      kind: Mesh\n    default:\n      idleTimeout: 10s\n"
	files := map[string]string{
		"charts/app/Chart.yaml":             "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"charts/app/values.yaml":            "idle: 10s\n",
		"charts/app/templates/_helpers.tpl": "{{- define \"app.name\" -}}{{ .Release.Name }}-app{{- end }}\n",
		"charts/app/templates/timeout.yaml": "{{- if .Capabilities.APIVersions.Has \"kuma.io/v1alpha1\" }}\n" +
			timeout("{{ include \"app.name\" . }}", "  - targetRef:\n      kind: Mesh\n    default:\n      idleTimeout: {{ .Values.idle }}\n") + "{{- end }}\n",
		"deploy/base/kustomization.yaml":          "resources:\n- timeout.yaml\n",
		"deploy/base/timeout.yaml":                timeout("base-timeout", meshTo),
		"deploy/overlays/prod/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: patch.yaml\n",
		// A strategic-merge patch: linted alone it is a MeshTimeout without a spec.
		"deploy/overlays/prod/patch.yaml":            "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: base-timeout\n  namespace: kuma-system\n  labels:\n    tier: prod\n",
		"deploy/overlays/staging/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: patch.yaml\n",
		// This patch breaks the policy: a number where Kuma wants a duration.
		"deploy/overlays/staging/patch.yaml": "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: base-timeout\n  namespace: kuma-system\nspec:\n  to:\n  - targetRef:\n      kind: Mesh\n    default:\n      idleTimeout: 20\n",
		"policies/good.yaml":                 timeout("good", meshTo),
		// An entry for an object this commit does not touch: stale only on a full run.
		"meshguard-ignore.yaml": "suppressions:\n- codes: [MG190]\n  kind: MeshTrafficPermission\n  name: legacy\n  reason: migration ticket 42\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, filepath.Join(repoRoot, "examples/invalid/wrong-type.yaml"), filepath.Join(dir, "policies/bad.yaml"))
	cfg := "repos:\n- repo: " + hooksRepo + "\n  rev: " + rev + "\n  hooks:\n  - id: " + id + "\n"
	if len(args) > 0 {
		cfg += "    args: [" + strings.Join(args, ", ") + "]\n"
	}
	if err := os.WriteFile(filepath.Join(dir, ".pre-commit-config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, dir)
	return dir
}

// TestPreCommitRendersTrees runs the shipped system hook with the real
// pre-commit on a repository with a chart, a kustomize overlay and plain
// files: a staged template or patch makes its chart or kustomization render,
// nothing is linted twice, hidden files are not mentioned, and ignore-file
// entries for objects not in the commit are not called stale.
func TestPreCommitRendersTrees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pre-commit")
	}
	needTool(t, "git", "apt-get install git")
	needTool(t, "pre-commit", "apt-get install pre-commit, or pip install pre-commit (hack/test-tools.sh does it)")
	bin := buildBinary(t)
	hooks := t.TempDir()
	copyFile(t, filepath.Join(repoRoot, ".pre-commit-hooks.yaml"), filepath.Join(hooks, ".pre-commit-hooks.yaml"))
	rev := gitRepo(t, hooks)
	dir := renderRepo(t, hooks, rev, "meshguard-lint-system", "--ignore-file", "meshguard-ignore.yaml", "--fail-on", "warning")
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "PRE_COMMIT_HOME=" + t.TempDir()}
	tests := []struct {
		name    string
		files   []string
		code    int
		want    []string // substrings of the output
		notWant []string
	}{
		{"a staged template renders its chart", []string{"charts/app/templates/timeout.yaml"}, 0, []string{"1 document, 0 errors, 0 warnings"}, []string{"MG000"}},
		{"a staged helper renders its chart", []string{"charts/app/templates/_helpers.tpl"}, 0, []string{"1 document, 0 errors"}, nil},
		{"a staged patch renders its overlay", []string{"deploy/overlays/prod/patch.yaml"}, 0, []string{"1 document, 0 errors, 0 warnings"}, []string{"MG002"}},
		{"kustomization and its patch: one render", []string{"deploy/overlays/prod/kustomization.yaml", "deploy/overlays/prod/patch.yaml"}, 0,
			[]string{"1 document, 0 errors, 0 warnings"}, []string{"skipped"}},
		{"a patch that breaks the rendered policy fails on the patch", []string{"deploy/overlays/staging/patch.yaml"}, 1,
			[]string{"deploy/overlays/staging/patch.yaml:", "MG002", "rendered by deploy/overlays/staging/kustomization.yaml"}, nil},
		{"hidden files are not mentioned", []string{".pre-commit-config.yaml", "policies/good.yaml"}, 0,
			[]string{"1 document, 0 errors, 0 warnings"}, []string{"pre-commit-config", "skipped", "MG054"}},
		{"a bad plain policy fails", []string{"policies/bad.yaml"}, 1, []string{"policies/bad.yaml", "MG002"}, []string{"MG054"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := sh(t, dir, env, "pre-commit", append([]string{"run", "--verbose", "--files"}, tt.files...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s", code, tt.code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}
