package child

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/strvals"

	"github.com/meshguard/meshguard/internal/render"
)

// helmRender loads and renders a chart as `helm template` does, in this
// process. Output beyond req.MaxBytes is an error.
func helmRender(req render.HelmRequest) render.HelmResult {
	chrt, out, err := helmTemplate(req)
	if err != nil {
		res := render.HelmResult{Err: err.Error()}
		res.ErrFile, res.ErrLine = helmErrorPlace(req.Dir, err.Error())
		return res
	}
	total := int64(0)
	for _, s := range out {
		total += int64(len(s))
	}
	if total > req.MaxBytes {
		return render.HelmResult{Err: fmt.Sprintf("rendered output is larger than %d bytes (--render-max-bytes)", req.MaxBytes)}
	}
	return render.HelmResult{Chart: chrt.Name(), Templates: out}
}

// helmTemplate loads a chart directory and renders it.
func helmTemplate(req render.HelmRequest) (*chart.Chart, map[string]string, error) {
	chrt, err := chartloader.LoadDir(req.Dir)
	if err != nil {
		return nil, nil, err
	}
	if err := checkDependencies(chrt, req.AllowRemote); err != nil {
		return nil, nil, err
	}
	vals, err := helmValues(req)
	if err != nil {
		return nil, nil, err
	}
	if err := chartutil.ProcessDependenciesWithMerge(chrt, vals); err != nil {
		return nil, nil, err
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.APIVersions = append(caps.APIVersions, req.APIVersions...)
	if req.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return nil, nil, fmt.Errorf("--kube-version: %w", err)
		}
		caps.KubeVersion = *kv
	}
	opts := chartutil.ReleaseOptions{Name: req.ReleaseName, Namespace: req.Namespace, Revision: 1, IsInstall: true}
	values, err := chartutil.ToRenderValues(chrt, vals, opts, caps)
	if err != nil {
		return nil, nil, err
	}
	out, err := engine.Render(chrt, values)
	return chrt, out, err
}

// helmValues merges the values as helm template does: values files in order,
// then --set, then --set-string.
func helmValues(req render.HelmRequest) (map[string]any, error) {
	vals := mergeValues(map[string]any{}, req.Values)
	for _, f := range req.ValueFiles {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			return nil, fmt.Errorf("values file %s: %w", f, err)
		}
		vals = mergeValues(vals, v)
	}
	for _, s := range req.Set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return nil, fmt.Errorf("--set %s: %w", s, err)
		}
	}
	for _, s := range req.SetString {
		if err := strvals.ParseIntoString(s, vals); err != nil {
			return nil, fmt.Errorf("--set-string %s: %w", s, err)
		}
	}
	return vals, nil
}

// checkDependencies refuses what `helm template` would need the network or
// `helm dependency build` for: a dependency in Chart.yaml missing from
// charts/, and a values schema (of the chart or a subchart) that refers to a
// remote or local file, which Helm's schema loader would fetch or read.
func checkDependencies(c *chart.Chart, allowRemote bool) error {
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	for _, d := range c.Metadata.Dependencies {
		if !have[d.Name] {
			return fmt.Errorf("dependency %q (repository %q) is not in %s/charts: meshguard downloads nothing; run helm dependency build first (even --allow-remote does not fetch charts)", d.Name, d.Repository, c.Name())
		}
	}
	if !allowRemote {
		if ref := schemaRemoteRef(c.Schema); ref != "" {
			return fmt.Errorf("values.schema.json of chart %s refers to %q, which Helm would fetch or read: refused without --allow-remote", c.Name(), ref)
		}
	}
	for _, d := range c.Dependencies() {
		if err := checkDependencies(d, allowRemote); err != nil {
			return err
		}
	}
	return nil
}

// schemaRemoteRef is the first reference of a values schema that Helm's
// schema loader would resolve outside the document, "" when there is none.
// Helm compiles the schema as file:///values.schema.json with loaders for
// file, http and https, so any "$ref" that is not a fragment ("#/…") or a URN
// reads a file or fetches a URL, and so does an "$id" with a scheme (it moves
// the base of later references) and a "$schema" that is not one of the JSON
// Schema drafts the library carries.
func schemaRemoteRef(schema []byte) string {
	if len(schema) == 0 {
		return ""
	}
	var doc any
	if json.Unmarshal(schema, &doc) != nil {
		return ""
	}
	var find func(v any) string
	find = func(v any) string {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if s, ok := v[k].(string); ok && isFetchedRef(k, s) {
					return s
				}
				if r := find(v[k]); r != "" {
					return r
				}
			}
		case []any:
			for _, x := range v {
				if r := find(x); r != "" {
					return r
				}
			}
		}
		return ""
	}
	return find(doc)
}

// isFetchedRef reports whether the schema keyword key with value s makes
// Helm's loader read a file or the network.
func isFetchedRef(key, s string) bool {
	l := strings.ToLower(s)
	switch key {
	case "$ref", "$dynamicRef", "$recursiveRef":
		return !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "urn:")
	case "$id":
		return strings.Contains(l, ":") && !strings.HasPrefix(l, "urn:")
	case "$schema":
		return !strings.HasPrefix(l, "http://json-schema.org/") && !strings.HasPrefix(l, "https://json-schema.org/")
	}
	return false
}

// helmErrorAt finds the template position in Helm's error text:
// "parse error at (chart/templates/x.yaml:5): …", "template:
// chart/templates/x.yaml:3:11: executing …", "execution error at
// (chart/templates/x.yaml:1:3): …".
var helmErrorAt = regexp.MustCompile(`(?:template: |error at \()([^\s():]+):(\d+)`)

// helmErrorPlace maps the template Helm's error names to its file under the
// chart directory dir, with the line; "" and 0 when the error names none.
func helmErrorPlace(dir, msg string) (string, int) {
	m := helmErrorAt.FindStringSubmatch(msg)
	if m == nil {
		return "", 0
	}
	_, rest, ok := strings.Cut(m[1], "/")
	if !ok {
		return "", 0
	}
	line, err := strconv.Atoi(m[2])
	if err != nil || line < 1 {
		return "", 0
	}
	return filepath.Join(dir, filepath.FromSlash(rest)), line
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
