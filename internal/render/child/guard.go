package child

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/internal/render"
)

// guard refuses a read kustomize asks for when it would leave the linted
// paths through a symlink, or open something that is not a regular file (a
// FIFO would hang the build, a device never end). Plain reads outside the
// roots stay allowed: an overlay's ../../base is ordinary kustomize.
func (f *recordingFS) guard(path string) error {
	lexical, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	real, err := canonical(path)
	if err != nil {
		return err
	}
	f.mu.Lock()
	dirs := f.kustomizationDirs
	f.mu.Unlock()
	if filepath.Clean(lexical) != real && !within(real, f.roots) && !within(real, dirs) {
		return render.ErrLinkOut(path, real)
	}
	if info, err := os.Stat(real); err == nil && !info.Mode().IsRegular() && !info.IsDir() {
		return fmt.Errorf("%s is not a regular file (%v): refused", path, info.Mode().Type())
	}
	return nil
}

// checkKustomization is called with every kustomization file the build reads:
// without --allow-remote, a reference kustomize would fetch (an http(s) URL)
// or clone (a git URL) is an input error naming the flag. The file's directory
// becomes a place symlinks of this build may point into.
func (f *recordingFS) checkKustomization(path string, data []byte) error {
	if !f.allowRemote {
		if ref := remoteReference(filepath.Dir(path), data); ref != "" {
			return fmt.Errorf("%s refers to the remote resource %q: meshguard fetches nothing over the network unless --allow-remote is given", path, ref)
		}
	}
	if dir, err := canonical(filepath.Dir(path)); err == nil {
		f.mu.Lock()
		f.kustomizationDirs = append(f.kustomizationDirs, dir)
		f.mu.Unlock()
	}
	return nil
}

// remoteReference is the first reference of a kustomization that kustomize
// would fetch over the network or clone with git, "" when there is none. A
// kustomization kustomize cannot read is left to kustomize's own error.
func remoteReference(dir string, data []byte) string {
	var k types.Kustomization
	if yaml.Unmarshal(data, &k) != nil {
		return ""
	}
	// Entries kustomize reads as a file first and else opens as a directory
	// or a git repository.
	for _, list := range [][]string{k.Resources, k.Components, k.Bases, k.Crds, k.Configurations, k.Generators, k.Transformers, k.Validators} {
		for _, p := range list {
			if strings.Contains(p, "\n") {
				continue // an inline generator or transformer configuration
			}
			if isRemoteFile(p) || (!isLocalFile(dir, p) && isGitURL(p)) {
				return p
			}
		}
	}
	// Entries kustomize only reads as files.
	var files []string
	for _, p := range k.Patches {
		files = append(files, p.Path)
	}
	for _, p := range k.PatchesJson6902 {
		files = append(files, p.Path)
	}
	for _, p := range k.PatchesStrategicMerge {
		files = append(files, string(p))
	}
	for _, r := range k.Replacements {
		files = append(files, r.Path)
	}
	for _, g := range k.ConfigMapGenerator {
		files = append(files, sourceFiles(g.KvPairSources)...)
	}
	for _, g := range k.SecretGenerator {
		files = append(files, sourceFiles(g.KvPairSources)...)
	}
	files = append(files, k.OpenAPI["path"])
	for _, p := range files {
		if isRemoteFile(p) {
			return p
		}
	}
	for _, h := range k.HelmCharts {
		if h.Repo != "" && !isLocalDir(dir, chartHome(k.HelmGlobals), h.Name) {
			return h.Repo
		}
	}
	return ""
}

// sourceFiles are the file paths of a generator's files: and envs:.
func sourceFiles(s types.KvPairSources) []string {
	out := append([]string{s.EnvSource}, s.EnvSources...)
	for _, f := range s.FileSources {
		if _, p, ok := strings.Cut(f, "="); ok {
			f = p
		}
		out = append(out, f)
	}
	return out
}

// isRemoteFile is kustomize's test for a file it fetches over HTTP.
func isRemoteFile(p string) bool {
	u, err := url.Parse(p)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

// scpUser is the user@ of an SCP-style git URL (git@github.com:org/repo).
var scpUser = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// isGitURL is kustomize's test for a reference it clones with git: one of
// its schemes (after an optional git:: prefix), an SCP-style user@host:path,
// or a github.com path.
func isGitURL(p string) bool {
	l := strings.ToLower(p)
	l = strings.TrimPrefix(l, "git::")
	for _, s := range []string{"https://", "http://", "ssh://", "file://"} {
		if strings.HasPrefix(l, s) {
			return true
		}
	}
	return scpUser.MatchString(l) || strings.HasPrefix(l, "github.com/") || strings.HasPrefix(l, "github.com:")
}

func isLocalFile(dir, p string) bool {
	info, err := os.Stat(filepath.Join(dir, p))
	return err == nil && info.Mode().IsRegular()
}

func isLocalDir(parts ...string) bool {
	info, err := os.Stat(filepath.Join(parts...))
	return err == nil && info.IsDir()
}

// chartHome is where kustomize looks for helmCharts: helmGlobals.chartHome,
// else "charts", relative to the kustomization.
func chartHome(g *types.HelmGlobals) string {
	if g != nil && g.ChartHome != "" {
		return g.ChartHome
	}
	return "charts"
}
