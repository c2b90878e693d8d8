package lint

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/render"
)

// chartFile marks a directory as a Helm chart.
const chartFile = "Chart.yaml"

// helmReleaseName is the release name `helm template` uses when given none.
const helmReleaseName = "release-name"

// renderChart renders the chart in dir the way `helm template` does with the
// Helm SDK: dependencies enabled by their conditions, the chart's values with
// the --helm-values files, --set and --set-string merged over them, checked
// against values.schema.json, then every template rendered without a cluster
// (lookup finds nothing). CRDs in crds/ are left out, as helm template leaves
// them out by default. Each rendered template is linted with its path in the
// chart as the file. The chart is first checked for symlinks that leave the
// linted paths; the render itself runs bounded (renderer.helm).
func (r *renderer) renderChart(dir string) *build {
	b := &build{dir: dir, file: filepath.Join(dir, chartFile), ownsAll: true}
	if err := render.CheckChartLinks(dir, r.opts.Render.roots); err != nil {
		return b.fail(b.file, 1, fmt.Errorf("helm template %s refused: %v", dir, err))
	}
	res := r.helm(r.helmRequest(dir))
	if res.Err != "" {
		file, line := res.ErrFile, res.ErrLine
		if file == "" {
			file, line = b.file, 1
		}
		return b.fail(file, line, fmt.Errorf("helm template %s failed: %s", dir, res.Err))
	}
	for _, l := range res.Logs {
		b.docs = append(b.docs, Document{File: b.file, skip: "Helm said while rendering: " + l})
	}
	names := make([]string, 0, len(res.Templates))
	for name := range res.Templates {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if path.Base(name) == "NOTES.txt" || !isManifest(name) || strings.TrimSpace(res.Templates[name]) == "" {
			continue
		}
		file := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(name, res.Chart+"/")))
		b.addTemplate(file, res.Templates[name])
	}
	return b
}

// fail makes b a failed render with one error at file:line.
func (b *build) fail(file string, line int, err error) *build {
	b.failed = true
	b.docs = []Document{{File: file, Line: line, ErrLine: line, Err: err}}
	return b
}

// addTemplate adds the documents of one rendered template, with their lines
// mapped back to the template source where they can be.
func (b *build) addTemplate(file, rendered string) {
	loaded := assemble(splitUnits(file, []byte(rendered)))
	var lines []int
	if source, err := readBounded(file); err == nil && len(source) <= MaxFileBytes {
		lines = templateLines([]byte(rendered), source)
	}
	for _, d := range loaded.Docs {
		d.Rendered = &Rendering{By: b.file, Line: d.Line, lines: d.lines, templateLines: lines}
		d.Line = d.sourceLine(d.Line)
		b.docs = append(b.docs, d)
	}
	for _, s := range loaded.Skipped {
		b.docs = append(b.docs, Document{File: s.File, Line: s.Line, skip: s.Reason})
	}
}

// helmRequest is the render of the chart in dir with this run's options.
func (r *renderer) helmRequest(dir string) render.HelmRequest {
	o := r.opts.Render
	apis := o.APIVersions
	if apis == nil {
		apis = DefaultAPIVersions(api.DefaultRegistry())
	}
	return render.HelmRequest{Dir: dir, ValueFiles: r.opts.HelmValues, Set: o.Set, SetString: o.SetString,
		ReleaseName: o.ReleaseName, Namespace: r.opts.Namespace, APIVersions: apis, KubeVersion: o.KubeVersion,
		AllowRemote: o.AllowRemote, MaxBytes: o.MaxBytes}
}

// DefaultAPIVersions are the API versions a chart sees in
// .Capabilities.APIVersions besides Kubernetes' built-ins when no
// --api-versions is given: every group/version and group/version/Kind of the
// kinds meshguard guards, so a chart that renders its policies only where
// their CRDs are installed renders them for the linter.
func DefaultAPIVersions(reg *api.Registry) []string {
	var out []string
	for _, k := range reg.Kinds() {
		gvk := k.GVK()
		gv := gvk.GroupVersion().String()
		out = append(out, gv, gv+"/"+gvk.Kind)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
