package lint

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// chartFile marks a directory as a Helm chart.
const chartFile = "Chart.yaml"

// helmReleaseName is the release name `helm template` uses when given none.
const helmReleaseName = "release-name"

// renderChart renders the chart in dir the way `helm template` does with the
// Helm SDK: dependencies enabled by their conditions, the chart's values with
// the --helm-values files merged over them, checked against values.schema.json,
// then every template rendered without a cluster (lookup finds nothing). CRDs
// in crds/ are left out, as helm template leaves them out by default. Each
// rendered template is linted with its path in the chart as the file.
func (r *renderer) renderChart(dir string) *build {
	b := &build{dir: dir, file: filepath.Join(dir, chartFile), ownsAll: true}
	var rendered map[string]string
	var chrt *chart.Chart
	err := r.within(nil, func() error {
		var err error
		chrt, rendered, err = helmTemplate(dir, r.opts.HelmValues, r.opts.Namespace)
		return err
	})
	if err != nil {
		b.failed = true
		b.docs = []Document{{File: b.file, Line: 1, ErrLine: 1, Err: fmt.Errorf("helm template %s failed: %v", dir, err)}}
		return b
	}
	names := make([]string, 0, len(rendered))
	for name := range rendered {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if path.Base(name) == "NOTES.txt" || !isManifest(name) || strings.TrimSpace(rendered[name]) == "" {
			continue
		}
		file := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(name, chrt.Name()+"/")))
		loaded := assemble(splitUnits(file, []byte(rendered[name])))
		var lines []int
		if source, err := readBounded(file); err == nil && len(source) <= MaxFileBytes {
			lines = templateLines([]byte(rendered[name]), source)
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
	return b
}

// helmTemplate loads and renders a chart directory.
func helmTemplate(dir string, valueFiles []string, namespace string) (*chart.Chart, map[string]string, error) {
	chrt, err := chartloader.LoadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	vals := map[string]any{}
	for _, f := range valueFiles {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("values file %s: %w", f, err)
		}
		vals = mergeValues(vals, v)
	}
	if err := chartutil.ProcessDependenciesWithMerge(chrt, vals); err != nil {
		return nil, nil, err
	}
	opts := chartutil.ReleaseOptions{Name: helmReleaseName, Namespace: namespace, Revision: 1, IsInstall: true}
	values, err := chartutil.ToRenderValues(chrt, vals, opts, chartutil.DefaultCapabilities.Copy())
	if err != nil {
		return nil, nil, err
	}
	out, err := engine.Render(chrt, values)
	return chrt, out, err
}

// mergeValues merges over into base the way helm merges -f files: maps merge
// key by key, anything else in over replaces what base had.
func mergeValues(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if om, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = mergeValues(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}
