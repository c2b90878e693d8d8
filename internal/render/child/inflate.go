package child

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/internal/render"
)

// inflateHelmCharts implements kustomize's --enable-helm without a helm
// binary: it renders each helmCharts entry of the kustomization in dir with
// the Helm SDK (bounded like every chart render), serves each output as a
// file of the build's file system, and returns the kustomization with
// helmCharts and helmGlobals replaced by those files as resources. Generated
// and listed resources then go through the same transformers; kustomize
// would add the generated ones after the resources, and sorts either way.
func inflateHelmCharts(req render.KustomizeRequest, dir string, data []byte) ([]byte, map[string][]byte, error) {
	var k types.Kustomization
	if err := yaml.Unmarshal(data, &k); err != nil || len(k.HelmCharts) == 0 {
		return data, nil, nil
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return data, nil, nil
	}
	files := map[string][]byte{}
	resources, _ := raw["resources"].([]any)
	for i, h := range k.HelmCharts {
		out, err := inflateOne(req, dir, chartHome(k.HelmGlobals), h)
		if err != nil {
			return nil, nil, fmt.Errorf("helmCharts[%d] (%s): %w", i, h.Name, err)
		}
		name := fmt.Sprintf("%s%d-%s.yaml", render.VirtualPrefix, i, h.Name)
		files[filepath.Join(dir, name)] = out
		resources = append(resources, name)
	}
	delete(raw, "helmCharts")
	delete(raw, "helmGlobals")
	raw["resources"] = resources
	rewritten, err := yaml.Marshal(raw)
	return rewritten, files, err
}

// inflateOne renders one helmCharts entry from its chart under chartHome
// (kustomize's <chartHome>/<name>, or <chartHome>/<name>-<version>/<name>
// for a pulled chart); a chart that is not there would be pulled, which
// meshguard never does.
func inflateOne(kreq render.KustomizeRequest, dir, home string, h types.HelmChart) ([]byte, error) {
	if !filepath.IsAbs(home) {
		home = filepath.Join(dir, home)
	}
	chartDir := filepath.Join(home, h.Name)
	if h.Version != "" && h.Repo != "" && isLocalDir(home, h.Name+"-"+h.Version, h.Name) {
		chartDir = filepath.Join(home, h.Name+"-"+h.Version, h.Name)
	}
	if !isLocalDir(chartDir) {
		return nil, fmt.Errorf("chart %s is not in %s: meshguard pulls no charts (helm pull --untar it there first)", h.Name, home)
	}
	if err := render.CheckChartLinks(chartDir, append([]string{dir}, kreq.Roots...)); err != nil {
		return nil, err
	}
	req := kreq.HelmDefaults
	req.Dir = chartDir
	req.ReleaseName, req.Namespace = firstOf(h.ReleaseName, "release-name"), firstOf(h.Namespace, "default")
	req.ValueFiles, req.Set, req.SetString = nil, nil, nil
	req.APIVersions = append(slices.Clone(req.APIVersions), h.ApiVersions...)
	req.KubeVersion = firstOf(h.KubeVersion, req.KubeVersion)
	var err error
	if req.Values, err = inlineValues(kreq.Roots, dir, h); err != nil {
		return nil, err
	}
	for _, f := range h.AdditionalValuesFiles {
		req.ValueFiles = append(req.ValueFiles, filepath.Join(dir, f))
	}
	res := helmRender(req)
	if res.Err != "" {
		return nil, fmt.Errorf("%s", res.Err)
	}
	names := make([]string, 0, len(res.Templates))
	for name := range res.Templates {
		if path.Base(name) != "NOTES.txt" && render.IsManifest(name) && strings.TrimSpace(res.Templates[name]) != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out strings.Builder
	for _, name := range names {
		out.WriteString("---\n# Source: " + name + "\n" + res.Templates[name] + "\n")
	}
	return []byte(out.String()), nil
}

// inlineValues are the values kustomize hands helm as its one values file:
// valuesFile (if given) with valuesInline over it (valuesMerge override, the
// default), under it (merge), or instead of it (replace).
func inlineValues(roots []string, dir string, h types.HelmChart) (map[string]any, error) {
	vals := map[string]any{}
	if h.ValuesFile != "" && h.ValuesMerge != "replace" {
		p := h.ValuesFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if real, err := canonical(p); err != nil || !within(real, append([]string{dir}, roots...)) {
			return nil, fmt.Errorf("valuesFile %s is outside the kustomization and the linted paths: refused", h.ValuesFile)
		}
		v, err := chartutil.ReadValuesFile(p)
		if err != nil {
			return nil, fmt.Errorf("valuesFile %s: %w", h.ValuesFile, err)
		}
		vals = v
	}
	if h.ValuesMerge == "merge" {
		return mergeValues(h.ValuesInline, vals), nil
	}
	return mergeValues(vals, h.ValuesInline), nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// virtualFile is the content of a file that exists only in the build.
func (f *recordingFS) virtualFile(path string) ([]byte, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	data, ok := f.virtual[filepath.Clean(abs)]
	return data, ok
}

// Exists is true for files on disk and the build's own files.
func (f *recordingFS) Exists(path string) bool {
	if _, ok := f.virtualFile(path); ok {
		return true
	}
	return f.FileSystem.Exists(path)
}

// CleanedAbs is the disk's, and for the build's own files, their directory
// and name.
func (f *recordingFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	if _, ok := f.virtualFile(path); ok {
		abs, _ := filepath.Abs(path)
		d, _, err := f.FileSystem.CleanedAbs(filepath.Dir(abs))
		return d, filepath.Base(abs), err
	}
	return f.FileSystem.CleanedAbs(path)
}

// withHelmCharts inflates the helmCharts of a kustomization the build reads
// when --enable-helm is on; the rendered charts become files of the build.
func (f *recordingFS) withHelmCharts(path string, data []byte) ([]byte, error) {
	if f.inflate == nil {
		return data, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	out, files, err := f.inflate(filepath.Dir(abs), data)
	if err != nil {
		return nil, f.refuse(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for p, content := range files {
		if f.virtual == nil {
			f.virtual = map[string][]byte{}
		}
		f.virtual[p] = content
	}
	return out, nil
}
